// The status a card's badge says. A task call runs while its sub-agent works,
// but what holds it is the person when a call of that sub-agent (or of a
// sub-agent it started, at any depth) waits for approval: the badge says so,
// as the waiting call's own card does.
import type { CardStatus, ConversationState, ToolCard } from "./reducer";

/**
 * shownStatus is the status card's badge shows: "waiting" for a running
 * call whose sub-agent (at any depth) has a call waiting for approval, the
 * card's own status otherwise.
 */
export function shownStatus(s: ConversationState, card: ToolCard): CardStatus {
  if (card.status !== "running" || card.childRunId === "") return card.status;
  return waitsBelow(s, card.childRunId, new Set()) ? "waiting" : "running";
}

// waitsBelow says whether run runId, or a sub-agent run below it, has a call
// waiting for approval; seen guards against a cycle in malformed events.
function waitsBelow(s: ConversationState, runId: string, seen: Set<string>): boolean {
  if (seen.has(runId)) return false;
  seen.add(runId);
  const cards = s.cards[runId];
  if (cards === undefined) return false;
  for (const c of Object.values(cards)) {
    if (c.status === "waiting") return true;
    if (c.status === "running" && c.childRunId !== "" && waitsBelow(s, c.childRunId, seen)) return true;
  }
  return false;
}
