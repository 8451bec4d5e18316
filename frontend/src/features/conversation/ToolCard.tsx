// A tool call's card: its tool and target, where it is (queued, waiting for
// approval, running with bash's live tail, done, error, cancelled,
// interrupted; for bash, its exit status, and for a background command
// whether it still runs), how long it ran, and what it left: the last lines
// of its output with the rest on demand, truncation notices and the full
// stored text on demand, images, and for a successful write, edit or delete
// only the file change (never the raw arguments).
import { lazy, memo, Suspense, useState } from "react";
import type { FileChange } from "../../backend/gen/event";
import { useApi, useTransport } from "../../backend";
import { RequestsAt } from "../approvals";
import { HookNotes } from "./HookNotes";
import { useCard, useSession, useTurn } from "../session/hooks";
import { loadArtifact, type LoadedArtifact } from "./artifacts";
import { useLoad } from "../useLoad";
import { statusKind, statusText, useBackgroundCommand } from "../background";
import { shownStatus } from "./cardStatus";
import { exitWord, outputOf } from "./output";
import { bytes, duration, relative, statusWord, target } from "./format";
import { ModelText } from "./Markdown";
import { CompactRow } from "./CompactRow";
import { DenialList } from "../sandbox";
import { lastAnswer, type ToolCard, type Turn } from "./reducer";

const DiffView = lazy(() => import("../../ui/diff").then((m) => ({ default: m.DiffView })));

// Tools whose successful call is shown as its file change alone (D5).
const fileTools = new Set(["write", "edit", "delete"]);

/**
 * ToolCardRow is the card of call callId in run runId, live from the store.
 * With approvals (a card of the transcript, not one nested in a sub-agent's
 * list), it holds the waiting approval requests of its call and of its
 * sub-agents' calls.
 */
export const ToolCardRow = memo(function ToolCardRow(props: { runId: string; callId: string; approvals?: boolean }) {
  const card = useCard(props.runId, props.callId);
  const workdir = useTurn(props.runId)?.workdir ?? "";
  if (card === undefined) return null;
  return <Card card={card} workdir={workdir} approvals={props.approvals === true} />;
});

function Card({ card, workdir, approvals }: { card: ToolCard; workdir: string; approvals: boolean }) {
  const what = target(card, workdir);
  const name = what === "" ? card.name : `${card.name} ${what}`;
  const changes = card.status === "done" && fileTools.has(card.name) ? (card.result?.fileChanges ?? []) : [];
  const asChange = card.status === "done" && fileTools.has(card.name) && changes.length > 0;
  const ended = card.result !== null || card.endedWithRun;
  // A sub-agent's answer is shown in its view; its result repeats it.
  const shownByChild = card.childRunId !== "" && card.status === "done";
  // A task call whose sub-agent waits for approval says so, not "running".
  const badge = useSession((s) => shownStatus(s.conversation, card));
  // A bash call that started a background command ends at once; the command's own state is what counts.
  const background = card.status === "done" ? (card.result?.background ?? "") : "";
  const exit = card.status === "done" && background === "" ? (card.result?.exitCode ?? null) : null;
  const look = exit !== null && exit !== 0 ? "convo-card-failed" : `convo-card-${card.status}`;
  const sessionId = useSession((s) => s.sessionId);
  const denials = card.result?.denials ?? [];
  return (
    <article className={`convo-card ${look}`} aria-label={name}>
      <header className="convo-card-head">
        <span className="convo-card-tool">{card.name}</span>
        {what !== "" && <span className="convo-card-target">{what}</span>}
        {background !== "" ? (
          <BackgroundBadge id={background} />
        ) : exit !== null ? (
          <span className={`convo-badge convo-badge-exit-${exit === 0 ? "ok" : "bad"}`}>{exitWord(exit)}</span>
        ) : (
          <span className={`convo-badge convo-badge-${badge}`}>{statusWord[badge]}</span>
        )}
        <span className="convo-card-meta">
          {background !== ""
            ? `in the background as ${background}`
            : card.durationMs !== null
            ? duration(card.durationMs)
            : !ended && card.status === "queued"
              ? `arguments ${bytes(card.argsBytes)}`
              : ""}
        </span>
      </header>
      {/* The request itself says why Foya asks; a nested card only points at it. */}
      {card.status === "waiting" && card.approval !== null && !approvals && (
        <p className="convo-card-note">Waiting for your approval: {card.approval.reason || "the policy asks before this call"}.</p>
      )}
      {approvals && <RequestsAt runId={card.runId} callId={card.id} />}
      {card.approval?.state === "denied" && (
        <p className="convo-card-note">
          Denied by you{card.approval.message !== "" ? `: “${card.approval.message}”` : ""}.
        </p>
      )}
      <HookNotes hooks={card.hooks} />
      {card.status === "running" && card.name === "bash" && (
        <pre className="convo-tail" aria-label={`Live output of ${name}`}>
          {card.tail === "" ? "(no output yet)" : card.tail}
        </pre>
      )}
      {card.endedWithRun && (
        <p className="convo-card-note">
          {card.status === "cancelled"
            ? "The run was cancelled before this call ended."
            : card.status === "interrupted"
              ? "Foya stopped before this call ended; it was not replayed."
              : "The run ended before this call did."}
        </p>
      )}
      {card.childRunId !== "" && <SubAgentView runId={card.childRunId} />}
      {asChange ? (
        changes.map((c) => <FileChangeView key={c.id} change={c} workdir={workdir} />)
      ) : (
        <>
          {/* While its request is shown inline, the request shows what would run. */}
          {!ended && card.argsPreview !== "" && !fileTools.has(card.name) && card.childRunId === "" && !(approvals && card.status === "waiting") && (
            <Arguments card={card} />
          )}
          {card.result !== null && !shownByChild && background !== "" && <BackgroundStarted card={card} name={name} id={background} />}
          {card.result !== null && !shownByChild && background === "" && <ResultView card={card} name={name} />}
          {denials.length > 0 && <DenialList sessionId={sessionId} denials={denials} />}
        </>
      )}
    </article>
  );
}

