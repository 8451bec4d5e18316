// Settings → Isolated copies: every isolated session's copy on disk with
// the disk it takes (SessionCopies), each with its session to open, or
// marked as an orphan (no session recorded) with Remove (RemoveOrphanCopy).
import { Copy, GitBranch, RefreshCw } from "lucide-react";
import { useState } from "react";
import { toApiError, useApi, type Session } from "../../backend";
import type { SessionCopy } from "../../backend/gen/kernel";
import { Button } from "../../ui/Button";
import { ErrorNotice } from "../../ui/ErrorNotice";
import { IconButton } from "../../ui/IconButton";
import { Spinner } from "../../ui/Spinner";
import { titleOf } from "../sessions/search";
import { formatBytes } from "../settings/units";
import { useLoad } from "../useLoad";
import "./isolation.css";

interface Listed {
  copies: SessionCopy[];
  sessions: Map<string, Session>;
}

/** CopiesSettings lists the isolated copies; onOpenSession opens a copy's session (Settings closes). */
export function CopiesSettings(props: { onOpenSession?: (id: string) => void }) {
  const api = useApi();
  const loaded = useLoad(async (): Promise<Listed> => {
    const [copies, sessions] = await Promise.all([api.SessionCopies(), api.Sessions()]);
    return { copies: copies ?? [], sessions: new Map((sessions ?? []).map((s) => [s.id, s])) };
  }, [api]);
  const st = loaded.state;
  const total = (st.value?.copies ?? []).reduce((n, c) => n + c.bytes, 0);
  return (
    <section className="settings-section copies-settings" aria-labelledby="copies-title">
      <div className="copies-head">
        <h3 id="copies-title">Isolated copies</h3>
        <IconButton label="List again" icon={<RefreshCw size={15} />} onClick={loaded.reload} />
      </div>
      <p className="muted">
        An isolated session works in a git worktree or a copy of its folder, beside Foya’s data folder. Discarding or deleting the
        session removes its copy; a copy with no session (an orphan) is removed at the next start, or now with Remove.
      </p>
      {st.status === "loading" && st.value === undefined && <Spinner label="Measuring the copies…" visible />}
      {st.status === "error" && <ErrorNotice title="Could not list the copies" error={st.error.message} onRetry={loaded.reload} />}
      {st.value !== undefined &&
        (st.value.copies.length === 0 ? (
          <p className="copies-empty" role="status">
            No isolated copies: every session works in its folder, or its copy was discarded.
          </p>
        ) : (
          <>
            <p className="copies-total" role="status">
              {st.value.copies.length === 1 ? "1 copy" : `${st.value.copies.length} copies`} taking {formatBytes(String(total))}{" "}
              <span className="muted">(as du counts it: a cloned file counts whole though it shares its blocks until changed)</span>
            </p>
            <ul className="copies" aria-label="Isolated copies">
              {st.value.copies.map((c) => (
                <CopyRow key={c.sessionId} copy={c} session={st.value!.sessions.get(c.sessionId)} onOpen={props.onOpenSession} onRemoved={loaded.reload} />
              ))}
            </ul>
          </>
        ))}
    </section>
  );
}

function CopyRow(props: { copy: SessionCopy; session: Session | undefined; onOpen: ((id: string) => void) | undefined; onRemoved: () => void }) {
  const api = useApi();
  const c = props.copy;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const remove = () => {
    setBusy(true);
    setError("");
    api.RemoveOrphanCopy(c.sessionId).then(
      () => props.onRemoved(),
      (e: unknown) => {
        setBusy(false);
        setError(`Could not remove it: ${toApiError(e).message}`);
      },
    );
  };
  const name = c.orphan ? "Orphan copy" : props.session !== undefined ? titleOf(props.session) : c.sessionId;
  return (
    <li className={`copy-row${c.orphan ? " is-orphan" : ""}`} aria-label={`${name}: ${formatBytes(String(c.bytes))}`}>
      <span className="copy-kind" title={c.kind === "worktree" ? "Git worktree" : "Copy of the folder"}>
        {c.kind === "worktree" ? <GitBranch size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
      </span>
      <span className="copy-what">
        <span className="copy-name">
          {name}
          {c.orphan && <span className="copy-orphan"> · no session</span>}
        </span>
        <span className="copy-where mono" title={c.dir}>
          {c.folder}
          {c.branch !== undefined && c.branch !== "" ? ` · ${c.branch}` : ""}
        </span>
        {error !== "" && (
          <span className="field-error" role="alert">
            {error}
          </span>
        )}
      </span>
      <span className="copy-size">{formatBytes(String(c.bytes))}</span>
      {c.orphan ? (
        <Button variant="danger" disabled={busy} onClick={remove} aria-label={`Remove the orphan copy ${c.dir}`}>
          {busy ? "Removing…" : "Remove"}
        </Button>
      ) : (
        <Button disabled={props.onOpen === undefined} onClick={() => props.onOpen?.(c.sessionId)} aria-label={`Open ${name}`}>
          Open
        </Button>
      )}
    </li>
  );
}
