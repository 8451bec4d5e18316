// Beyond the session: its net change exported as one patch file, and the
// session folder compared with its git repository's last commit ("what
// would I commit"). ReviewPanel puts the actions in its header and the
// comparison below it.
import { useEffect, useState, type ReactNode } from "react";
import { useApi } from "../../backend/context";
import { toApiError } from "../../backend/errors";
import type { GitDiff } from "../../backend/gen/kernel";
import { saveText } from "../../backend/save";
import { DiffView, type DiffMode } from "../../ui/diff";
import { useLoad } from "../useLoad";
import { splitGitDiff } from "./gitdiff";
import "./beyond.css";

type Export = { step: "idle" } | { step: "working" } | { step: "done"; text: string; notes: string[] } | { step: "error"; text: string };

/**
 * useBeyond returns the review panel's "Export patch" and "Compare with git
 * HEAD" buttons (actions, for its header) and what they show (view, below
 * the header): the export's outcome and the comparison, when open.
 */
export function useBeyond(sessionId: string): { actions: ReactNode; view: ReactNode } {
  const api = useApi();
  const [exp, setExp] = useState<Export>({ step: "idle" });
  const [comparing, setComparing] = useState(false);
  // What one session's export said is not another's.
  useEffect(() => setExp({ step: "idle" }), [sessionId]);

  const exportPatch = async () => {
    setExp({ step: "working" });
    try {
      const p = await api.SessionPatch(sessionId);
      if (p.files === 0) {
        setExp({ step: "done", text: "Nothing to export: this session's changes add up to no change to any file.", notes: p.notes });
        return;
      }
      const saved = await saveText(p.name, p.text);
      const files = p.files === 1 ? "1 file" : `${p.files} files`;
      const text =
        saved.kind === "cancelled"
          ? "Export cancelled: nothing saved."
          : saved.kind === "saved"
            ? `Saved the patch of ${files} to ${saved.path}.`
            : `Downloaded ${p.name}: the patch of ${files}. Apply it with git apply in the folder as it was before the session.`;
      setExp({ step: "done", text, notes: p.notes });
    } catch (e) {
      setExp({ step: "error", text: `The patch could not be exported: ${toApiError(e).message}` });
    }
  };

  const actions = (
    <span className="beyond-actions">
      <button type="button" className="review-button" onClick={() => void exportPatch()} disabled={exp.step === "working"}>
        Export patch
      </button>
      <button type="button" className="review-button" aria-pressed={comparing} onClick={() => setComparing(!comparing)}>
        Compare with git HEAD
      </button>
    </span>
  );
  const view = (
    <>
      {exp.step === "working" && <p role="status">Exporting the patch…</p>}
      {exp.step === "error" && (
        <p role="alert" className="review-error">
          {exp.text}
        </p>
      )}
      {exp.step === "done" && (
        <div role="status" className="beyond-note">
          <p>{exp.text}</p>
          {exp.notes.length > 0 && (
            <>
              <p>What the patch leaves out or cannot carry:</p>
              <ul>
                {exp.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            </>
          )}
          <button type="button" className="review-button" onClick={() => setExp({ step: "idle" })}>
            Dismiss
          </button>
        </div>
      )}
      {comparing && <GitHeadView sessionId={sessionId} onClose={() => setComparing(false)} />}
    </>
  );
  return { actions, view };
}

/** GitHeadView shows `git diff HEAD` of the session's folder file by file, and the files git does not track. */
export function GitHeadView(props: { sessionId: string; onClose: () => void }) {
  const api = useApi();
  const load = useLoad(() => api.GitStatusDiff(props.sessionId), [api, props.sessionId]);
  const [mode, setMode] = useState<DiffMode>("unified");
  const g: GitDiff | undefined = load.state.value;
  const files = g === undefined ? [] : splitGitDiff(g.text);
  return (
    <section aria-label="Compare with git HEAD" className="beyond-git">
      <header className="beyond-git-header">
        <h3>Compare with git HEAD</h3>
        {g !== undefined && <span className="review-muted">{g.root}</span>}
        <button type="button" className="review-button" onClick={load.reload} disabled={load.state.status === "loading"}>
          Refresh
        </button>
        <button type="button" className="review-button" onClick={props.onClose}>
          Close comparison
        </button>
      </header>
      {load.state.status === "error" && (
        <p role="alert" className="review-error">
          {load.state.error.message}
        </p>
      )}
      {load.state.status === "loading" && g === undefined && <p role="status">Running git diff HEAD…</p>}
      {g !== undefined && (
        <>
          <p className="review-muted">
            {files.length === 0
              ? "The tracked files match HEAD: git diff HEAD shows nothing to commit."
              : `What committing everything now would commit: ${files.length === 1 ? "1 file differs" : `${files.length} files differ`} from HEAD.`}
          </p>
          {g.truncated === true && (
            <p className="review-note">
              git printed more than the view holds: {formatBytes(g.omitted ?? 0)} left out after the files shown. Run git diff HEAD in a
              terminal to see it all.
            </p>
          )}
          <ul className="beyond-git-files" aria-label="Files that differ from HEAD">
            {files.map((f) => (
              <li key={f.path} aria-label={f.path}>
                <h4 className="review-path">{f.path}</h4>
                <DiffView diff={f.diff} path={f.path} mode={mode} onModeChange={setMode} />
              </li>
            ))}
          </ul>
          {g.untracked.length > 0 && (
            <div className="beyond-untracked">
              <p>Not tracked by git (git diff HEAD leaves them out; git add would add them):</p>
              <ul aria-label="Untracked files">
                {g.untracked.map((p) => (
                  <li key={p} className="review-path">
                    {p}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${Math.round(n / 1024)} KiB` : `${n} bytes`;
}