/**
 * SubAgentView is the sub-agent a task call started, live:
 * what it is for, where it is, its prompt and its tool calls (collapsed until
 * asked for; each a card like any other, nested sub-agents included) and its
 * answer.
 */
const SubAgentView = memo(function SubAgentView({ runId }: { runId: string }) {
  const turn = useTurn(runId);
  const cards = useSession((s) => s.conversation.cards[runId]);
  const answer = useSession((s) => {
    const t = s.conversation.turns[runId];
    return t === undefined ? "" : lastAnswer(s.conversation, t);
  });
  const [showCalls, setShowCalls] = useState(false);
  const [showPrompt, setShowPrompt] = useState(false);
  if (turn === undefined) return null;
  const ids = turn.steps.flatMap((st) => st.cards);
  const label = `Sub-agent ${turn.description || "without a description"}`;
  const waiting = ids.filter((id) => cards?.[id]?.status === "waiting").length;
  const running = ids.map((id) => cards?.[id]).filter((c) => c?.status === "running");
  return (
    <section className="convo-agent" aria-label={label}>
      <p className="convo-agent-status" role="status">
        {agentStatus(turn, waiting, running.map((c) => c!.name))}
      </p>
      <div className="convo-agent-links">
        <button type="button" className="convo-link" aria-expanded={showPrompt} onClick={() => setShowPrompt(!showPrompt)}>
          {showPrompt ? "Hide its prompt" : "Show its prompt"}
        </button>
        {ids.length > 0 && (
          <button type="button" className="convo-link" aria-expanded={showCalls} onClick={() => setShowCalls(!showCalls)}>
            {showCalls ? "Hide its tool calls" : `Show its tool calls (${ids.length})`}
          </button>
        )}
      </div>
      {turn.compactions.map((c) => (
        <CompactRow key={c.id} id={c.id} />
      ))}
      {showPrompt && <pre className="convo-pre" aria-label={`Prompt of ${label}`}>{turn.prompt}</pre>}
      {showCalls && (
        <ul className="convo-agent-calls" aria-label={`Tool calls of ${label}`}>
          {ids.map((id) => (
            <li key={id}>
              <ToolCardRow runId={runId} callId={id} />
            </li>
          ))}
        </ul>
      )}
      {answer !== "" && (
        <div className="convo-agent-answer" role="region" aria-label={`${turn.status === "running" ? "Latest text" : "Answer"} of ${label}`}>
          <ModelText text={answer} />
        </div>
      )}
    </section>
  );
});

function agentStatus(turn: Turn, waiting: number, running: string[]): string {
  const steps = `${turn.steps.length} step${turn.steps.length === 1 ? "" : "s"}`;
  switch (turn.status) {
    case "running":
      if (waiting > 0) return `Waiting for your approval (${waiting} call${waiting === 1 ? "" : "s"}), step ${turn.steps.length}.`;
      if (running.length > 0) return `Working, step ${turn.steps.length}: running ${running.join(", ")}.`;
      return turn.steps.length === 0 ? "Starting…" : `Working, step ${turn.steps.length}…`;
    case "completed":
      return `Done in ${steps}.`;
    case "cancelled":
      return `Stopped after ${steps}.`;
    case "interrupted":
      return "Interrupted: Foya stopped while it worked; it was not replayed.";
    case "failed":
      return `Failed after ${steps}: ${turn.error || "no reason was given"}.`;
  }
}

function Arguments({ card }: { card: ToolCard }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="convo-section">
      <button type="button" className="convo-link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "Hide arguments" : "Show arguments"} ({bytes(card.argsBytes)})
      </button>
      {open && <pre className="convo-pre">{card.argsPreview}</pre>}
    </div>
  );
}

