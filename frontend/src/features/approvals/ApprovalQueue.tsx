// The approval queue of the open session: a modal dialog for the oldest
// waiting request (what it does, why Foya asks, the answers), a count when
// several wait, and a docked "N waiting" button when the person closes the
// dialog with Escape. Requests come from the store (usePendingApprovals);
// answers go out through the Answer call and leave the queue when their
// approval.answer arrives.
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { Dialog } from "radix-ui";
import { ApiError, useApi } from "../../backend";
import { permission, requestPermission, type Permission } from "../../backend/attention";
import type { ApprovalRequestData } from "../../backend/gen/event";
import type { ParsedCommand } from "../../backend/gen/event";
import type { Answer } from "../../backend/gen/kernel";
import { DiffView } from "../../ui/diff";
import { usePendingApprovals } from "../session/hooks";
import { useWaitingAlert } from "./useWaitingAlert";
import { isDelete, isDiff, isShell, mcpNote, scopeWords, title } from "./words";
import "./approvals.css";

/**
 * GUARD_MS is how long a request's dialog ignores key presses and clicks
 * after it shows, so that a keystroke meant for the composer (Enter, a
 * space) never answers a request that just appeared.
 */
export const GUARD_MS = 500;

/** ApprovalQueue shows the session's waiting approval requests; it renders nothing when none wait. */
export function ApprovalQueue(props: { sessionId: string }) {
  // Keyed by session: a switch of session starts with a fresh queue state.
  return <Queue key={props.sessionId} />;
}

function Queue() {
  const pending = usePendingApprovals();
  const api = useApi();
  // Answered here and accepted by the kernel, until their approval.answer
  // takes them out of the store: never shown twice.
  const [sent, setSent] = useState<ReadonlySet<string>>(() => new Set());
  const [docked, setDocked] = useState(false);
  const [alertError, setAlertError] = useState("");
  const waiting = pending.filter((p) => !sent.has(p.id));
  const onAlertError = useCallback((msg: string) => setAlertError(msg), []);
  useWaitingAlert(waiting, onAlertError);

  const empty = waiting.length === 0;
  useEffect(() => {
    if (empty) setDocked(false); // the next request opens the dialog again
  }, [empty]);

  const answer = useCallback(
    async (id: string, a: Answer): Promise<void> => {
      try {
        await api.Answer(id, a);
      } catch (e) {
        // The kernel no longer waits for it (answered elsewhere, or the run
        // was cancelled): it is gone, the conversation shows its outcome.
        if (!(e instanceof ApiError && e.code === "conflict")) throw e;
      }
      setSent((s) => new Set(s).add(id));
    },
    [api],
  );

  const head = waiting[0];
  if (head === undefined) return null;
  const count = waiting.length;
  if (docked) {
    return (
      <div className="approval-dock" role="region" aria-label="Approvals">
        <button type="button" className="button approval-dock-button" onClick={() => setDocked(false)}>
          {count === 1 ? "1 approval waiting" : `${count} approvals waiting`}: show
        </button>
      </div>
    );
  }
  return (
    <RequestDialog
      key={head.id}
      req={head}
      count={count}
      onAnswer={answer}
      onDock={() => setDocked(true)}
      alertError={alertError}
    />
  );
}

interface RequestProps {
  req: ApprovalRequestData;
  count: number;
  onAnswer: (id: string, a: Answer) => Promise<void>;
  onDock: () => void;
  alertError: string;
}

/**
 * RequestDialog is one request's dialog. It is keyed by request ID, so
 * its state (the chosen scope, the message, the key guard) starts afresh
 * for each request.
 */
