// Changes: every file change of the session grouped by turn, which of them
// were reverted (and by which change), and the files changed outside Foya.
// A pure reducer over the session's events.
import type { Event, FileChange } from "../../backend/gen/event";
import { withAt, withItem, withKey, withoutKey } from "../draft";
import { typed } from "../seq";

/**
 * Change is one file change. Changes from tool.end carry the whole record;
 * a revert announced by file.reverted carries only what the event says
 * (id, path, op, revertOf): full is false, and the view reads the rest with
 * the kernel's change list when it needs the diff.
 */
export interface Change {
  id: string;
  runId: string;
  callId: string;
  path: string;
  op: string;
  /** The change this one reverted; "" for a change by a tool. */
  revertOf: string;
  /** The seq of the event that announced it. */
  seq: number;
  time: string;
  record: FileChange | null;
  full: boolean;
  /**
   * How the call that made it ended, from its tool.end ("done", "error",
   * "cancelled", "interrupted"); "" for a background command's change
   * (file.captured) and a revert.
   */
  callStatus: string;
}

/** Group is the changes of one turn (a run, with its sub-agents' runs), or of reverts made outside a run (runId ""). */
export interface Group {
  runId: string;
  /** Change IDs in the order they happened. */
  changes: string[];
}

/** OutsideMark says a file the session touched was changed by something other than Foya. */
export interface OutsideMark {
  path: string;
  exists: boolean;
  seq: number;
  time: string;
}

export interface ChangesState {
  byId: Record<string, Change>;
  /** Groups oldest first (the view shows them newest first). */
  groups: Group[];
  /** revertedBy[changeId] is the ID of the change that reverted it. */
  revertedBy: Record<string, string>;
  /** By absolute path; cleared when Foya changes the path again. */
  outside: Record<string, OutsideMark>;
  /** Why the workspace is polled instead of watched; "" while it is watched. */
  watchDegraded: string;
  /** turnOf[runId] is the turn a sub-agent's run belongs to: its changes are grouped, and reverted, with that turn's. */
  turnOf: Record<string, string>;
  /** reviewed[changeId] is true while a person has the change marked as reviewed (change.reviewed). */
  reviewed: Record<string, true>;
  /** The session's latest turn (its run ID, not a sub-agent's); "" before the first. */
  lastTurn: string;
}

export const initialChanges: ChangesState = {
  byId: {},
  groups: [],
  revertedBy: {},
  outside: {},
  watchDegraded: "",
  turnOf: {},
  reviewed: {},
  lastTurn: "",
};

/**
 * applyChanges applies one event of the session, in seq order: the session store
 * orders them (../seq.ts), each seq once.
 */