/**
 * BackgroundBadge says where the background command a bash call started
 * is: running until it ends, then how it ended, live from the kernel's
 * notices.
 */
function BackgroundBadge({ id }: { id: string }) {
  const sessionId = useSession((s) => s.sessionId);
  const state = useBackgroundCommand(sessionId, id);
  switch (state.kind) {
    case "listing":
      return <span className="convo-badge">in the background</span>;
    case "gone":
      return (
        <span className="convo-badge" title="Foya no longer keeps this command: it forgets them when it exits">
          background, no longer kept
        </span>
      );
    case "error":
      return (
        <span className="convo-badge" title={`Its state could not be read: ${state.message}`}>
          background, state unknown
        </span>
      );
    case "known": {
      const kind = statusKind(state.command);
      const word = kind === "running" ? "running" : statusText(state.command).toLowerCase();
      return <span className={`convo-badge convo-badge-bg-${kind}`}>{word}</span>;
    }
  }
}

/**
 * BackgroundStarted is what a bash call that started a background command
 * ended with: where its output is, in words; the text the model got (its
 * ID, its PID, how to read it) on demand.
 */
function BackgroundStarted({ card, name, id }: { card: ToolCard; name: string; id: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="convo-section">
      <p className="convo-card-note">
        Started in the background as {id}. Its output, its state and Stop are in the Background panel.
      </p>
      <button type="button" className="convo-link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "Hide what the model was told" : "Show what the model was told"}
      </button>
      {open && (
        <pre className="convo-pre convo-output" tabIndex={0} aria-label={`Output of ${name}`}>
          {card.result!.text}
        </pre>
      )}
    </div>
  );
}

function ResultView({ card, name }: { card: ToolCard; name: string }) {
  const r = card.result!;
  // A failed call shows its whole error at once (D5); other output as its last lines, all on demand.
  const failed = card.status !== "done";
  const [open, setOpen] = useState(false);
  const out = outputOf(card.name, r.text);
  return (
    <div className="convo-section">
      {r.truncation.map((t, i) => (
        <p key={i} className="convo-truncation" role="note">
          {t}
        </p>
      ))}
      {failed ? (
        <pre className="convo-pre convo-error" aria-label={`Error of ${name}`}>
          {r.text === "" ? "(no message)" : r.text}
        </pre>
      ) : (
        r.text !== "" && (
          <>
            {open ? (
              // Focusable: a long output scrolls within its box, by keyboard too.
              <pre className="convo-pre convo-output" tabIndex={0} aria-label={`Output of ${name}`}>
                {r.text}
              </pre>
            ) : (
              out.body !== "" && (
                <pre className="convo-pre convo-output" aria-label={out.cut ? `Last lines of output of ${name}` : `Output of ${name}`}>
                  {out.tail}
                </pre>
              )
            )}
            {(out.cut || out.rest !== "" || out.body === "") && (
              <button type="button" className="convo-link" aria-expanded={open} onClick={() => setOpen(!open)}>
                {open ? "Hide all output" : out.cut ? `Show all output (${out.lines} lines)` : "Show the whole result"}
              </button>
            )}
          </>
        )
      )}
      {r.artifacts.map((id) => (
        <Artifact key={id} id={id} />
      ))}
      {r.truncation.length > 0 && <StoredResult card={card} />}
    </div>
  );
}

/** StoredResult fetches the call's stored result (the Calls call) and shows its text whole. */
function StoredResult({ card }: { card: ToolCard }) {
  const api = useApi();
  const [state, setState] = useState<{ kind: "idle" | "loading" } | { kind: "text"; text: string } | { kind: "error"; message: string }>({
    kind: "idle",
  });
  const load = () => {
    setState({ kind: "loading" });
    api.Calls(card.runId).then(
      (calls) => {
        const c = calls.find((x) => x.id === card.id);
        if (c?.result === undefined) setState({ kind: "error", message: "The stored result of this call was not found." });
        else setState({ kind: "text", text: c.result.text });
      },
      (e: unknown) =>
        setState({ kind: "error", message: `The stored result could not be read (${e instanceof Error ? e.message : String(e)}): try again.` }),
    );
  };
  if (state.kind === "text") {
    return (
      <div>
        <button type="button" className="convo-link" aria-expanded="true" onClick={() => setState({ kind: "idle" })}>
          Hide the full stored result
        </button>
        <pre className="convo-pre" aria-label="Full stored result">
          {state.text}
        </pre>
      </div>
    );
  }
  return (
    <div>
      <button type="button" className="convo-link" aria-expanded="false" disabled={state.kind === "loading"} onClick={load}>
        {state.kind === "loading" ? "Reading the full stored result…" : "Show the full stored result"}
      </button>
      {state.kind === "error" && <p role="alert">{state.message}</p>}
    </div>
  );
}

