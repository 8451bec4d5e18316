// "Apply to the folder": an isolated session's net change brought back
// into its folder (ApplySession, docs/isolated-sessions.md). A preview
// comes first (what would be written, and the conflicts with both diffs),
// each conflict with its own "Take the session's version" choice; nothing
// the folder changed is written over unless that choice is made.
import { useId, useState } from "react";
import { toApiError, useApi } from "../../backend";
import type { ApplyConflict, ApplyResult } from "../../backend/gen/kernel";
import { Button } from "../../ui/Button";
import { Dialog } from "../../ui/Dialog";
import { DiffView } from "../../ui/diff";
import { Notice } from "../../ui/Notice";
import { Spinner } from "../../ui/Spinner";
import { useLoad } from "../useLoad";
import "./isolation.css";

/** sideWords says what one side did to a file since the base. */
export function sideWords(what: string): string {
  switch (what) {
    case "added":
      return "added it";
    case "deleted":
      return "deleted it";
    case "changed":
      return "changed it";
    default:
      return what;
  }
}

/** count says n things in words: "1 file", "3 files". */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * ApplyDialog previews and applies an isolated session's work to its
 * folder. onApplied gets the result once applied.
 */
export function ApplyDialog(props: { sessionId: string; folder: string; open: boolean; onClose: () => void; onApplied?: (r: ApplyResult) => void }) {
  return (
    <Dialog
      open={props.open}
      onOpenChange={(o) => {
        if (!o) props.onClose();
      }}
      title="Apply to the folder"
      description={
        <>
          Brings the session’s changes back into <span className="mono">{props.folder}</span> as uncommitted changes, for you to
          review and commit. Files the folder changed too are left as they are unless you take the session’s version.
        </>
      }
      className="dialog-wide apply-dialog"
    >
      {props.open && (
        <ApplyBody sessionId={props.sessionId} onClose={props.onClose} {...(props.onApplied ? { onApplied: props.onApplied } : {})} />
      )}
    </Dialog>
  );
}

