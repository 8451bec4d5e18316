// The theme control's hook, with the signature the SHELL view exports from
// features/shell/theme.ts: until that lands, this module keeps the choice
// itself (the lead points the import at SHELL's at merge). The choice is
// kept in localStorage and applied as data-theme on the document element
// ("system" removes it, so prefers-color-scheme decides).
import { useCallback, useSyncExternalStore } from "react";

export type Theme = "light" | "dark" | "system";

const storageKey = "foya.theme";
const listeners = new Set<() => void>();
let chosen: Theme | null = null; // the last choice, where storage is refused


function read(): Theme {
  try {
    const v = globalThis.localStorage?.getItem(storageKey);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return chosen ?? "system"; // storage refused (private mode)
  }
}

function apply(t: Theme): void {
  const el = globalThis.document?.documentElement;
  if (el === undefined) return;
  if (t === "system") delete el.dataset.theme;
  else el.dataset.theme = t;
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

/** useTheme is the chosen theme and the function that changes it (and applies it at once). */
export function useTheme(): { theme: Theme; setTheme(t: Theme): void } {
  const theme = useSyncExternalStore(subscribe, read, () => "system" as Theme);
  const setTheme = useCallback((t: Theme) => {
    chosen = t;
    try {
      if (t === "system") globalThis.localStorage?.removeItem(storageKey);
      else globalThis.localStorage?.setItem(storageKey, t);
    } catch {
      // Not kept across restarts, but applied now.
    }
    apply(t);
    for (const l of listeners) l();
  }, []);
  return { theme, setTheme };
}
