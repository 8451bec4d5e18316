// The five views of the open session, mounted by the shell. On the shell's
// branch each slot renders a small view of its own, from the same store
// hooks the real views read (so the shell's tests and e2e see real state);
// at merge the lead replaces each body with the area's component:
//   ConversationSlot → features/conversation ConversationView
//   ApprovalsSlot    → features/approvals ApprovalQueue
//   ReviewSlot       → features/changes ReviewPanel
//   BackgroundSlot   → features/settings BackgroundPanel
//   SettingsSlot     → features/settings SettingsView
import { useEntries, useStepText, useTurn } from "../session/hooks";
import { modeLabel, toMode } from "../sessions/modes";
import { ApprovalQueue } from "../approvals";
import { BackgroundPanel } from "../background";
import { ReviewPanel } from "../changes";
import { SettingsView } from "../settings";

/** ConversationSlot is the conversation of the open session. */
export function ConversationSlot(props: { sessionId: string }) {
  const entries = useEntries();
  if (entries.length === 0) {
    return (
      <div className="slot-conversation" aria-label="Conversation" role="log">
        <p className="muted">Nothing in this session yet.</p>
      </div>
    );
  }
  return (
    <div className="slot-conversation" aria-label="Conversation" role="log" data-session={props.sessionId}>
      {entries.map((e) =>
        e.kind === "turn" ? (
          <TurnLine key={e.id} runId={e.id} />
        ) : (
          <p key={`mode-${e.seq}`} className="muted">
            Approval mode: {modeName(e.from)} → {modeName(e.to)}
          </p>
        ),
      )}
    </div>
  );
}

function modeName(m: string): string {
  const k = toMode(m);
  return k === null ? m : modeLabel[k];
}

function TurnLine(props: { runId: string }) {
  const turn = useTurn(props.runId);
  if (turn === undefined) return null;
  return (
    <article className="slot-turn" aria-label={`Turn: ${turn.prompt}`}>
      <p className="slot-prompt">{turn.prompt}</p>
      {turn.steps.map((s) => (
        <StepText key={s.step} runId={turn.id} step={s.step} />
      ))}
      <p className="muted">
        {turn.status === "interrupted"
          ? `Interrupted: Foya stopped during this turn${turn.interruptedCalls !== null ? ` (${turn.interruptedCalls} unfinished tool calls, not run again)` : ""}.`
          : `Turn ${turn.status}${turn.error !== "" ? `: ${turn.error}` : ""}`}
      </p>
    </article>
  );
}

function StepText(props: { runId: string; step: number }) {
  const text = useStepText(props.runId, props.step);
  return text === "" ? null : <p className="slot-text">{text}</p>;
}

/** ApprovalsSlot is the queue of the open session's pending approvals; nothing when none wait. */
export function ApprovalsSlot(props: { sessionId: string }) {
  return <ApprovalQueue sessionId={props.sessionId} />;
}

/** ReviewSlot is the review panel: the session's file changes by turn. */
export function ReviewSlot(props: { sessionId: string; onClose: () => void }) {
  return <ReviewPanel sessionId={props.sessionId} onClose={props.onClose} />;
}

/** BackgroundSlot is the background commands panel. */
export function BackgroundSlot(props: { sessionId: string; onClose: () => void }) {
  return <BackgroundPanel sessionId={props.sessionId} onClose={props.onClose} />;
}

/** SettingsSlot is the settings view; sessionId is the open session, null when none is. */
export function SettingsSlot(props: { sessionId: string | null; onClose: () => void }) {
  return <SettingsView sessionId={props.sessionId} onClose={props.onClose} />;
}
