// The alert for requests that wait while the person looks elsewhere: a
// notification per new request when the window is not focused, and the
// count in the window's title while any wait.
import { useEffect, useRef } from "react";
import { focused, notify, setWaitingTitle } from "../../backend/attention";
import type { ApprovalRequestData } from "../../backend/gen/event";
import { isShell, title } from "./words";

/** summary is one line saying what a request is about, for a notification. */
export function summary(r: ApprovalRequestData): string {
  const a = r.request.action;
  let what = r.request.why;
  if (isShell(a.kind) && a.command) what = a.command;
  else if (a.kind === "fetch" && a.host) what = a.host;
  else if (a.kind === "fetch_private" && a.host) what = `${a.host} (${(a.addresses ?? []).join(", ")})`;
  else if (a.paths !== undefined && a.paths.length > 0) what = a.paths.join(", ");
  return what.length > 200 ? what.slice(0, 199) + "…" : what;
}

/**
 * useWaitingAlert alerts for waiting, the requests shown in the queue:
 * each request is notified once, when it first appears and the window is
 * not focused. A notification that could not be shown is reported through
 * onError (the title count still shows).
 */
export function useWaitingAlert(waiting: ApprovalRequestData[], onError: (msg: string) => void): void {
  const seen = useRef(new Set<string>());
  useEffect(() => {
    for (const r of waiting) {
      if (seen.current.has(r.id)) continue;
      seen.current.add(r.id);
      if (focused()) continue;
      const more = waiting.length > 1 ? ` (${waiting.length} waiting)` : "";
      void notify(`Foya: ${title(r.request.action)}${more}`, summary(r), r.id).then((err) => {
        if (err !== "") onError(err);
      });
    }
  }, [waiting, onError]);
  useEffect(() => {
    setWaitingTitle(waiting.length);
  }, [waiting.length]);
  useEffect(() => () => setWaitingTitle(0), []);
}
