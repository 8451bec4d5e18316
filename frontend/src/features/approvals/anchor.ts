// Where a waiting request shows in the conversation: at the card of its
// call, or, for a call of a sub-agent (at any depth), at the task call of
// the session's own run that started it, which is the card the transcript
// lists (a sub-agent's cards are nested and collapsed by default). Pure.
import type { Turn } from "../conversation/reducer";

/** Anchor names a card of the transcript: its run and its call. */
export interface Anchor {
  runId: string;
  callId: string;
}

/**
 * anchorOf is the transcript card a request of call callId in run runId
 * shows at: the call itself for the session's own run, else the task call
 * of the top-level run whose sub-agent (or one it started) made the call;
 * null when the run is not known (a malformed log), or a cycle.
 */
export function anchorOf(turns: Record<string, Turn>, runId: string, callId: string): Anchor | null {
  const seen = new Set<string>();
  let at: Anchor = { runId, callId };
  for (;;) {
    const t = turns[at.runId];
    if (t === undefined || seen.has(at.runId)) return null;
    seen.add(at.runId);
    if (t.parentCallId === "") return at;
    at = { runId: t.parentRunId, callId: t.parentCallId };
  }
}
