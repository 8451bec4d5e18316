import { useEffect, useRef } from "react";
import type { UIReport } from "../../backend";
import type { ListState } from "../sessions/useSessionList";
import type { InfoState } from "./useInfo";

/**
 * useReadyReport tells onReady, once, what the window first rendered:
 * the kernel's version and the number of sessions, or the error shown
 * instead, and whether it opened on the first-run setup (setup; it waits
 * while that is "unknown"). It waits for both loads to settle and for the browser to paint,
 * so the host can rely on the window showing what the report says.
 */
export function useReadyReport(
  onReady: ((r: UIReport) => void) | undefined,
  info: InfoState,
  sessions: ListState,
  setup: boolean | "unknown" = false,
): void {
  const sent = useRef(false);
  useEffect(() => {
    if (onReady === undefined || sent.current || info.status === "loading" || sessions.load === "loading" || setup === "unknown") {
      return;
    }
    sent.current = true;
    const report: UIReport = {
      version: info.status === "ready" ? info.info.version : "",
      sessions: sessions.load === "ready" ? sessions.live.sessions.length : 0,
      error: info.status === "error" ? info.message : sessions.load === "error" ? sessions.message : "",
      // What the open session's conversation shows: filled by the desktop
      // smoke run's report (backend/smoke.ts reportConversation).
      open: "",
      turns: 0,
      cards: 0,
      images: 0,
      setup,
    };
    afterPaint(() => onReady(report));
  }, [onReady, info, sessions, setup]);
}

function afterPaint(f: () => void): void {
  // The first frame callback runs before the paint, the second after it.
  requestAnimationFrame(() => requestAnimationFrame(f));
}
