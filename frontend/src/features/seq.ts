// How a session's events reach its reducers: put in seq order once, each seq
// once (SeqOrder, kept by the session store), then typed by their "type".
import * as gen from "../backend/gen/event";
import type { Event, EventType, TypedEvent } from "../backend/gen/event";

export type { EventType, TypedEvent };

// Every event type once (backend/event's Type* constants): a type missing
// here, or one too many, does not compile.
const typeSet: { [K in EventType]: true } = {
  [gen.TypeRunStart]: true,
  [gen.TypeStepStart]: true,
  [gen.TypeTextDelta]: true,
  [gen.TypeReasoningDelta]: true,
  [gen.TypeToolBegin]: true,
  [gen.TypeToolUpdate]: true,
  [gen.TypeToolEnd]: true,
  [gen.TypeToolsActivated]: true,
  [gen.TypeStepEnd]: true,
  [gen.TypeApprovalRequest]: true,
  [gen.TypeApprovalAnswer]: true,
  [gen.TypeSessionMode]: true,
  [gen.TypeSessionModel]: true,
  [gen.TypeSessionTitle]: true,
  [gen.TypeRunSteer]: true,
  [gen.TypeTodoUpdated]: true,
  [gen.TypeFileReverted]: true,
  [gen.TypeFileCaptured]: true,
  [gen.TypeFileChangedOutside]: true,
  [gen.TypeFileWatchDegraded]: true,
  [gen.TypeContextCompacted]: true,
  [gen.TypeContextUncompacted]: true,
  [gen.TypeContextCompactFailed]: true,
  [gen.TypeChangeReviewed]: true,
  [gen.TypeRunInterrupted]: true,
  [gen.TypeRunEnd]: true,
  [gen.TypeHookRun]: true,
  [gen.TypeIsolationSetup]: true,
  [gen.TypeIsolationApplied]: true,
  [gen.TypeIsolationDiscarded]: true,
};

/** EventTypes lists every event type the reducers know. */
export const EventTypes = Object.keys(typeSet) as EventType[];

const known = new Set<string>(EventTypes);

/**
 * typed returns ev with its payload typed by its type, or null for a type
 * this front end does not know (a newer backend's) or a payload that is not
 * a JSON object. Such events still take their place in the seq order: the
 * reducers skip them, they do not stall on them.
 */
export function typed(ev: Event): TypedEvent | null {
  if (!known.has(ev.type)) return null;
  const d = ev.data;
  if (typeof d !== "object" || d === null || Array.isArray(d)) return null;
  return ev as TypedEvent;
}

/**
 * SeqOrder is where a session's events are put in order, once, for every
 * area of its store (../session/store.ts): seq is the last seq let through,
 * ahead holds events that arrived before the one after seq (sorted by seq,
 * each seq once). The areas' reducers then see each event once, in seq
 * order, and order nothing themselves.
 */
export interface SeqOrder {
  readonly seq: number;
  readonly ahead: readonly Event[];
}

/** initialOrder is the order of a session that has seen nothing. */
export const initialOrder: SeqOrder = { seq: 0, ahead: [] };

/**
 * inSeqOrder takes ev into order and calls next with each event it lets
 * through, in seq order; it returns the new order:
 *   - seq <= order.seq, or a seq already waiting in ahead: a duplicate,
 *     nothing is let through and order is returned unchanged (the same
 *     object);
 *   - seq === order.seq + 1: let through, then every waiting event that now
 *     follows on;
 *   - a larger seq: kept in ahead until the gap before it is filled (the
 *     transport resumes after order.seq, so the gap's events come).
 * So any arrival order of the same set of events lets them through in the
 * same order, and a stored history followed by live events (overlapping at
 * the seam) lets each through once.
 */
export function inSeqOrder(order: SeqOrder, ev: Event, next: (ev: Event) => void): SeqOrder {
  if (!Number.isSafeInteger(ev.seq) || ev.seq <= order.seq) return order;
  if (ev.seq > order.seq + 1) {
    if (order.ahead.some((a) => a.seq === ev.seq)) return order;
    const ahead = [...order.ahead, ev].sort((a, b) => a.seq - b.seq);
    return { ...order, ahead };
  }
  next(ev);
  let seq = ev.seq;
  if (order.ahead.length === 0) return { seq, ahead: order.ahead };
  const rest = [...order.ahead];
  while (rest.length > 0 && rest[0]!.seq === seq + 1) {
    const e = rest.shift()!;
    next(e);
    seq = e.seq;
  }
  return { seq, ahead: rest };
}

/**
 * guarded applies ev with apply, or skips it when its payload is not of its
 * type's shape (a field of the wrong type) and apply throws on it: one bad
 * event changes nothing and stalls nothing, like an unknown type.
 */
export function guarded<S>(apply: (s: S, ev: Event) => S, s: S, ev: Event): S {
  try {
    return apply(s, ev);
  } catch {
    return s;
  }
}
