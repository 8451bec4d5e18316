// Background commands. The kernel keeps them in memory (the shell), not in
// the session's log, so the list is the kernel's (BackgroundCommands), and
// background.changed notices carry each change as it happens: a command
// started, printed, ended or was killed, with its whole state. A panel
// lists once, then applies the notices; no timer, no tool names.
import type { BackgroundChangedData } from "../../backend/gen/event";
import type { BackgroundCommand } from "../../backend/gen/kernel";

export interface BackgroundState {
  /** The session's commands, oldest first. */
  commands: BackgroundCommand[];
  /** listed says the kernel's list has come. */
  listed: boolean;
  /** Notices that came while the list was being read, applied after it. */
  held: BackgroundChangedData[];
}

export const initialBackground: BackgroundState = { commands: [], listed: false, held: [] };

/** listing starts reading the list again: notices from now on wait for it. */
export function listing(s: BackgroundState): BackgroundState {
  return { ...s, listed: false, held: [] };
}

/**
 * withList takes the kernel's list, read after the notices held were
 * published or while they were: applied after it, each leaves its command
 * as it was when told, and any later change is told again.
 */
export function withList(s: BackgroundState, commands: BackgroundCommand[]): BackgroundState {
  return { commands: s.held.reduce(upsert, commands), listed: true, held: [] };
}

/** applyChange applies one background.changed payload of the session. */
export function applyChange(s: BackgroundState, d: BackgroundChangedData): BackgroundState {
  if (!s.listed) return { ...s, held: [...s.held, d] };
  return { ...s, commands: upsert(s.commands, d) };
}

/** withCommand puts one command as the kernel returned it (a kill's answer) into the list. */
export function withCommand(s: BackgroundState, c: BackgroundCommand): BackgroundState {
  return { ...s, commands: upsert(s.commands, c) };
}

// upsert replaces the command of d's ID with d, or appends it (a new one).
function upsert(commands: BackgroundCommand[], d: BackgroundCommand | BackgroundChangedData): BackgroundCommand[] {
  const c = commandOf(d);
  const i = commands.findIndex((x) => x.id === c.id);
  if (i < 0) return [...commands, c];
  const next = [...commands];
  next[i] = c;
  return next;
}

function commandOf(d: BackgroundCommand | BackgroundChangedData): BackgroundCommand {
  if (!("change" in d)) return d;
  const { change: _change, ...c } = d;
  return c;
}
