// The session list with each session's live status: the kernel's list
// (withSessions) kept current by every session's live events (the
// GET /api/events stream, or the desktop's "foya:events"). A pure reducer.
//
// Seq here is per session, and the stream starts at connection time with no
// replay, so the first seq of a session is not known: an event whose seq is
// not above the last one applied for its session is a duplicate (or late) and
// is ignored; a gap is accepted (a status summary does not need every event;
// listing again brings the counts back). The per-session stores, which must
// see every event, buffer instead (see ../seq.ts).
import type { Session } from "../../backend";
import type { Event } from "../../backend/gen/event";
import { typed } from "../seq";

/** Status is what a session is doing, live. */
export interface Status {
  /** A run is going; runId is its ID. */
  running: boolean;
  runId: string;
  /** How the last run that ended here ended; "" when none ended since listing. */
  lastEnd: string;
  /** Approval requests waiting, by ID. */
  waiting: string[];
  /** An isolated session's setup command runs (isolation.setup): runs wait for its end. */
  setup?: boolean;
}

export interface SessionsState {
  /** The kernel's list, newest first, with the events' changes applied. */
  sessions: Session[];
  status: Record<string, Status>;
  /** lastSeq[sessionId] is the last seq applied for that session. */
  lastSeq: Record<string, number>;
}

export const initialSessions: SessionsState = { sessions: [], status: {}, lastSeq: {} };

const idle: Status = { running: false, runId: "", lastEnd: "", waiting: [] };

/**
 * withSessions sets the kernel's list. Status learnt from events is kept for
 * sessions still listed; a deleted session's goes with it.
 */
export function withSessions(s: SessionsState, sessions: Session[]): SessionsState {
  const ids = new Set(sessions.map((x) => x.id));
  const status: Record<string, Status> = {};
  for (const [id, st] of Object.entries(s.status)) if (ids.has(id)) status[id] = st;
  return { ...s, sessions, status };
}

/** statusOf returns a session's live status. */
export function statusOf(s: SessionsState, id: string): Status {
  return s.status[id] ?? idle;
}

/** applySessions applies one event of any session. */
export function applySessions(s: SessionsState, raw: Event): SessionsState {
  const last = s.lastSeq[raw.sessionId] ?? 0;
  if (!Number.isSafeInteger(raw.seq) || raw.seq <= last) return s;
  const next = { ...s, lastSeq: { ...s.lastSeq, [raw.sessionId]: raw.seq } };
  const ev = typed(raw);
  if (ev === null) return next;
  const id = ev.sessionId;
  const st = statusOf(next, id);
  // A sub-agent's run goes on inside the session's run:
  // its start and end say nothing of whether the session is running.
  if ((ev.type === "run.start" || ev.type === "run.end") && (ev.parentCallId ?? "") !== "") return next;
  switch (ev.type) {
    case "run.start":
      return touch(withStatus(next, id, { ...st, running: true, runId: ev.runId ?? "" }), id, ev.time, (x) => ({
        ...x,
        runs: x.runs + 1,
        approvalMode: ev.data.approvalMode || x.approvalMode,
        // A first run names a session the user named none for.
        title: ev.data.title !== undefined && ev.data.title !== "" ? ev.data.title : x.title,
      }));
    case "run.end":
      return touch(withStatus(next, id, { ...st, running: false, runId: "", lastEnd: ev.data.status, waiting: [] }), id, ev.time);
    case "approval.request":
      return st.waiting.includes(ev.data.id) ? next : withStatus(next, id, { ...st, waiting: [...st.waiting, ev.data.id] });
    case "approval.answer":
      return withStatus(next, id, { ...st, waiting: st.waiting.filter((w) => w !== ev.data.id) });
    case "session.mode":
      return touch(next, id, ev.time, (x) => ({ ...x, approvalMode: ev.data.to }));
    case "session.model":
      return touch(next, id, ev.time, (x) => ({ ...x, provider: ev.data.provider, model: ev.data.model }));
    case "session.title":
      // The model's title after a first run (issue 25). The kernel stores it
      // only while the user has not renamed the session; a rename this
      // window made since is kept all the same.
      return touch(next, id, ev.time, (x) => (x.titleByUser ? x : { ...x, title: ev.data.title }));
    case "tool.end":
    case "file.captured":
      // New changes wait for review (reverts are a person's own).
      return withToReview(next, id, (n) => n + (ev.data.fileChanges ?? []).filter((fc) => (fc.revertOf ?? "") === "").length);
    case "change.reviewed":
      return withToReview(next, id, () => ev.data.toReview);
    case "todo.updated":
    case "step.start":
    case "text.delta":
    case "reasoning.delta":
    case "tool.begin":
    case "tool.update":
    case "tools.activated":
    case "step.end":
    case "file.reverted":
    case "file.changed_outside":
    case "file.watch_degraded":
    case "hook.run":
    case "run.interrupted":
    case "run.steer":
    case "context.compacted":
    case "context.uncompacted":
    case "isolation.applied":
    case "context.compact_failed":
      return next;
    case "isolation.discarded":
      // The copy is gone: the session stays listed, marked so, and cannot run again.
      return withIsolation(next, id, ev.time);
    case "isolation.setup":
      if (ev.data.state === "output") return next;
      if (ev.data.state === "running") return withStatus(next, id, { ...st, setup: true });
      if (st.setup === undefined) return next;
      return withStatus(next, id, { running: st.running, runId: st.runId, lastEnd: st.lastEnd, waiting: st.waiting });
    default:
      return unreachable(ev);
  }
}

function withStatus(s: SessionsState, id: string, st: Status): SessionsState {
  return { ...s, status: { ...s.status, [id]: st } };
}

// withToReview sets the listed session id's count of changes waiting for
// review to f of it, in place in the list (a count is no activity).
function withToReview(s: SessionsState, id: string, f: (n: number) => number): SessionsState {
  const i = s.sessions.findIndex((x) => x.id === id);
  if (i < 0) return s;
  const row = s.sessions[i]!;
  const n = f(row.toReview ?? 0);
  if (n === row.toReview || !Number.isSafeInteger(n) || n < 0) return s;
  return { ...s, sessions: s.sessions.map((x, j) => (j === i ? { ...row, toReview: n } : x)) };
}

// withIsolation marks the listed session id's copy as discarded at time, in place.
function withIsolation(s: SessionsState, id: string, time: string): SessionsState {
  const i = s.sessions.findIndex((x) => x.id === id);
  const row = s.sessions[i];
  if (row === undefined || row.isolation === undefined || (row.isolation.discardedAt ?? "") !== "") return s;
  const isolation = { ...row.isolation, discardedAt: time };
  return { ...s, sessions: s.sessions.map((x, j) => (j === i ? { ...row, isolation } : x)) };
}

// touch applies f to the listed session id and marks it updated at time, moving
// it to the front (the list is newest first). An unlisted session is left
// alone: the next listing brings it.
function touch(s: SessionsState, id: string, time: string, f: (x: Session) => Session = (x) => x): SessionsState {
  const i = s.sessions.findIndex((x) => x.id === id);
  if (i < 0) return s;
  const row = { ...f(s.sessions[i]!), updatedAt: time };
  return { ...s, sessions: [row, ...s.sessions.slice(0, i), ...s.sessions.slice(i + 1)] };
}

function unreachable(ev: never): never {
  throw new Error(`unhandled event ${JSON.stringify(ev)}`);
}
