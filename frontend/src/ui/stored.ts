// Small view preferences (a panel's width, whether diff lines wrap) kept in
// localStorage, so they hold across reloads and restarts. Every view using
// a key sees a change at once: one listener set per page, and the storage
// event for other windows. A storage that throws (private mode, quota)
// leaves the default in place; a preference is never worth an error.
import { useCallback, useSyncExternalStore } from "react";

const listeners = new Set<() => void>();

function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  window.addEventListener("storage", fn);
  return () => {
    listeners.delete(fn);
    window.removeEventListener("storage", fn);
  };
}

/** readStored returns the text kept under key, or null when none is (or storage is unavailable). */
export function readStored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** writeStored keeps value under key and tells every view using it. */
export function writeStored(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not kept: the view still changes for this page.
  }
  for (const fn of listeners) fn();
}

/** useStoredFlag is a boolean preference kept under key, fallback when none is kept. */
export function useStoredFlag(key: string, fallback: boolean): [boolean, (v: boolean) => void] {
  const raw = useSyncExternalStore(subscribe, () => readStored(key));
  const value = raw === "true" ? true : raw === "false" ? false : fallback;
  const set = useCallback((v: boolean) => writeStored(key, String(v)), [key]);
  return [value, set];
}

/** useStoredNumber is a number preference kept under key, null when none (or no finite number) is kept. */
export function useStoredNumber(key: string): [number | null, (v: number) => void] {
  const raw = useSyncExternalStore(subscribe, () => readStored(key));
  const n = raw === null ? NaN : Number(raw);
  const set = useCallback((v: number) => writeStored(key, String(Math.round(v))), [key]);
  return [Number.isFinite(n) ? n : null, set];
}

/** useStoredText is a text preference kept under key, null when none is kept. */
export function useStoredText(key: string): [string | null, (v: string) => void] {
  const raw = useSyncExternalStore(subscribe, () => readStored(key));
  const set = useCallback((v: string) => writeStored(key, v), [key]);
  return [raw, set];
}
