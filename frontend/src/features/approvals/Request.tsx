// One waiting approval request, inline in the conversation at its call's
// card: what the call would do (the diff, the parsed command, the URL, the
// MCP tool and its arguments), why Foya asks, and the answers, each with
// its key: Allow once (Y), Allow for this session (S), Deny (N).
import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent, type MouseEvent, type ReactNode } from "react";
import type { ApprovalRequestData, ParsedCommand } from "../../backend/gen/event";
import type { Answer } from "../../backend/gen/kernel";
import { DiffView } from "../../ui/diff";
import { useApprovals } from "./context";
import { showArguments } from "./fold";
import { isDelete, isDiff, isShell, mcpNote, scopeWords, title } from "./words";
import "./approvals.css";

/**
 * GUARD_MS is how long a request ignores key presses and clicks after it
 * shows, so that a keystroke meant for the composer (Enter, a space, a Y)
 * never answers a request that just appeared.
 */
export const GUARD_MS = 500;

/** keys are the answers' keys, as the buttons show them (aria-keyshortcuts). */
export const keys = { once: "Y", session: "S", deny: "N" } as const;

/**
 * RequestsAt shows the waiting requests whose call is the card of run
 * runId's call callId (a sub-agent's requests show at its task call);
 * nothing outside an ApprovalsProvider or when none waits there.
 */
export function RequestsAt(props: { runId: string; callId: string }) {
  const ap = useApprovals();
  if (ap === null) return null;
  const here = ap.waiting.filter((r) => {
    const at = ap.anchors.get(r.id);
    return at != null && at.runId === props.runId && at.callId === props.callId;
  });
  return (
    <>
      {here.map((r) => (
        <Request key={r.id} req={r} />
      ))}
    </>
  );
}

/**
 * Unanchored shows the waiting requests whose call has no card in the
 * transcript (a log that lost it): above the composer, never lost.
 */
export function Unanchored() {
  const ap = useApprovals();
  if (ap === null) return null;
  const lost = ap.waiting.filter((r) => ap.anchors.get(r.id) == null);
  if (lost.length === 0) return null;
  return (
    <div className="approval-unanchored">
      {lost.map((r) => (
        <Request key={r.id} req={r} />
      ))}
    </div>
  );
}

/**
 * Request is one request. It is keyed by request ID, so its guard starts
 * afresh for each request (and again when its card comes back into view);
 * the chosen scope and the message are kept in the provider's drafts.
 */