/**
 * Artifact shows an image a tool produced, read through the Artifact call
 * (artifacts.ts) in the desktop window and in the browser alike: foya
 * serve's artifacts route wants the bearer token, which an <img src> cannot
 * send. The image is an <img> of a blob: URL, never markup, so an SVG runs
 * no script.
 */
function Artifact({ id }: { id: string }) {
  const sessionId = useSession((s) => s.sessionId);
  return <BridgedArtifact id={id} sessionId={sessionId} />;
}

function BridgedArtifact({ id, sessionId }: { id: string; sessionId: string }) {
  const transport = useTransport();
  const api = useApi();
  const load = useLoad(() => loadArtifact(transport, api, sessionId, id), [transport, api, sessionId, id]);
  // broken says why bytes that loaded do not decode; a reload tries again.
  const [broken, setBroken] = useState<{ kind: "error"; message: string } | null>(null);
  const retry = () => {
    setBroken(null);
    load.reload();
  };
  const state: { kind: "loading" } | LoadedArtifact | { kind: "error"; message: string } =
    broken ??
    (load.state.status === "ready"
      ? load.state.value
      : load.state.status === "error"
        ? { kind: "error", message: load.state.error.message }
        : { kind: "loading" });
  switch (state.kind) {
    case "loading":
      return (
        <p className="convo-card-note" role="status" data-artifact="loading">
          Reading image <code>{id}</code>…
        </p>
      );
    case "image":
      return (
        <img
          className="convo-image"
          src={state.url}
          width={state.width > 0 ? state.width : undefined}
          height={state.height > 0 ? state.height : undefined}
          alt={`Image ${id} from the tool`}
          onError={() => setBroken({ kind: "error", message: `the ${state.mime} bytes do not decode as an image` })}
        />
      );
    case "other":
      return (
        <p className="convo-card-note">
          Artifact <code>{id}</code> is {state.mime} ({bytes(state.size)}), not an image: Foya shows only images here.
        </p>
      );
    case "error":
      return (
        <div className="convo-card-note" role="alert">
          Image <code>{id}</code> could not be shown ({state.message}).{" "}
          <button type="button" className="convo-link" onClick={retry}>
            Try again
          </button>
        </div>
      );
  }
}

function FileChangeView({ change, workdir }: { change: FileChange; workdir: string }) {
  const api = useApi();
  const [diff, setDiff] = useState<{ kind: "closed" | "loading" } | { kind: "open"; text: string } | { kind: "error"; message: string }>({
    kind: "closed",
  });
  const path = relative(change.path, workdir);
  const toggle = () => {
    if (diff.kind === "open") return setDiff({ kind: "closed" });
    setDiff({ kind: "loading" });
    api.Diff(change.id).then(
      (text) => setDiff({ kind: "open", text }),
      (e: unknown) =>
        setDiff({ kind: "error", message: `The diff could not be read (${e instanceof Error ? e.message : String(e)}): try again.` }),
    );
  };
  return (
    <div className="convo-change">
      <div className="convo-change-line">
        <span className="convo-change-op">{opWord(change)}</span>
        <code className="convo-change-path">{path}</code>
        {change.binary ? (
          <span className="convo-card-meta">binary</span>
        ) : (
          <span className="convo-counts" aria-label={`${change.added ?? 0} lines added, ${change.removed ?? 0} removed`}>
            <span className="convo-added">+{change.added ?? 0}</span> <span className="convo-removed">−{change.removed ?? 0}</span>
          </span>
        )}
        {!change.binary && (
          <button type="button" className="convo-link" aria-expanded={diff.kind === "open"} disabled={diff.kind === "loading"} onClick={toggle}>
            {diff.kind === "open" ? "Hide diff" : diff.kind === "loading" ? "Reading the diff…" : "Show diff"}
          </button>
        )}
      </div>
      {change.trashPath && (
        <p className="convo-card-note">
          Moved to the trash: <code>{change.trashPath}</code>
        </p>
      )}
      {diff.kind === "open" && (
        <div className="convo-diff" role="region" aria-label={`Diff of ${path}`}>
          {/* The diff component (and react-diff-view) load with the first diff opened. */}
          <Suspense fallback={<pre className="convo-pre">{diff.text}</pre>}>
            <DiffView diff={diff.text} path={path} />
          </Suspense>
        </div>
      )}
      {diff.kind === "error" && <p role="alert">{diff.message}</p>}
    </div>
  );
}

function opWord(c: FileChange): string {
  switch (c.op) {
    case "create":
      return "created";
    case "write":
      return "wrote";
    case "edit":
      return "edited";
    case "delete":
      return "deleted";
    case "revert":
      return "reverted";
    default:
      return c.op;
  }
}
