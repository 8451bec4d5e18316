// The alert for requests that wait while the person looks elsewhere: the
// count in the window's title while any wait (the notifications are the
// shell's, features/sessions/useNotifications.ts).
import { useEffect } from "react";
import { onNotifyFailure, setWaitingTitle } from "../../backend/attention";
import type { ApprovalRequestData } from "../../backend/gen/event";
import { isShell } from "./words";

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
 * useWaitingAlert keeps the count of waiting, the requests shown in the
 * queue, in the window's title, and reports through onError each
 * notification that could not be shown. The notifications themselves
 * (one per new request while the window is not focused, naming the
 * session) come from the shell's useNotifications, for every session.
 */
export function useWaitingAlert(waiting: ApprovalRequestData[], onError: (msg: string) => void): void {
  useEffect(() => onNotifyFailure(onError), [onError]);
  useEffect(() => {
    setWaitingTitle(waiting.length);
  }, [waiting.length]);
  useEffect(() => () => setWaitingTitle(0), []);
}
