// Background commands. No event announces them (docs/events.md has none; the
// shell keeps them in memory), so the list is the kernel's
// (BackgroundCommands, applied with withCommands), and the events tell when
// that list may be out of date: a bash, bash_output or bash_kill call ended
// (a command started, was read or killed) or a run ended. The view lists
// again when stale is set, and while a command runs (commands also end by
// themselves, and nothing announces that).
import type { Event } from "../../backend/gen/event";
import type { BackgroundCommand } from "../../backend/gen/kernel";
import { typed } from "../seq";

export interface BackgroundState {
  /** The kernel's list, oldest first, as of the seq listedAt. */
  commands: BackgroundCommand[];
  /** The seq the list was taken at; -1 before the first list. */
  listedAt: number;
  /** The seq of the last event after which the list may differ. */
  changedAt: number;
}

export const initialBackground: BackgroundState = { commands: [], listedAt: -1, changedAt: 0 };

const shellTools = new Set(["bash", "bash_output", "bash_kill"]);

/**
 * withCommands sets the kernel's list, taken after every event up to seq
 * was applied (list after the events you have, not before).
 */
export function withCommands(state: BackgroundState, commands: BackgroundCommand[], seq: number): BackgroundState {
  return { ...state, commands, listedAt: seq };
}

/** stale says the list should be read again. */
export function stale(s: BackgroundState): boolean {
  return s.listedAt < s.changedAt || s.commands.some((c) => c.running);
}

/**
 * applyBackground applies one event of the session, in seq order: the session store
 * orders them (../seq.ts), each seq once.
 */
export function applyBackground(s: BackgroundState, raw: Event): BackgroundState {
  const ev = typed(raw);
  if (ev === null) return s;
  switch (ev.type) {
    case "tool.end":
      return shellTools.has(ev.data.name) ? { ...s, changedAt: ev.seq } : s;
    case "run.end":
      return { ...s, changedAt: ev.seq };
    case "run.start":
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
    case "todo.updated":
    case "file.reverted":
    case "file.captured":
    case "file.changed_outside":
    case "file.watch_degraded":
    case "run.interrupted":
      return s;
    default:
      return unreachable(ev);
  }
}

function unreachable(ev: never): never {
  throw new Error(`unhandled event ${JSON.stringify(ev)}`);
}
