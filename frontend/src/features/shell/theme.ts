// The window's colour theme: light, dark, or the system's (the default),
// kept in localStorage so it holds across restarts and reloads. One module
// store, so every component that uses the hook sees the same choice, and a
// change in another tab of `foya serve` is taken up too.
import { useSyncExternalStore } from "react";

/** Theme is what the user chose. */
export type Theme = "light" | "dark" | "system";

/** themes lists the choices in the order the UI offers them. */
export const themes: readonly Theme[] = ["system", "light", "dark"];

/** themeKey is the localStorage key the choice is kept under. */
export const themeKey = "foya.theme";

const darkQuery = "(prefers-color-scheme: dark)";

function isTheme(v: unknown): v is Theme {
  return v === "light" || v === "dark" || v === "system";
}

function read(): Theme {
  try {
    const v = localStorage.getItem(themeKey);
    return isTheme(v) ? v : "system";
  } catch {
    return "system"; // storage refused (a private window): the default
  }
}

function systemDark(): boolean {
  return typeof matchMedia === "function" && matchMedia(darkQuery).matches;
}

let current: Theme = read();
let dark = systemDark();
const listeners = new Set<() => void>();

function notify(): void {
  apply();
  for (const l of listeners) l();
}

/**
 * apply sets data-theme on the root element to the theme in effect
 * ("light" or "dark"), which styles.css reads.
 */
export function apply(): void {
  document.documentElement.dataset["theme"] = resolve(current, dark);
}

/** resolve is the theme in effect for a choice, given whether the system prefers dark. */
export function resolve(t: Theme, systemPrefersDark: boolean): "light" | "dark" {
  return t === "system" ? (systemPrefersDark ? "dark" : "light") : t;
}

/** setTheme stores a choice and applies it at once. */
export function setTheme(t: Theme): void {
  current = t;
  try {
    localStorage.setItem(themeKey, t);
  } catch {
    // Not kept across restarts, but applied now: nothing else to do.
  }
  notify();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/**
 * startTheme applies the stored theme and follows the system's preference
 * and other tabs' choices; main.tsx calls it once before the first render,
 * so the first paint has the right colours. It returns a function that
 * stops following.
 */
export function startTheme(): () => void {
  current = read();
  dark = systemDark();
  apply();
  const mq = typeof matchMedia === "function" ? matchMedia(darkQuery) : null;
  const onSystem = (e: MediaQueryListEvent) => {
    dark = e.matches;
    notify();
  };
  const onStorage = (e: StorageEvent) => {
    if (e.key !== themeKey) return;
    current = isTheme(e.newValue) ? e.newValue : "system";
    notify();
  };
  mq?.addEventListener("change", onSystem);
  window.addEventListener("storage", onStorage);
  return () => {
    mq?.removeEventListener("change", onSystem);
    window.removeEventListener("storage", onStorage);
  };
}

const snapshot = () => current;
const darkSnapshot = () => dark;

/**
 * useTheme is the theme the user chose, the one in effect, and the setter
 * (which stores the choice in localStorage and applies it at once).
 */
export function useTheme(): { theme: Theme; resolved: "light" | "dark"; setTheme: (t: Theme) => void } {
  const theme = useSyncExternalStore(subscribe, snapshot);
  const systemPrefersDark = useSyncExternalStore(subscribe, darkSnapshot);
  return { theme, resolved: resolve(theme, systemPrefersDark), setTheme };
}