export function applyChanges(s: ChangesState, raw: Event): ChangesState {
  const ev = typed(raw);
  if (ev === null) return s;
  switch (ev.type) {
    case "tool.end": {
      // The kernel sends the changes it stored, whatever the call's end: a
      // cancelled or failed command's changes happened, and can be reverted.
      const fcs = ev.data.fileChanges ?? [];
      // Every change is read before any is added (../draft.ts).
      const read = fcs.map(
        (fc): Change => ({
          id: fc.id,
          runId: fc.runId ?? ev.runId ?? "",
          callId: fc.callId ?? ev.data.id,
          path: fc.path,
          op: fc.op,
          revertOf: fc.revertOf ?? "",
          seq: ev.seq,
          time: ev.time,
          record: fc,
          full: true,
          callStatus: ev.data.status,
        }),
      );
      let next = s;
      for (const c of read) next = add(next, c);
      return next;
    }
    case "file.captured": {
      // A background command's changes, found when it ended: they belong to
      // the turn that started it, so reverting the turn reverts them too.
      const d = ev.data;
      const read = (d.fileChanges ?? []).map(
        (fc): Change => ({
          id: fc.id,
          runId: fc.runId ?? ev.runId ?? "",
          callId: fc.callId ?? d.callId,
          path: fc.path,
          op: fc.op,
          revertOf: fc.revertOf ?? "",
          seq: ev.seq,
          time: ev.time,
          record: fc,
          full: true,
          callStatus: "",
        }),
      );
      let next = s;
      for (const c of read) next = add(next, c);
      return next;
    }
    case "file.reverted": {
      const d = ev.data;
      const next = add(s, {
        id: d.changeId,
        runId: ev.runId ?? "",
        callId: "",
        path: d.path,
        op: d.op,
        revertOf: d.revertOf,
        seq: ev.seq,
        time: ev.time,
        record: null,
        full: false,
        callStatus: "",
      });
      if (next === s || d.revertOf === "") return next;
      return { ...next, revertedBy: withKey(next.revertedBy, d.revertOf, d.changeId) };
    }
    case "file.changed_outside": {
      const d = ev.data;
      return { ...s, outside: withKey(s.outside, d.path, { path: d.path, exists: d.exists, seq: ev.seq, time: ev.time }) };
    }
    case "file.watch_degraded":
      return { ...s, watchDegraded: ev.data.reason || "the workspace is polled instead of watched" };
    case "change.reviewed": {
      // Read whole before anything is written (../draft.ts).
      const ids = [...ev.data.changeIds];
      const on = ev.data.reviewed === true;
      const todo = ids.filter((id) => (s.reviewed[id] === true) !== on);
      if (todo.length === 0) return s;
      let reviewed = s.reviewed;
      for (const id of todo) reviewed = on ? withKey(reviewed, id, true as const) : withoutKey(reviewed, id);
      return { ...s, reviewed };
    }
    case "run.start": {
      // A sub-agent's run: its changes are the turn's that started it.
      const parent = ev.data.parentRunId ?? "";
      if (parent === "" && ev.runId !== undefined) return { ...s, lastTurn: ev.runId };
      if (parent === "" || ev.runId === undefined) return s;
      return { ...s, turnOf: withKey(s.turnOf, ev.runId, s.turnOf[parent] ?? parent) };
    }
    case "step.start":
    case "text.delta":
    case "reasoning.delta":
    case "tool.begin":
    case "tool.update":
    case "tools.activated":
    case "step.end":
    case "approval.request":
    case "approval.answer":
    case "session.mode":
    case "session.model":
    case "session.title":
    case "run.steer":
    case "todo.updated":
    case "hook.run":
    case "run.interrupted":
    case "run.end":
    case "context.compacted":
    case "context.uncompacted":
    case "isolation.setup":
    case "isolation.applied":
    case "isolation.discarded":
    case "context.compact_failed":
      return s;
    default:
      return unreachable(ev);
  }
}

// add records c in its turn's group (a new group when the turn has none
// yet) and clears an outside mark of its path: Foya changed it since.
function add(s: ChangesState, c: Change): ChangesState {
  if (c.id === "" || s.byId[c.id]) return s;
  const turn = s.turnOf[c.runId] ?? c.runId;
  const i = s.groups.findIndex((g) => g.runId === turn);
  const groups =
    i < 0
      ? withItem(s.groups, { runId: turn, changes: [c.id] })
      : withAt(s.groups, i, { ...s.groups[i]!, changes: withItem(s.groups[i]!.changes, c.id) });
  const outside = s.outside[c.path] ? withoutKey(s.outside, c.path) : s.outside;
  return { ...s, byId: withKey(s.byId, c.id, c), groups, outside };
}

function unreachable(ev: never): never {
  throw new Error(`unhandled event ${JSON.stringify(ev)}`);
}

/** Counts sums a group's changes: how many, lines added and removed (of the changes whose record is known). */
export interface Counts {
  changes: number;
  added: number;
  removed: number;
}

/** countsOf returns the counts of group g. */
export function countsOf(s: ChangesState, g: Group): Counts {
  const out: Counts = { changes: 0, added: 0, removed: 0 };
  for (const id of g.changes) {
    const c = s.byId[id];
    if (!c) continue;
    out.changes++;
    out.added += c.record?.added ?? 0;
    out.removed += c.record?.removed ?? 0;
  }
  return out;
}