function ApplyBody(props: { sessionId: string; onClose: () => void; onApplied?: (r: ApplyResult) => void }) {
  const api = useApi();
  const preview = useLoad(() => api.ApplySession({ sessionId: props.sessionId, preview: true }), [api, props.sessionId]);
  const [take, setTake] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [done, setDone] = useState<ApplyResult | null>(null);

  if (done !== null) return <Applied result={done} onClose={props.onClose} />;
  const st = preview.state;
  if (st.status === "loading") return <Spinner label="Comparing the session’s copy with the folder…" visible />;
  if (st.status === "error") {
    return (
      <>
        <Notice kind="alert" title="Could not compare the session’s copy with the folder">
          <p className="error-text">{applyError(st.error)}</p>
        </Notice>
        <div className="dialog-actions">
          <Button onClick={props.onClose}>Close</Button>
          <Button variant="primary" onClick={preview.reload}>
            Try again
          </Button>
        </div>
      </>
    );
  }
  const p = st.value;
  const applied = p.applied ?? [];
  const conflicts = p.conflicts ?? [];
  const taken = conflicts.filter((c) => take.has(c.path)).map((c) => c.path);
  const nothing = applied.length === 0 && taken.length === 0;

  const apply = () => {
    setBusy(true);
    setError("");
    api.ApplySession({ sessionId: props.sessionId, ...(taken.length > 0 ? { take: taken } : {}) }).then(
      (r) => {
        setDone(r);
        props.onApplied?.(r);
      },
      (e: unknown) => {
        setBusy(false);
        setError(applyError(e));
      },
    );
  };

  return (
    <div className="apply-body">
      {applied.length === 0 && conflicts.length === 0 ? (
        <p className="apply-empty" role="status">
          Nothing to bring back: the folder has every change the session made
          {(p.same ?? []).length > 0 ? ` (${count(p.same.length, "file is", "files are")} the same on both sides)` : ""}.
        </p>
      ) : (
        <>
          {applied.length > 0 && (
            <section className="apply-section" aria-labelledby="apply-files">
              <h3 id="apply-files">{count(applied.length, "file comes back", "files come back")}</h3>
              <ul className="apply-paths" aria-label="Files it brings back">
                {applied.map((f) => (
                  <li key={f} className="mono">
                    {f}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {conflicts.length > 0 && (
            <section className="apply-section" aria-labelledby="apply-conflicts">
              <h3 id="apply-conflicts">
                {count(conflicts.length, "conflict", "conflicts")}: the folder changed {conflicts.length === 1 ? "this file" : "these files"} too
              </h3>
              <p className="muted apply-hint">
                A conflict stays as the folder has it, unless you take the session’s version: then the folder’s is only in the diff
                below, so copy what you need of it first.
              </p>
              <ul className="apply-conflicts" aria-label="Conflicts">
                {conflicts.map((c) => (
                  <Conflict
                    key={c.path}
                    conflict={c}
                    taken={take.has(c.path)}
                    onTake={(on) =>
                      setTake((t) => {
                        const n = new Set(t);
                        if (on) n.add(c.path);
                        else n.delete(c.path);
                        return n;
                      })
                    }
                  />
                ))}
              </ul>
            </section>
          )}
        </>
      )}
      {error !== "" && (
        <Notice kind="alert">
          <p className="error-text">{error}</p>
        </Notice>
      )}
      <div className="dialog-actions">
        <Button onClick={props.onClose}>Cancel</Button>
        <Button variant="primary" disabled={busy || nothing} onClick={apply}>
          {busy ? "Applying…" : applyLabel(applied.length, taken.length)}
        </Button>
      </div>
    </div>
  );
}

/** applyLabel names the apply button by what it writes. */
export function applyLabel(files: number, taken: number): string {
  if (files === 0 && taken === 0) return "Apply";
  const parts = [files > 0 ? count(files, "file", "files") : "", taken > 0 ? `the session’s version of ${count(taken, "conflict", "conflicts")}` : ""];
  return `Apply ${parts.filter((x) => x !== "").join(" and ")}`;
}

function Conflict(props: { conflict: ApplyConflict; taken: boolean; onTake: (on: boolean) => void }) {
  const c = props.conflict;
  const id = useId();
  return (
    <li className={`apply-conflict${props.taken ? " is-taken" : ""}`} aria-labelledby={`${id}-path`}>
      <div className="apply-conflict-head">
        <span className="mono apply-conflict-path" id={`${id}-path`}>
          {c.path}
        </span>
        <span className="muted apply-conflict-sides">
          The folder {sideWords(c.folder)}; the session {sideWords(c.session)}.
        </span>
        <label className="apply-take">
          <input type="checkbox" checked={props.taken} onChange={(e) => props.onTake(e.target.checked)} />
          Take the session’s version
        </label>
      </div>
      {c.binary ? (
        <p className="muted apply-binary">A binary file: no diff to show.</p>
      ) : (
        <div className="apply-sides">
          <Side title="The folder’s change" diff={c.folderDiff} path={c.path} what={c.folder} />
          <Side title="The session’s change" diff={c.sessionDiff} path={c.path} what={c.session} />
        </div>
      )}
    </li>
  );
}

function Side(props: { title: string; diff: string; path: string; what: string }) {
  return (
    <section className="apply-side" aria-label={`${props.title} to ${props.path}`}>
      <h4>{props.title}</h4>
      {props.diff.trim() === "" ? (
        <p className="muted">{props.what === "deleted" ? "The file is deleted." : "No change to show."}</p>
      ) : (
        <DiffView diff={props.diff} path={props.path} />
      )}
    </section>
  );
}

function Applied(props: { result: ApplyResult; onClose: () => void }) {
  const r = props.result;
  const applied = r.applied ?? [];
  const left = r.conflicts ?? [];
  return (
    <div className="apply-body">
      <Notice kind="status" title={applied.length > 0 ? `Applied ${count(applied.length, "file", "files")}` : "Nothing was written"}>
        <p>
          {applied.length > 0
            ? `They are in ${r.folder} as uncommitted changes: review and commit them there.`
            : "The folder already had what the session changed."}
          {left.length > 0 ? ` ${count(left.length, "conflict stays", "conflicts stay")} as the folder has it.` : ""}
        </p>
      </Notice>
      {applied.length > 0 && (
        <ul className="apply-paths" aria-label="Files applied">
          {applied.map((f) => (
            <li key={f} className="mono">
              {f}
            </li>
          ))}
        </ul>
      )}
      {left.length > 0 && (
        <>
          <h3>Left as the folder has them</h3>
          <ul className="apply-paths" aria-label="Conflicts left">
            {left.map((c) => (
              <li key={c.path} className="mono">
                {c.path}
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="dialog-actions">
        <Button variant="primary" onClick={props.onClose} autoFocus>
          Close
        </Button>
      </div>
    </div>
  );
}

/** applyError says why applying (or its preview) failed, with what to do. */
export function applyError(e: unknown): string {
  const ae = toApiError(e);
  switch (ae.code) {
    case "busy":
      return `The session is busy: ${ae.message}. Wait for it to end (or stop its run), then try again.`;
    case "not_found":
      return `${ae.message}. The session or its copy is gone.`;
    default:
      return ae.message;
  }
}
