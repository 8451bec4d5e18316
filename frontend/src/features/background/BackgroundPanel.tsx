import { useEffect, useId, useState } from "react";
import { X } from "lucide-react";
import { useApi } from "../../backend";
import type { BackgroundCommand, BackgroundOutput } from "../../backend/gen/kernel";
import { Button } from "../../ui/Button";
import { Notice } from "../../ui/Notice";
import { errorText } from "../settings/errors";
import { TaskList } from "../tasks/TaskList";
import { useFollowTail } from "./followTail";
import { sandboxText, sizeText, statusKind, statusText } from "./format";
import { useBackgroundList } from "./useBackgroundList";
import "./background.css";

/** tailLines is how many of a command's last lines the panel shows. */
export const tailLines = 200;

/**
 * BackgroundPanel lists the session's background commands with their
 * status, the end of each one's output (live while it runs) and a button
 * that stops it with its whole process tree; above them, the session's
 * task list (Tasks), which the agent keeps with todo_write.
 */
export function BackgroundPanel(props: { sessionId: string; onClose: () => void }) {
  const { commands, listed, error, refresh, put } = useBackgroundList(props.sessionId);
  const running = commands.filter((c) => c.running).length;

  return (
    <section className="background-panel" aria-labelledby="background-h">
      <header className="background-header">
        <h2 id="background-h">Background commands</h2>
        <button type="button" className="button icon-button" aria-label="Close background commands" onClick={props.onClose}>
          <X aria-hidden size={18} />
        </button>
      </header>
      <TaskList />
      {error !== null && (
        <Notice kind="alert" title="Could not list the background commands">
          <p className="error-text">{error}</p>
          <Button onClick={refresh}>Try again</Button>
        </Notice>
      )}
      {!listed && error === null && <p className="muted">Listing background commands…</p>}
      {listed && commands.length === 0 && (
        <p className="muted">
          No background commands in this session. The agent starts one when it runs bash with run_in_background; it keeps running across turns
          until it ends, is stopped, or the session is deleted.
        </p>
      )}
      {commands.length > 0 && (
        <>
          <p className="muted" role="status">
            {running === 0 ? `${commands.length} ended` : `${running} running, ${commands.length - running} ended`}
          </p>
          <ul className="background-list" aria-label="Background commands of this session">
            {commands.map((c) => (
              <CommandItem key={c.id} sessionId={props.sessionId} command={c} onKilled={put} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function CommandItem(props: { sessionId: string; command: BackgroundCommand; onKilled(c: BackgroundCommand): void }) {
  const api = useApi();
  const c = props.command;
  const headingId = useId();
  const [open, setOpen] = useState(c.running);
  const [killing, setKilling] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const kill = async () => {
    setKilling(true);
    setResult(null);
    try {
      const b = await api.KillBackground(props.sessionId, c.id);
      setResult({
        ok: true,
        text:
          b.killed === true
            ? `${c.id} stopped: ${statusText(b).toLowerCase()}; its whole process tree was ended.`
            : `${c.id} had already ended: ${statusText(b).toLowerCase()}.`,
      });
      props.onKilled(b);
    } catch (e) {
      setResult({ ok: false, text: `${c.id} was not stopped: ${errorText(e)}` });
    } finally {
      setKilling(false);
    }
  };

  return (
    <li className={`bg-command bg-${statusKind(c)}`} aria-labelledby={headingId}>
      <div className="bg-head">
        <h3 id={headingId} className="bg-id">
          {c.id}
        </h3>
        <span className="bg-status">{statusText(c)}</span>
      </div>
      <pre className="bg-command-text">{c.command}</pre>
      <p className="muted bg-facts">
        Started <time dateTime={c.startedAt}>{new Date(c.startedAt).toLocaleTimeString()}</time> · {sandboxText(c)} · printed{" "}
        {sizeText(c.outputBytes)}
      </p>
      <div className="bg-actions">
        <Button aria-expanded={open} onClick={() => setOpen((o) => !o)} aria-label={`${open ? "Hide" : "Show"} output of ${c.id}`}>
          {open ? "Hide output" : "Show output"}
        </Button>
        {c.running && (
          <Button className="danger" onClick={() => void kill()} disabled={killing} aria-label={`Stop ${c.id}`}>
            {killing ? "Stopping…" : "Stop"}
          </Button>
        )}
      </div>
      {result !== null && (
        <p role={result.ok ? "status" : "alert"} className={result.ok ? "result-ok" : "error-text"}>
          {result.text}
        </p>
      )}
      {open && <Tail sessionId={props.sessionId} id={c.id} running={c.running} outputBytes={c.outputBytes} />}
    </li>
  );
}

/**
 * Tail shows the end of a command's output, read again when a
 * background.changed notice says it printed more or ended (outputBytes,
 * running): no timer. It follows the end as the output grows, unless the
 * person scrolled up to read: then "Jump to latest" takes them back.
 */
function Tail(props: { sessionId: string; id: string; running: boolean; outputBytes: number }) {
  const api = useApi();
  const [out, setOut] = useState<BackgroundOutput | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const { sessionId, id, running, outputBytes } = props;
  const tail = useFollowTail<HTMLPreElement>(out?.text);

  useEffect(() => {
    let live = true;
    api.BackgroundOutput(sessionId, id, tailLines).then(
      (o) => {
        if (!live) return;
        setOut(o);
        setError(null);
      },
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [api, sessionId, id, running, outputBytes, tick]);

  if (error !== null) {
    return (
      <div role="alert" className="error-text">
        <p>Could not read the output of {id}: {error}</p>
        <Button
          onClick={() => {
            setError(null);
            setTick((n) => n + 1);
          }}
        >
          Try again
        </Button>
      </div>
    );
  }
  if (out === null) return <p className="muted">Reading the output…</p>;
  return (
    <div className="bg-tail">
      {out.omitted > 0 && (
        <p className="muted">
          {sizeText(out.omitted)} printed earlier {out.omitted === 1 ? "is" : "are"} not shown; the last {tailLines} lines at most are.
        </p>
      )}
      {out.binary === true ? (
        <p className="muted">The output's end is binary, not text: it is not shown.</p>
      ) : out.text === "" ? (
        <p className="muted">No output yet.</p>
      ) : (
        <pre ref={tail.ref} onScroll={tail.onScroll} className="bg-output" tabIndex={0} role="log" aria-label={`Output of ${id}`}>
          {out.text}
        </pre>
      )}
      {!tail.following && out.text !== "" && (
        <Button onClick={tail.jump} aria-label={`Jump to latest output of ${id}`}>
          Jump to latest
        </Button>
      )}
    </div>
  );
}