function RequestDialog({ req, count, onAnswer, onDock, alertError }: RequestProps) {
  const content = useRef<HTMLDivElement>(null);
  const [armed, setArmed] = useState(false);
  const armedRef = useRef(false);
  const [scope, setScope] = useState(0);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const ids = useId();
  const scopes = req.scopes ?? [];
  const action = req.request.action;

  useEffect(() => {
    const t = setTimeout(() => {
      armedRef.current = true;
      setArmed(true);
    }, GUARD_MS);
    return () => clearTimeout(t);
  }, []);

  const send = async (a: Answer) => {
    if (!armedRef.current || busy) return;
    setBusy(true);
    setError("");
    try {
      await onAnswer(req.id, a);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      setError(msg);
      setBusy(false);
    }
  };

  // Swallow every key press while the guard holds, so neither Enter nor
  // Tab reaches a button (Escape is handled by onEscapeKeyDown below).
  const guard = (e: KeyboardEvent) => {
    if (!armedRef.current && e.key !== "Escape") {
      e.preventDefault();
      e.stopPropagation();
    }
  };

  const chosen = scopes[scope];
  const coversId = `${ids}-covers`;
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onDock()}>
      <Dialog.Portal>
        <Dialog.Overlay className="approval-overlay" />
        <Dialog.Content
          ref={content}
          className="approval-dialog"
          data-armed={armed ? "true" : "false"}
          onOpenAutoFocus={(e) => {
            // Focus the dialog itself, never a button: a key press that
            // lands here answers nothing.
            e.preventDefault();
            content.current?.focus();
          }}
          onEscapeKeyDown={(e) => {
            e.preventDefault();
            if (armedRef.current) onDock();
          }}
          onPointerDownOutside={(e) => e.preventDefault()}
          onKeyDownCapture={guard}
          onKeyUpCapture={guard}
        >
          <header className="approval-header">
            <Dialog.Title className="approval-title">{title(action)}</Dialog.Title>
            {count > 1 && (
              <p className="approval-count" aria-live="polite">
                1 of {count} waiting
              </p>
            )}
            <button type="button" className="button approval-later" onClick={() => armedRef.current && onDock()}>
              Answer later
            </button>
          </header>
          {/* The request scrolls inside the dialog; the header and the answers stay in view. */}
          <div className="approval-body">
            <Dialog.Description className="approval-why">{req.request.why}</Dialog.Description>
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

            {scopes.length > 0 && (
              <fieldset className="approval-scopes">
                <legend>"Allow for this session" covers</legend>
                {scopes.map((g, i) => {
                  const w = scopeWords(g);
                  const id = `${ids}-scope-${i}`;
                  return (
                    <div className="approval-scope" key={id}>
                      <input
                        type="radio"
                        id={id}
                        name={`${ids}-scope`}
                        checked={scope === i}
                        onChange={() => setScope(i)}
                        aria-describedby={`${id}-covers`}
                      />
                      <label htmlFor={id}>
                        <Coded text={w.label} />
                      </label>
                      <p id={`${id}-covers`} className="approval-covers">
                        <Coded text={w.covers} />
                      </p>
                    </div>
                  );
                })}
              </fieldset>
            )}

            {alertError !== "" && <p className="approval-note">No notification was shown: {alertError}.</p>}
            <NotifyOffer />
          </div>

          <footer className="approval-footer">
            <label className="approval-message">
              <span>Message to the model if you deny (optional)</span>
              <textarea value={message} rows={2} onChange={(e) => setMessage(e.target.value)} />
            </label>

            {error !== "" && (
              <div className="notice notice-alert" role="alert">
                Foya could not send your answer: {error}. Try again; if the run has ended, the request no longer waits.
              </div>
            )}
            <div className="approval-actions" aria-busy={busy}>
              <button
                type="button"
                className="button approval-deny"
                aria-disabled={!armed || busy}
                onClick={() => {
                  const m = message.trim();
                  void send(m === "" ? { choice: "deny" } : { choice: "deny", message: m });
                }}
              >
                Deny
              </button>
              {chosen !== undefined && (
                <button
                  type="button"
                  className="button"
                  aria-disabled={!armed || busy}
                  aria-describedby={coversId}
                  onClick={() => void send({ choice: "allow_session", scope: chosen })}
                >
                  Allow for this session
                </button>
              )}
              <button
                type="button"
                className="button approval-allow"
                aria-disabled={!armed || busy}
                onClick={() => void send({ choice: "allow_once" })}
              >
                Allow once
              </button>
            </div>
            {chosen !== undefined && (
              <p id={coversId} className="approval-covers approval-chosen">
                For this session: <Coded text={scopeWords(chosen).covers} />
              </p>
            )}
          </footer>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
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
  const rows: [string, ReactNode][] = [["Tool", <code>{a.tool}</code>]];
  let body: ReactNode = null;
  if (isShell(a.kind)) {
    const command = a.command ?? req.request.preview ?? "";
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
        <DiffView diff={req.request.preview ?? ""} {...(paths[0] !== undefined ? { path: paths[0] } : {})} />
      </div>
    );
  } else if (a.kind === "write" || a.kind === "write_protected") {
    body = <p className="approval-note">Foya has no preview of this change.</p>;
  }
  if (paths.length > 0) {
    rows.push([paths.length === 1 ? "Path" : "Paths", <PathList paths={paths} />]);
  }
  if (a.kind === "fetch" || a.kind === "fetch_private" || (a.host !== undefined && a.host !== "")) {
    rows.push(["Host", <code>{a.host ?? "(no host given)"}</code>]);
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
    // The server and its own name for the tool: whose
    // program runs, not only the registered mcp__server__tool name.
    if (a.mcpServer !== undefined && a.mcpServer !== "") {
      rows.push(["MCP server", <code>{a.mcpServer}</code>]);
    }
    if (a.mcpTool !== undefined && a.mcpTool !== "") {
      rows.push(["Server's tool", <code>{a.mcpTool}</code>]);
    }
    rows.push(["MCP tool", <span>{mcpNote(a)}</span>]);
  }
  return (
    <section className="approval-what" aria-label="What it does">
      <dl className="approval-facts">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {body}
    </section>
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

/** NotifyOffer asks, in a browser that has not been asked yet, to notify when an approval waits. */
function NotifyOffer() {
  const [p, setP] = useState<Permission>(() => permission());
  if (p !== "default") return null;
  return (
    <p className="approval-note">
      <button type="button" className="button approval-link" onClick={() => void requestPermission().then(setP)}>
        Notify me when an approval waits
      </button>{" "}
      (when this page is in the background)
    </p>
  );
}
