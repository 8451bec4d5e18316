import { useCallback, useEffect, useReducer, useRef } from "react";
import { createApi, toApiError, type Session, type Transport } from "../../backend";
import type { Event } from "../../backend/gen/event";
import { applySessions, initialSessions, withSessions, type SessionsState } from "./reducer";

/** ListState is the sidebar's list: its load and the live state (reducer.ts). */
export interface ListState {
  load: "loading" | "ready" | "error";
  /** message says why the list could not load (load "error"). */
  message: string;
  live: SessionsState;
}

type Action =
  | { type: "loading" }
  | { type: "listed"; sessions: Session[] }
  | { type: "failed"; message: string }
  | { type: "events"; events: Event[] }
  | { type: "upsert"; session: Session }
  | { type: "remove"; id: string };

function reduce(s: ListState, a: Action): ListState {
  switch (a.type) {
    case "loading":
      return { ...s, load: s.load === "ready" ? "ready" : "loading" };
    case "listed":
      return { load: "ready", message: "", live: withSessions(s.live, a.sessions) };
    case "failed":
      return { ...s, load: "error", message: a.message };
    case "events": {
      let live = s.live;
      for (const ev of a.events) live = applySessions(live, ev);
      return live === s.live ? s : { ...s, live };
    }
    case "upsert": {
      const rest = s.live.sessions.filter((x) => x.id !== a.session.id);
      const i = s.live.sessions.findIndex((x) => x.id === a.session.id);
      // A new session goes first (newest first); a changed one stays in place.
      const sessions = i < 0 ? [a.session, ...rest] : s.live.sessions.map((x) => (x.id === a.session.id ? a.session : x));
      return { ...s, live: withSessions(s.live, sessions) };
    }
    case "remove":
      return { ...s, live: withSessions(s.live, s.live.sessions.filter((x) => x.id !== a.id)) };
    default: {
      const unreachable: never = a;
      return unreachable;
    }
  }
}

const initial: ListState = { load: "loading", message: "", live: initialSessions };

export interface SessionList {
  state: ListState;
  /** reload lists the sessions again (after an error, or a lost stream). */
  reload: () => void;
  /** upsert puts a session the UI just created or changed into the list. */
  upsert: (s: Session) => void;
  /** remove takes a deleted session out of the list. */
  remove: (id: string) => void;
}

/**
 * useSessionList lists the stored sessions and keeps their status live from
 * every session's events (Transport.subscribeAll). It subscribes before it
 * lists, so no event between the two is lost; a stream that came back
 * after a drop lists again, since events in between are not replayed, and
 * so does an event of a session the list does not have yet.
 */
export function useSessionList(transport: Transport): SessionList {
  const [state, dispatch] = useReducer(reduce, initial);
  // The listed IDs, for the event handler: an event of a session not listed
  // (one made by foya exec or another window) lists again.
  const listed = useRef<{ ready: boolean; ids: Set<string> }>({ ready: false, ids: new Set() });
  useEffect(() => {
    listed.current = { ready: state.load === "ready", ids: new Set(state.live.sessions.map((s) => s.id)) };
  }, [state]);

  const reload = useCallback(() => {
    dispatch({ type: "loading" });
    createApi(transport)
      .Sessions()
      .then(
        // The API sends [] for none; null is accepted all the same.
        (sessions) => dispatch({ type: "listed", sessions: sessions ?? [] }),
        (e: unknown) => dispatch({ type: "failed", message: toApiError(e).message }),
      );
  }, [transport]);

  useEffect(() => {
    // Events of one task go in as one batch, so a burst of deltas is one render.
    let batch: Event[] = [];
    let scheduled = false;
    let live = true;
    const flush = () => {
      scheduled = false;
      if (!live) return;
      const events = batch;
      batch = [];
      dispatch({ type: "events", events });
      const l = listed.current;
      if (l.ready && events.some((ev) => !l.ids.has(ev.sessionId))) {
        l.ready = false; // once per listing
        reload();
      }
    };
    const stop = transport.subscribeAll(
      (ev) => {
        batch.push(ev as Event);
        if (!scheduled) {
          scheduled = true;
          queueMicrotask(flush);
        }
      },
      reload,
    );
    reload();
    return () => {
      live = false;
      stop();
    };
  }, [transport, reload]);

  const upsert = useCallback((session: Session) => dispatch({ type: "upsert", session }), []);
  const remove = useCallback((id: string) => dispatch({ type: "remove", id }), []);
  return { state, reload, upsert, remove };
}
