import { useEffect, useRef } from "react";

/** Shortcuts are the window's keyboard commands (docs/ui.md, "Keyboard"). */
export interface Shortcuts {
  newSession: () => void;
  focusSearch: () => void;
  openSettings: () => void;
}

/**
 * shortcutOf names the window command a key press asks for, or null;
 * "modeMenu" is the open session's, handled by ModeMenu.
 * Ctrl on Linux and Windows, Cmd on macOS. Ctrl+Alt+N is New session too,
 * because a browser keeps Ctrl+N (a new window) for itself.
 */
export function shortcutOf(
  e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">,
): keyof Shortcuts | "modeMenu" | null {
  if (!(e.ctrlKey || e.metaKey)) return null;
  const key = e.key.toLowerCase();
  // Ctrl+Shift+M opens the open session's mode menu (ModeMenu listens for
  // it itself, since only an open session has one).
  if (e.shiftKey) return key === "m" && !e.altKey ? "modeMenu" : null;
  if (key === "n") return "newSession";
  if (e.altKey) return null;
  if (key === "k") return "focusSearch";
  if (key === ",") return "openSettings";
  return null;
}

/** useShortcuts runs the window's keyboard commands while mounted. */
export function useShortcuts(s: Shortcuts): void {
  const ref = useRef(s);
  ref.current = s;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const which = shortcutOf(e);
      if (which === null || which === "modeMenu" || e.defaultPrevented) return;
      e.preventDefault();
      ref.current[which]();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
