// One zustand store per open session, around the pure reducers of each area.
// Events go in by batches (apply), in any order, duplicates too; the store is
// the one place that orders them (order, ../seq.ts), and each area's reducer
// takes every event once, in seq order. An area an event does not touch
// keeps its objects, so views that select from it do not render again.
import { createStore, type StoreApi } from "zustand/vanilla";
import { applyApprovals, initialApprovals, type ApprovalsState } from "../approvals/reducer";
import { applyChanges, initialChanges, type ChangesState } from "../changes/reducer";
import { applyConversation, initialConversation, type ConversationState } from "../conversation/reducer";
import { applyTasks, initialTasks, type TasksState } from "../tasks/reducer";
import { applyIsolation, initialIsolation, type IsolationState } from "../isolation/reducer";
import type { Event } from "../../backend/gen/event";
import { guarded, inSeqOrder, initialOrder, type SeqOrder } from "../seq";
import { inBatch, type Draft } from "../draft";

export interface SessionState {
  sessionId: string;
  conversation: ConversationState;
  approvals: ApprovalsState;
  changes: ChangesState;
  tasks: TasksState;
  /** isolation is an isolated session's copy: its setup, last apply, discard. */
  isolation: IsolationState;
  /** order is where the events are put in seq order: order.seq is the last applied. */
  order: SeqOrder;
  /** apply takes events of this session (others are ignored), in any order, duplicates too. */
  apply(events: readonly Event[]): void;
}

export type SessionStore = StoreApi<SessionState>;

export interface SessionStoreOptions {
  /** The session's approval mode as listed, until an event says otherwise. */
  mode?: string;
}

/** Areas are the parts of a session's state the events fold into, with their order. */
type Areas = Pick<SessionState, "conversation" | "approvals" | "changes" | "tasks" | "isolation" | "order">;

function areasOf(s: SessionState): Areas {
  return { conversation: s.conversation, approvals: s.approvals, changes: s.changes, tasks: s.tasks, isolation: s.isolation, order: s.order };
}

function sameAreas(a: Areas, b: Areas): boolean {
  return a.order === b.order && a.conversation === b.conversation && a.approvals === b.approvals && a.changes === b.changes && a.tasks === b.tasks && a.isolation === b.isolation;
}

// fold applies events[from:to] of session sessionId to a, in the batch
// inBatch opened (so each record is copied once): a.order lets each event
// through once, in seq order, and each area's reducer applies it (one that
// throws on a malformed payload skips it).
function fold(a: Areas, sessionId: string, events: readonly Event[], from = 0, to = events.length): Areas {
  let { conversation, approvals, changes, tasks, isolation, order } = a;
  const next = (ev: Event) => {
    conversation = guarded(applyConversation, conversation, ev);
    approvals = guarded(applyApprovals, approvals, ev);
    changes = guarded(applyChanges, changes, ev);
    tasks = guarded(applyTasks, tasks, ev);
    isolation = guarded(applyIsolation, isolation, ev);
  };
  for (let i = from; i < to; i++) {
    const ev = events[i]!;
    if (ev.sessionId !== sessionId) continue;
    order = inSeqOrder(order, ev, next);
  }
  return { conversation, approvals, changes, tasks, isolation, order };
}

/** createSessionStore makes the store of one session, empty: feed it the session's events from seq 1. */
export function createSessionStore(sessionId: string, opts: SessionStoreOptions = {}): SessionStore {
  return createStore<SessionState>()((set, get) => ({
    sessionId,
    conversation: initialConversation,
    approvals: initialApprovals(opts.mode ?? ""),
    changes: initialChanges,
    tasks: initialTasks,
    isolation: initialIsolation,
    order: initialOrder,
    apply(events) {
      const before = areasOf(get());
      // One batch: the reducers copy each record once, not once per event (../draft.ts).
      const after = inBatch(() => fold(before, sessionId, events));
      if (!sameAreas(before, after)) set(after);
    },
  }));
}