export function Request({ req }: { req: ApprovalRequestData }) {
  const ap = useApprovals()!;
  const self = useRef<HTMLElement>(null);
  const allowOnce = useRef<HTMLButtonElement>(null);
  const [armed, setArmed] = useState(false);
  const armedRef = useRef(false);
  const draft = ap.drafts.get(req.id) ?? { scope: 0, message: "" };
  const [scope, setScope] = useState(draft.scope);
  const [message, setMessage] = useState(draft.message);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const ids = useId();
  const scopes = req.scopes ?? [];
  const action = req.request.action;
  const position = ap.waiting.findIndex((r) => r.id === req.id) + 1;
  const count = ap.waiting.length;

  useEffect(() => {
    const t = setTimeout(() => {
      armedRef.current = true;
      setArmed(true);
    }, GUARD_MS);
    return () => clearTimeout(t);
  }, []);
  useEffect(() => {
    ap.drafts.set(req.id, { scope, message });
  }, [ap.drafts, req.id, scope, message]);

  // Focus the request itself, never a button: a key press that lands
  // here during the guard answers nothing.
  const { wanted, release } = ap;
  useEffect(() => {
    if (wanted !== req.id || self.current === null || self.current.contains(document.activeElement)) return;
    self.current.focus({ preventScroll: true });
    // Nearest: a request at the end of a transcript that follows the run
    // stays there, its answers in view.
    self.current.scrollIntoView?.({ block: "nearest" });
  }, [wanted, req.id]);
  const onBlur = (e: FocusEvent<HTMLElement>) => {
    const to = e.relatedTarget;
    if (to instanceof Node && !e.currentTarget.contains(to)) release(req.id);
  };

  const chosen = scopes[scope];
  const send = async (a: Answer) => {
    if (!armedRef.current || busy) return;
    setBusy(true);
    setError("");
    try {
      await ap.answer(req.id, a);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  const deny = () => {
    const m = message.trim();
    void send(m === "" ? { choice: "deny" } : { choice: "deny", message: m });
  };
  const once = () => void send({ choice: "allow_once" });
  const session = () => {
    if (chosen !== undefined) void send({ choice: "allow_session", scope: chosen });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    // Swallow every key press while the guard holds, so neither Enter nor
    // Tab nor a letter reaches a button, and Escape stops no run.
    if (!armedRef.current) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    if (e.key === "Escape") {
      // Answer later: back to the composer; never "allow", never a stop.
      e.preventDefault();
      release(req.id);
      ap.leave();
      return;
    }
    if (e.key === "Tab" && !e.shiftKey && e.target === self.current) {
      // The main answer first: the preview's own controls come after the answers.
      e.preventDefault();
      allowOnce.current?.focus();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || inField(e.target)) return;
    const k = e.key.toUpperCase();
    if (k === keys.once) once();
    else if (k === keys.session && chosen !== undefined) session();
    else if (k === keys.deny) deny();
    else return;
    e.preventDefault();
  };
  const guard = (e: KeyboardEvent | MouseEvent) => {
    if (!armedRef.current) {
      e.preventDefault();
      e.stopPropagation();
    }
  };

  const titleId = `${ids}-title`;
  const coversId = `${ids}-covers`;
  return (
    <section
      ref={self}
      className="approval-request"
      aria-labelledby={titleId}
      tabIndex={-1}
      data-approval={req.id}
      data-armed={armed ? "true" : "false"}
      onKeyDown={onKeyDown}
      onBlur={onBlur}
      onKeyUpCapture={guard}
      onClickCapture={guard}
    >
      <header className="approval-header">
        <h3 id={titleId} className="approval-title">
          {title(action)}
        </h3>
        <p className="approval-count" aria-live="polite">
          {count > 1 ? `${position} of ${count} waiting` : "Waiting for your approval"}
        </p>
      </header>
      <p className="approval-why">{req.request.why}</p>
      {(req.subAgent ?? "") !== "" && (
        <p className="approval-reason">
          <span className="approval-label">Asked by the sub-agent: </span>
          {req.subAgent}
        </p>
      )}
      <What req={req} />
      <p className="approval-reason">
        <span className="approval-label">Why Foya asks: </span>
        {req.reason}
      </p>

      <div className="approval-actions" aria-busy={busy}>
        <button
          ref={allowOnce}
          type="button"
          className="button button-primary approval-allow"
          aria-disabled={!armed || busy}
          aria-keyshortcuts={keys.once}
          onClick={once}
        >
          Allow once <kbd aria-hidden="true">({keys.once})</kbd>
        </button>
        {chosen !== undefined && (
          <button
            type="button"
            className="button"
            aria-disabled={!armed || busy}
            aria-describedby={coversId}
            aria-keyshortcuts={keys.session}
            onClick={session}
          >
            Allow for this session <kbd aria-hidden="true">({keys.session})</kbd>
          </button>
        )}
        <button type="button" className="button approval-deny" aria-disabled={!armed || busy} aria-keyshortcuts={keys.deny} onClick={deny}>
          Deny <kbd aria-hidden="true">({keys.deny})</kbd>
        </button>
      </div>
      {chosen !== undefined && (
        <p id={coversId} className="approval-covers">
          <span className="approval-label">For this session: </span>
          <Coded text={scopeWords(chosen).covers} />
        </p>
      )}
      {scopes.length > 1 && (
        <fieldset className="approval-scopes">
          <legend>"Allow for this session" covers</legend>
          {scopes.map((g, i) => {
            const id = `${ids}-scope-${i}`;
            return (
              <span className="approval-scope" key={id}>
                <input type="radio" id={id} name={`${ids}-scope`} checked={scope === i} onChange={() => setScope(i)} />
                <label htmlFor={id}>
                  <Coded text={scopeWords(g).label} />
                </label>
              </span>
            );
          })}
        </fieldset>
      )}
      <label className="approval-message">
        <span>Message to the model if you deny (optional)</span>
        <textarea value={message} rows={1} onChange={(e) => setMessage(e.target.value)} />
      </label>
      {error !== "" && (
        <div className="notice notice-alert" role="alert">
          Foya could not send your answer: {error}. Try again; if the run has ended, the request no longer waits.
        </div>
      )}
    </section>
  );
}

// inField says a key press is meant for a text field (the deny message):
// its letters are text, not answers.
function inField(t: EventTarget): boolean {
  return t instanceof HTMLTextAreaElement || (t instanceof HTMLInputElement && t.type !== "radio" && t.type !== "checkbox");
}

// Coded shows the `code` spans of a scope's words as code.
function Coded({ text }: { text: string }) {
  const parts = text.split("`");
  return <>{parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : p))}</>;
}

