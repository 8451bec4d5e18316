// Notifications for a person who looks elsewhere: an approval request that
// waits, a run that ended, a run that failed, in any session, each naming
// the session and what waits. Each kind can be turned off in the settings
// (notify.approval, notify.runEnded, notify.runFailed); the desktop checks
// them too (App.Notify).
import { useEffect, useRef } from "react";
import { createApi, type Session, type Transport } from "../../backend";
import { focused, notify, notifySetting, type NotifyKind } from "../../backend/attention";
import type { Event } from "../../backend/gen/event";
import { typed } from "../seq";
import { titleOf } from "./search";
import { summary } from "../approvals/useWaitingAlert";
import { title as actionTitle } from "../approvals/words";

/** Note is one notification to show. */
export interface Note {
  kind: NotifyKind;
  title: string;
  body: string;
  /** tag replaces an earlier notification of the same tag (an approval's or a run's ID). */
  tag: string;
}

/**
 * noteOf is the notification an event calls for, or null: an approval
 * request, or the end of a session's own run (a sub-agent's is part of
 * it) that completed or failed. A run the person cancelled, or Foya's
 * stop, calls for none. name is the session's title.
 */
export function noteOf(raw: Event, name: string): Note | null {
  const ev = typed(raw);
  if (ev === null) return null;
  switch (ev.type) {
    case "approval.request":
      return {
        kind: "approval",
        title: `Approval waiting in “${name}”`,
        body: `${actionTitle(ev.data.request.action)} ${summary(ev.data)}`,
        tag: ev.data.id,
      };
    case "run.end": {
      if ((ev.parentCallId ?? "") !== "") return null;
      const tag = ev.runId ?? "";
      if (ev.data.status === "completed") {
        return { kind: "run_ended", title: `Run ended in “${name}”`, body: "The agent finished its turn; the session waits for your next message.", tag };
      }
      if (ev.data.status === "failed") {
        const why = ev.data.error.length > 200 ? ev.data.error.slice(0, 199) + "…" : ev.data.error;
        return { kind: "run_failed", title: `Run failed in “${name}”`, body: `${why || "The run stopped with an error."} The session waits for you.`, tag };
      }
      return null;
    }
    default:
      return null;
  }
}

/**
 * useNotifications shows a notification for each event of any session
 * that calls for one (noteOf) while the window is not focused, unless its
 * kind is turned off in the settings, read at each notification so a
 * change applies at once. Events come live (Transport.subscribeAll): what
 * happened before the window opened is not notified. A notification that
 * could not be shown is told to attention's failure listeners.
 */
export function useNotifications(transport: Transport, sessions: readonly Session[]): void {
  const names = useRef(new Map<string, string>());
  useEffect(() => {
    names.current = new Map(sessions.map((s) => [s.id, titleOf(s)]));
  }, [sessions]);
  useEffect(() => {
    const api = createApi(transport);
    let live = true;
    const show = async (n: Note) => {
      let settings: Record<string, string> = {};
      try {
        settings = (await api.Settings()) ?? {};
      } catch {
        // Unread settings leave every kind on, as unset ones are.
      }
      if (!live || settings[notifySetting[n.kind]] === "false") return;
      await notify(n.kind, n.title, n.body, n.tag);
    };
    const stop = transport.subscribeAll((ev) => {
      if (focused()) return;
      const n = noteOf(ev as Event, names.current.get(ev.sessionId) ?? "a session");
      if (n !== null) void show(n);
    });
    return () => {
      live = false;
      stop();
    };
  }, [transport]);
}