/** lastSeq is the seq to resume after: every event up to it has been applied. */
export function lastSeq(s: SessionState): number {
  return s.order.seq;
}

/**
 * Subscribe is the transport's subscribe: stored events after afterSeq,
 * then live ones, each seq once, in order (the store orders them again, so
 * a transport that repeats or reorders at a seam loses nothing).
 */
export type Subscribe = (sessionId: string, afterSeq: number, onEvent: (ev: Event) => void) => () => void;

/** sliceMs is about how long one task of a sliced fold works before it lets the page run (a long task is over 50 ms). */
export const sliceMs = 8;

// How many events a slice folds between looks at the clock.
const sliceEvents = 256;

// nextTask runs f in a task of its own, soon: a message to a channel (a
// timer nested this deep waits at least 4 ms in a browser).
const nextTask: (f: () => void) => void =
  typeof MessageChannel === "function"
    ? (f) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          ch.port1.close();
          f();
        };
        ch.port2.postMessage(null);
      }
    : (f) => setTimeout(f, 0);

/**
 * applyInSlices applies events to store as apply does, in slices of about
 * sliceMs of work, each in a task of its own, so a long history does not
 * block the page (no long task); a batch that folds within one slice is
 * applied at once. The state is published once, at the end: the view
 * renders the whole history once, not each slice. An area something else
 * changed meanwhile (apply) is folded again from its new state, so
 * nothing is lost (the order lets each seq through once).
 * done runs after the publish; nothing is published once cancelled() is
 * true.
 */
export function applyInSlices(
  store: SessionStore,
  events: readonly Event[],
  cancelled: () => boolean,
  done: () => void,
  budgetMs = sliceMs,
): void {
  const base = store.getState();
  const { sessionId } = base;
  const draft: Draft = new WeakSet();
  let folded = areasOf(base);
  let at = 0;
  const slice = () => {
    if (cancelled()) return;
    const t0 = performance.now();
    inBatch(() => {
      while (at < events.length) {
        const to = Math.min(events.length, at + sliceEvents);
        folded = fold(folded, sessionId, events, at, to);
        at = to;
        if (performance.now() - t0 >= budgetMs) break;
      }
    }, draft);
    if (at < events.length) {
      nextTask(slice);
      return;
    }
    const now = store.getState();
    const start = areasOf(base);
    const current = areasOf(now);
    // Events were applied meanwhile (only apply changes the areas): fold
    // again from what is there now; the order lets through only the
    // events it has not seen.
    const out: Areas = sameAreas(start, current) ? folded : inBatch(() => fold(current, sessionId, events));
    if (!sameAreas(current, out)) store.setState(out);
    done();
  };
  slice();
}

/**
 * follow feeds store from subscribe, from the last seq it has. Events that
 * arrive together (a replay, a batch of deltas) are applied as one batch at
 * the end of the current task, so a burst costs one store update, not one per
 * event; a long burst (a session's stored history) is folded in slices
 * (applyInSlices) and events arriving meanwhile wait for the next batch. It
 * returns the function that stops following. opts.sliceMs sets the slices'
 * length (tests make it 0: a slice per 256 events).
 */
export function follow(store: SessionStore, subscribe: Subscribe, opts: { sliceMs?: number } = {}): () => void {
  let queue: Event[] = [];
  let stopped = false;
  let folding = false;
  const flush = () => {
    const batch = queue;
    queue = [];
    if (stopped || batch.length === 0) return;
    folding = true;
    applyInSlices(
      store,
      batch,
      () => stopped,
      () => {
        folding = false;
        if (queue.length > 0) flush();
      },
      opts.sliceMs,
    );
  };
  const state = store.getState();
  const unsubscribe = subscribe(state.sessionId, lastSeq(state), (ev) => {
    if (queue.length === 0 && !folding) queueMicrotask(flush);
    queue.push(ev);
  });
  return () => {
    stopped = true;
    queue = [];
    unsubscribe();
  };
}
