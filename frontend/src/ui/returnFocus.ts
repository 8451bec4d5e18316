import { useCallback, useLayoutEffect, useRef } from "react";

/**
 * useReturnFocus gives focus back to what had it when a dialog opened, once
 * the dialog closes. Radix's Dialog does that only for a dialog opened by
 * its Trigger; a dialog opened from state (a shortcut, a menu, a button
 * elsewhere) would otherwise leave focus on the page's body. The element
 * is read when open turns true, in a layout effect: before the dialog's
 * focus scope moves focus inside (a passive effect). Pass the returned
 * handler as the Content's onCloseAutoFocus. An opener that left the page
 * meanwhile (the row of a session the dialog deleted) is skipped: then
 * onOpenerGone, if given, puts the focus somewhere sensible, else radix's
 * own choice stands (the page's body, for a person on the keyboard lost).
 */
export function useReturnFocus(open: boolean, onOpenerGone?: () => void): (e: Event) => void {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
  }, [open]);
  const gone = useRef(onOpenerGone);
  gone.current = onOpenerGone;
  return useCallback((e: Event) => {
    const el = opener.current;
    opener.current = null;
    if (el !== null && !el.isConnected && gone.current !== undefined) {
      e.preventDefault();
      gone.current();
      return;
    }
    if (el === null || !el.isConnected) return;
    e.preventDefault();
    el.focus();
  }, []);
}
