// One zustand store per open session, around the pure reducers of each area.
// Events go in by batches (apply); each area's reducer takes every event, in
// seq order (../seq.ts), and an area an event does not touch keeps its
// objects, so views that select from it do not render again.
import { createStore, type StoreApi } from "zustand/vanilla";
import { applyApprovals, initialApprovals, type ApprovalsState } from "../approvals/reducer";
import { applyBackground, initialBackground, withCommands, type BackgroundState } from "../background/reducer";
import { applyChanges, initialChanges, type ChangesState } from "../changes/reducer";
import { applyConversation, initialConversation, type ConversationState } from "../conversation/reducer";
import type { Event } from "../../backend/gen/event";
import { inBatch } from "../draft";
import type { BackgroundCommand } from "../../backend/gen/kernel";

export interface SessionState {
  sessionId: string;
  conversation: ConversationState;
  approvals: ApprovalsState;
  changes: ChangesState;
  background: BackgroundState;
  /** apply takes events of this session (others are ignored), in any order, duplicates too. */
  apply(events: readonly Event[]): void;
  /** setCommands takes the kernel's background-command list, listed after the events applied so far. */
  setCommands(commands: BackgroundCommand[]): void;
}

export type SessionStore = StoreApi<SessionState>;

export interface SessionStoreOptions {
  /** The session's approval mode as listed, until an event says otherwise. */
  mode?: string;
}

/** createSessionStore makes the store of one session, empty: feed it the session's events from seq 1. */
export function createSessionStore(sessionId: string, opts: SessionStoreOptions = {}): SessionStore {
  return createStore<SessionState>()((set, get) => ({
    sessionId,
    conversation: initialConversation,
    approvals: initialApprovals(opts.mode ?? ""),
    changes: initialChanges,
    background: initialBackground,
    apply(events) {
      const s = get();
      let { conversation, approvals, changes, background } = s;
      // One batch: the reducers copy each record once, not once per event (../draft.ts).
      inBatch(() => {
        for (const ev of events) {
          if (ev.sessionId !== sessionId) continue;
          conversation = applyConversation(conversation, ev);
          approvals = applyApprovals(approvals, ev);
          changes = applyChanges(changes, ev);
          background = applyBackground(background, ev);
        }
      });
      if (
        conversation === s.conversation &&
        approvals === s.approvals &&
        changes === s.changes &&
        background === s.background
      ) {
        return;
      }
      set({ conversation, approvals, changes, background });
    },
    setCommands(commands) {
      set({ background: withCommands(get().background, commands) });
    },
  }));
}

/** lastSeq is the seq to resume after: every event up to it has been applied. */
export function lastSeq(s: SessionState): number {
  return s.conversation.seq;
}

/**
 * Subscribe is the transport's subscribe (CONTRACT.md, front end): stored
 * events after afterSeq, then live ones, each seq once, in order.
 */
export type Subscribe = (sessionId: string, afterSeq: number, onEvent: (ev: Event) => void) => () => void;

/**
 * follow feeds store from subscribe, from the last seq it has. Events that
 * arrive together (a replay, a batch of deltas) are applied as one batch at
 * the end of the current task, so a burst costs one store update, not one per
 * event. It returns the function that stops following.
 */
export function follow(store: SessionStore, subscribe: Subscribe): () => void {
  let queue: Event[] = [];
  let stopped = false;
  const flush = () => {
    const batch = queue;
    queue = [];
    if (!stopped && batch.length > 0) store.getState().apply(batch);
  };
  const state = store.getState();
  const unsubscribe = subscribe(state.sessionId, lastSeq(state), (ev) => {
    if (queue.length === 0) queueMicrotask(flush);
    queue.push(ev);
  });
  return () => {
    stopped = true;
    queue = [];
    unsubscribe();
  };
}
