// A group of consecutive file lookups of one step (read, ls, glob, grep) as
// one card: what they did ("Read 12 files", "Searched 3 times"), how many
// are still going and how many failed, and the individual cards on demand.
// A call of the group that waits for a person is shown at once.
import { memo, useState } from "react";
import { useSession, useTurn } from "../session/hooks";
import { target } from "./format";
import { groupLabel, groupState } from "./groups";
import type { ToolCard } from "./reducer";
import { ToolCardRow } from "./ToolCard";

/** targetsShown is how many of the group's targets its head names. */
const targetsShown = 3;

export const ToolGroupRow = memo(function ToolGroupRow(props: { runId: string; callIds: string[]; approvals?: boolean }) {
  const byId = useSession((s) => s.conversation.cards[props.runId]);
  const workdir = useTurn(props.runId)?.workdir ?? "";
  const [choice, setChoice] = useState<boolean | null>(null);
  const cards = props.callIds.map((id) => byId?.[id]).filter((c): c is ToolCard => c !== undefined);
  if (cards.length === 0) return null;
  const label = groupLabel(cards);
  const st = groupState(cards);
  const open = choice ?? st.waiting > 0;
  const targets = cards.map((c) => target(c, workdir)).filter((t) => t !== "");
  const named = targets.slice(0, targetsShown).join(", ") + (targets.length > targetsShown ? `, and ${targets.length - targetsShown} more` : "");
  const look = st.going > 0 ? "running" : st.failed > 0 ? "failed" : "done";
  return (
    <article className={`convo-card convo-group convo-card-${look}`} aria-label={label}>
      <header className="convo-card-head">
        <span className="convo-card-tool">{label}</span>
        {named !== "" && <span className="convo-card-target">{named}</span>}
        {st.going > 0 && <span className="convo-badge convo-badge-running">{st.waiting > 0 ? "waiting for approval" : "running"}</span>}
        {st.failed > 0 && <span className="convo-badge convo-badge-error">{st.failed} failed</span>}
        {st.going === 0 && st.failed === 0 && <span className="convo-badge convo-badge-done">done</span>}
      </header>
      <button type="button" className="convo-link" aria-expanded={open} onClick={() => setChoice(!open)}>
        {open ? "Hide the calls" : `Show the ${cards.length} calls`}
      </button>
      {open && (
        <ul className="convo-group-calls" aria-label={`Calls of ${label}`}>
          {cards.map((c) => (
            <li key={c.id}>
              <ToolCardRow runId={props.runId} callId={c.id} approvals={props.approvals === true} />
            </li>
          ))}
        </ul>
      )}
    </article>
  );
});