/** What shows what the request would do, by the action's kind. */
function What({ req }: { req: ApprovalRequestData }) {
  const a = req.request.action;
  const paths = a.paths ?? [];
  const preview = req.request.preview ?? "";
  const rows: [string, ReactNode][] = [];
  let body: ReactNode = null;
  if (isShell(a.kind)) {
    const command = a.command ?? preview;
    body = (
      <>
        <pre className="approval-command" aria-label="Command">
          {command}
        </pre>
        <Parsed parsed={a.parsed} />
      </>
    );
  } else if (isDelete(a.kind)) {
    body = (
      <p className="approval-trash">
        {a.kind === "delete_root"
          ? "The filesystem root is never deleted, in any mode."
          : "It goes to the system trash, not deleted for good: the Review panel can restore it."}
      </p>
    );
  } else if (isDiff(req)) {
    body = (
      <div className="approval-diff">
        <DiffView diff={preview} {...(paths[0] !== undefined ? { path: paths[0] } : {})} />
      </div>
    );
  } else if (a.kind === "write" || a.kind === "write_protected") {
    body = <p className="approval-note">Foya has no preview of this change.</p>;
  } else if (a.kind === "mcp" || a.kind === "hook") {
    // A hook's ask (docs/hooks.md) shows the call's arguments, as an MCP call's.
    body = preview !== "" ? <Arguments raw={preview} /> : <p className="approval-note">The call has no arguments.</p>;
  }
  if (paths.length > 0) {
    rows.push([paths.length === 1 ? "Path" : "Paths", <PathList paths={paths} />]);
  }
  if (a.kind === "fetch" || a.kind === "fetch_private") {
    if (preview !== "") rows.push(["URL", <code aria-label="URL">{preview}</code>]);
    rows.push(["Host", <code>{a.host || "(no host given)"}</code>]);
  }
  if (a.addresses !== undefined && a.addresses.length > 0) {
    // Asked on every fetch: "allow for this session" is not offered.
    rows.push([
      a.addresses.length === 1 ? "Loopback or private address" : "Loopback or private addresses",
      <span>
        <code>{a.addresses.join(", ")}</code> (asked on every fetch)
      </span>,
    ]);
  }
  if (a.kind === "mcp") {
    // The server and its own name for the tool: whose program runs, not
    // only the registered mcp__server__tool name.
    if (a.mcpServer) rows.push(["MCP server", <code>{a.mcpServer}</code>]);
    if (a.mcpTool) rows.push(["Server's tool", <code>{a.mcpTool}</code>]);
    rows.push(["MCP tool", <span>{mcpNote(a)}</span>]);
  }
  return (
    <div className="approval-what" role="group" aria-label="What it does">
      {rows.length > 0 && (
        <dl className="approval-facts">
          {rows.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      )}
      {body}
    </div>
  );
}

/** Arguments shows an MCP call's arguments as pretty JSON, long values folded until "Show all". */
function Arguments({ raw }: { raw: string }) {
  const shown = showArguments(raw);
  const [all, setAll] = useState(false);
  const long = shown.folded !== shown.whole;
  return (
    <div className="approval-arguments">
      <pre className="approval-command" aria-label="Arguments">
        {all ? shown.whole : shown.folded}
      </pre>
      {!shown.json && raw.endsWith("…") && <p className="approval-note">Foya shows the start of the arguments only: they are longer.</p>}
      {long && (
        <button type="button" className="convo-link approval-link" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? "Fold long values" : "Show all"}
        </button>
      )}
    </div>
  );
}

/**
 * Parsed shows a command as the approval policy read it to decide (the
 * request carries it): every simple command it would run, what deletes for
 * good, what Foya cannot read. A request stored before it was carried has
 * none: the command's text above is all there is.
 */
function Parsed({ parsed }: { parsed: ParsedCommand | undefined }) {
  if (parsed === undefined) return null;
  return (
    <div className="approval-parsed">
      <p className="approval-label">{parsed.simple.length === 1 ? "It runs one command:" : `It runs ${parsed.simple.length} commands:`}</p>
      <ol aria-label="Commands it runs">
        {parsed.simple.map((words, i) => (
          <li key={i}>
            <code>{words.join(" ")}</code>
          </li>
        ))}
      </ol>
      {parsed.deletes.length > 0 && (
        <p className="approval-warning" role="note">
          Deletes files for good: {parsed.deletes.join("; ")}
        </p>
      )}
      {parsed.opaque.length > 0 && (
        <p className="approval-warning" role="note">
          Foya cannot tell what part of it runs: {parsed.opaque.join("; ")}
        </p>
      )}
    </div>
  );
}

function PathList({ paths }: { paths: string[] }) {
  if (paths.length === 1) return <code className="path">{paths[0]}</code>;
  return (
    <ul className="approval-paths">
      {paths.map((p) => (
        <li key={p}>
          <code className="path">{p}</code>
        </li>
      ))}
    </ul>
  );
}
