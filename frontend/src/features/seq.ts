// How every per-session reducer takes events: typed by their "type", applied
// in seq order, each seq once.
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
  [gen.TypeTodoUpdated]: true,
  [gen.TypeFileReverted]: true,
  [gen.TypeFileCaptured]: true,
  [gen.TypeFileChangedOutside]: true,
  [gen.TypeFileWatchDegraded]: true,
  [gen.TypeRunInterrupted]: true,
  [gen.TypeRunEnd]: true,
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
 * Sequenced is the part of each area's state that orders events: seq is the
 * last seq applied, ahead holds events that arrived before the one after seq
 * (sorted by seq, each seq once).
 */
export interface Sequenced {
  readonly seq: number;
  readonly ahead: readonly Event[];
}

/**
 * inSeqOrder applies ev to state with apply, in seq order:
 *   - seq <= state.seq, or a seq already waiting in ahead: a duplicate, state
 *     is returned unchanged (the same object, so nothing re-renders);
 *   - seq === state.seq + 1: applied, then every waiting event that now
 *     follows on is applied too;
 *   - a larger seq: kept in ahead until the gap before it is filled (the
 *     transport resumes after state.seq, so the gap's events come).
 * So any arrival order of the same set of events gives the same state, and a
 * stored history followed by live events gives the state live events give.
 */
export function inSeqOrder<S extends Sequenced>(state: S, ev: Event, apply: (s: S, ev: Event) => S): S {
  if (!Number.isSafeInteger(ev.seq) || ev.seq <= state.seq) return state;
  if (ev.seq > state.seq + 1) {
    if (state.ahead.some((a) => a.seq === ev.seq)) return state;
    const ahead = [...state.ahead, ev].sort((a, b) => a.seq - b.seq);
    return { ...state, ahead };
  }
  let s = { ...guarded(apply, state, ev), seq: ev.seq };
  if (s.ahead.length === 0) return s;
  const rest = [...s.ahead];
  while (rest.length > 0 && rest[0]!.seq === s.seq + 1) {
    const next = rest.shift()!;
    s = { ...guarded(apply, s, next), seq: next.seq };
  }
  return { ...s, ahead: rest };
}

// guarded applies ev, or skips it when its payload is not of its type's
// shape (a field of the wrong type) and apply throws on it: one bad event
// changes nothing and stalls nothing, like an unknown type.
function guarded<S>(apply: (s: S, ev: Event) => S, s: S, ev: Event): S {
  try {
    return apply(s, ev);
  } catch {
    return s;
  }
}

/** initialSeq is the ordering state of an area that has seen nothing. */
export const initialSeq: Sequenced = { seq: 0, ahead: [] };
