// An isolated session's copy as its events tell it (docs/isolated-sessions.md):
// the setup command's progress and output (isolation.setup), the last apply
// (isolation.applied) and the discard (isolation.discarded). Applied by the
// session store in seq order, each event once.
import type { Event } from "../../backend/gen/event";
import { typed } from "../seq";

/** maxSetupOutput is how much of the setup's output is kept (its end), in characters. */
export const maxSetupOutput = 64 * 1024;

export interface SetupState {
  /** state is "" before any isolation.setup event, then running, succeeded or failed. */
  state: "" | "running" | "succeeded" | "failed";
  command: string;
  /** output is what the command printed so far (its last maxSetupOutput characters). */
  output: string;
  /** cut says the start of the output was dropped to keep it at maxSetupOutput. */
  cut: boolean;
  exitCode?: number;
  error: string;
  durationMs: number;
  sandbox: string;
}

export interface IsolationState {
  setup: SetupState;
  /** applied is the last apply's result, null before one. */
  applied: { applied: string[]; conflicts: string[]; time: string } | null;
  /** discarded is when the copy was removed ("" while it is there). */
  discarded: string;
}

export const initialSetup: SetupState = { state: "", command: "", output: "", cut: false, error: "", durationMs: 0, sandbox: "" };
export const initialIsolation: IsolationState = { setup: initialSetup, applied: null, discarded: "" };

// keepEnd keeps the last max characters of s.
function keepEnd(s: string, max: number): { text: string; cut: boolean } {
  return s.length <= max ? { text: s, cut: false } : { text: s.slice(s.length - max), cut: true };
}

/** applyIsolation applies one event of the session, in seq order. */
export function applyIsolation(s: IsolationState, raw: Event): IsolationState {
  const ev = typed(raw);
  if (ev === null) return s;
  switch (ev.type) {
    case "isolation.setup": {
      const d = ev.data;
      const st = s.setup;
      switch (d.state) {
        case "running":
          return { ...s, setup: { ...initialSetup, state: "running", command: d.command, sandbox: d.sandbox ?? "" } };
        case "output": {
          const out = keepEnd(st.output + (d.output ?? ""), maxSetupOutput);
          return { ...s, setup: { ...st, state: "running", command: st.command || d.command, output: out.text, cut: st.cut || out.cut } };
        }
        case "succeeded":
        case "failed": {
          // The end event carries the end of the output: it replaces what
          // came when no output event came (a replay that lost them).
          const out = st.output === "" ? keepEnd(d.output ?? "", maxSetupOutput) : { text: st.output, cut: false };
          return {
            ...s,
            setup: {
              ...st,
              state: d.state,
              command: st.command || d.command,
              output: out.text,
              cut: st.cut || out.cut,
              ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}),
              error: d.error ?? "",
              durationMs: d.durationMs ?? 0,
              sandbox: d.sandbox ?? st.sandbox,
            },
          };
        }
        default:
          return s;
      }
    }
    case "isolation.applied":
      return { ...s, applied: { applied: ev.data.applied ?? [], conflicts: ev.data.conflicts ?? [], time: ev.time } };
    case "isolation.discarded":
      return { ...s, discarded: ev.time || new Date().toISOString() };
    default:
      return s;
  }
}
