// Approvals: the queue of requests waiting for a person, and the session's
// approval mode. A pure reducer over the session's events.
import type { ApprovalRequestData, Event } from "../../backend/gen/event";
import { typed } from "../seq";

export interface ApprovalsState {
  /** Requests waiting for an answer, oldest first. */
  pending: ApprovalRequestData[];
  /**
   * The session's approval mode: from session.mode, else the last
   * run.start's approvalMode, else what the store was made with ("" when
   * unknown).
   */
  mode: string;
}

export function initialApprovals(mode = ""): ApprovalsState {
  return { pending: [], mode };
}

/**
 * applyApprovals applies one event of the session, in seq order: the session store
 * orders them (../seq.ts), each seq once.
 */
export function applyApprovals(s: ApprovalsState, raw: Event): ApprovalsState {
  const ev = typed(raw);
  if (ev === null) return s;
  switch (ev.type) {
    case "approval.request":
      if (s.pending.some((p) => p.id === ev.data.id)) return s;
      return { ...s, pending: [...s.pending, ev.data] };
    case "approval.answer":
      // Only that request leaves the queue: denying one denies no other.
      return withPending(s, s.pending.filter((p) => p.id !== ev.data.id));
    case "run.end":
      // A run's end is its last event: a request of it that is still
      // listed (a crash left it unanswered) can no longer be answered.
      return withPending(s, s.pending.filter((p) => p.runId !== ev.runId));
    case "session.mode":
      return s.mode === ev.data.to ? s : { ...s, mode: ev.data.to };
    case "run.start":
      return ev.data.approvalMode && s.mode !== ev.data.approvalMode ? { ...s, mode: ev.data.approvalMode } : s;
    case "todo.updated":
    case "step.start":
    case "text.delta":
    case "reasoning.delta":
    case "tool.begin":
    case "tool.update":
    case "tool.end":
    case "tools.activated":
    case "step.end":
    case "file.reverted":
    case "file.captured":
    case "file.changed_outside":
    case "file.watch_degraded":
    case "change.reviewed":
    case "hook.run":
    case "run.interrupted":
    case "session.model":
    case "session.title":
    case "run.steer":
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

function withPending(s: ApprovalsState, pending: ApprovalRequestData[]): ApprovalsState {
  return pending.length === s.pending.length ? s : { ...s, pending };
}

function unreachable(ev: never): never {
  throw new Error(`unhandled event ${JSON.stringify(ev)}`);
}
