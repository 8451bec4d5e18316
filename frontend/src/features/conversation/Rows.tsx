// The transcript's rows other than tool cards: a turn's prompt, a step's
// reasoning and text, the turn's end (how it ended, "Continue" after the
// step limit, what hooks said at its end), and a mode switch between turns.
import { memo, useDeferredValue, useState } from "react";
import { useStepReasoning, useStepText, useTurn } from "../session/hooks";
import { CopyButton } from "../../ui/CopyButton";
import { RunFailure } from "./RunFailure";
import { ModelText } from "./Markdown";
import { SentImages } from "./PastedImages";
import { HookNotes } from "./HookNotes";
import { ForkButton } from "./Fork";
import type { ModelNote, ModeNote, SteerNote, Turn } from "./reducer";

const modeWord: Record<string, string> = { manual: "Manual", auto: "Auto", full_access: "Full Access", "full-access": "Full Access" };

/** mode names an approval mode as the settings do. */
export function mode(m: string): string {
  return modeWord[m] ?? m;
}

export const ModeRow = memo(function ModeRow({ note }: { note: ModeNote }) {
  return (
    <p className="convo-mode">
      Approval mode {note.from !== "" ? `switched from ${mode(note.from)} ` : "set "}to {mode(note.to)}.
    </p>
  );
});

/** ModelRow is a choice of the session's model, which its next runs use. */
export const ModelRow = memo(function ModelRow({ note }: { note: ModelNote }) {
  return (
    <p className="convo-mode">
      Model: {note.model} ({note.provider}), from the next run on.
    </p>
  );
});

/** SteerRow is a message the person sent to a run while it went, read by the model before the step below it. */
export const SteerRow = memo(function SteerRow({ note }: { note: SteerNote }) {
  return (
    <section className="convo-prompt" aria-label="Your message">
      <p className="convo-who">
        You, during the run <CopyButton text={note.text} label="Copy message" className="convo-copy" />
      </p>
      <div className="convo-prompt-text">{note.text}</div>
    </section>
  );
});

export const PromptRow = memo(function PromptRow({ runId }: { runId: string }) {
  const turn = useTurn(runId);
  if (turn === undefined) return null;
  return (
    <section className="convo-prompt" aria-label="Your message">
      <p className="convo-who">
        You <CopyButton text={turn.prompt} label="Copy message" className="convo-copy" />
        <ForkButton runId={runId} />
      </p>
      <div className="convo-prompt-text">{turn.prompt}</div>
      <SentImages images={turn.images} />
      {turn.resources.length > 0 && (
        <ul className="convo-attached" aria-label="Attached resources">
          {turn.resources.map((r) => (
            <li key={`${r.server} ${r.uri}`} title={`${r.uri} from the MCP server ${r.server}`}>
              {r.uri} <span className="convo-attached-server">({r.server})</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
});

/** StepRow is one model step's reasoning (collapsible) and text (markdown), live as they stream. */
export const StepRow = memo(function StepRow({ runId, step }: { runId: string; step: number }) {
  // Deferred: a burst of tokens renders the markdown once it settles, and the
  // rest of the page stays responsive meanwhile.
  const text = useDeferredValue(useStepText(runId, step));
  const reasoning = useDeferredValue(useStepReasoning(runId, step));
  const [choice, setChoice] = useState<boolean | null>(null);
  if (text === "" && reasoning === "") return <div className="convo-step-empty" />;
  // Open while the model only reasons; collapsed once its text starts, unless the person chose.
  const open = choice ?? text === "";
  return (
    <div className="convo-step">
      {reasoning !== "" && (
        <div className="convo-reasoning">
          <button type="button" className="convo-link" aria-expanded={open} onClick={() => setChoice(!open)}>
            {open ? "Hide reasoning" : "Show reasoning"}
          </button>
          {open && <div className="convo-reasoning-text">{reasoning}</div>}
        </div>
      )}
      {text !== "" && (
        <>
          <ModelText text={text} />
          <CopyButton text={text} label="Copy answer" className="convo-copy" />
        </>
      )}
    </div>
  );
});

/**
 * EndRow says how a turn ended, or that it is still going. A failed turn's
 * error is said in words, with Retry (its prompt sent again) on the latest
 * turn, and Test connection when the model server was not reached.
 */
export const EndRow = memo(function EndRow(props: {
  runId: string;
  latest: boolean;
  onContinue: (() => void) | null;
  onRetry?: ((prompt: string) => void) | null;
}) {
  const turn = useTurn(props.runId);
  if (turn === undefined) return null;
  return (
    <div className="convo-end">
      {turn.modes.map((m) => (
        <ModeRow key={m.seq} note={m} />
      ))}
      <HookNotes hooks={turn.hooks} workdir={turn.workdir} />
      <EndLine turn={turn} onRetry={props.latest && props.onRetry != null ? props.onRetry : null} />
      {turn.stepLimit && props.latest && props.onContinue !== null && (
        <button type="button" className="button convo-continue" onClick={props.onContinue}>
          Continue
        </button>
      )}
    </div>
  );
});

function EndLine({ turn, onRetry }: { turn: Turn; onRetry: ((prompt: string) => void) | null }) {
  switch (turn.status) {
    case "running":
      return (
        <p className="convo-status" role="status">
          Working…
        </p>
      );
    case "completed":
      return null;
    case "cancelled":
      return <p className="convo-status">Stopped by you.</p>;
    case "interrupted":
      return (
        <p className="convo-status convo-status-bad">
          Interrupted: Foya stopped during this run
          {turn.interruptedCalls !== null && turn.interruptedCalls > 0
            ? `; ${turn.interruptedCalls} unfinished tool call${turn.interruptedCalls === 1 ? " was" : "s were"} not replayed`
            : ""}
          . Send a message to go on.
        </p>
      );
    case "failed":
      if (turn.stepLimit) {
        return <p className="convo-status">Stopped at the step limit: {turn.error}. Continue to let the model go on.</p>;
      }
      return <RunFailure turn={turn} onRetry={onRetry} />;
  }
}
