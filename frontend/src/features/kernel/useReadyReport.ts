import { useEffect, useRef } from "react";
import type { Backend } from "../../backend";
import type { SessionsState } from "../sessions/useSessions";
import type { InfoState } from "./useInfo";

/**
 * useReadyReport tells the backend, once, what the window first rendered:
 * the kernel's version and the number of sessions, or the error shown
 * instead. It waits for both loads to settle and for the browser to paint,
 * so the host can rely on the window showing what the report says.
 */
export function useReadyReport(backend: Backend, info: InfoState, sessions: SessionsState): void {
  const sent = useRef(false);
  useEffect(() => {
    if (sent.current || info.status === "loading" || sessions.status === "loading") {
      return;
    }
    sent.current = true;
    const report = {
      version: info.status === "ready" ? info.info.version : "",
      sessions: sessions.status === "ready" ? sessions.sessions.length : 0,
      error: info.status === "error" ? info.message : sessions.status === "error" ? sessions.message : "",
    };
    afterPaint(() => {
      backend.uiReady(report).catch((e: unknown) => {
        console.error("foya: report ui ready:", e);
      });
    });
  }, [backend, info, sessions]);
}

function afterPaint(f: () => void): void {
  // The first frame callback runs before the paint, the second after it.
  requestAnimationFrame(() => requestAnimationFrame(f));
}
