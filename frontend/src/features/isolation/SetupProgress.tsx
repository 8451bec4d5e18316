// An isolated session's copy above its conversation: the setup command's
// progress with its output as it prints it (isolation.setup events), and
// what the copy lacks (the folder's uncommitted changes a worktree leaves
// out; submodules not checked out).
import { ChevronDown, ChevronRight } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import type { Session } from "../../backend";
import { Spinner } from "../../ui/Spinner";
import { useSession } from "../session/hooks";
import type { SetupState } from "./reducer";
import "./isolation.css";

/** seconds says a duration in ms as people read it: "under a second", "1.4 s", "12 s", "2 min 5 s". */
export function seconds(ms: number): string {
  if (ms < 1000) return "under a second";
  if (ms < 10_000) return `${Math.round(ms / 100) / 10} s`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** setupTitle says where the setup command is, in words. */
export function setupTitle(st: SetupState): string {
  switch (st.state) {
    case "running":
      return "Setting up the isolated copy…";
    case "succeeded":
      return `Setup finished${st.durationMs > 0 ? ` in ${seconds(st.durationMs)}` : ""}`;
    case "failed":
      return st.exitCode !== undefined ? `Setup failed with exit status ${st.exitCode}` : "Setup failed";
    default:
      return "";
  }
}

/** IsolationNotes is what an isolated session shows above its conversation (nothing for a session in its folder). */
export function IsolationNotes(props: { session: Session }) {
  const iso = props.session.isolation;
  const setup = useSession((s) => s.isolation.setup);
  const gone = useSession((s) => s.isolation.discarded !== "");
  if (iso === undefined) return null;
  const uncommitted = iso.uncommitted ?? [];
  const discarded = gone || (iso.discardedAt ?? "") !== "";
  if (setup.state === "" && uncommitted.length === 0 && (iso.note ?? "") === "") return null;
  return (
    <div className="isolation-notes">
      {setup.state !== "" && <SetupBox setup={setup} />}
      {!discarded && uncommitted.length > 0 && (
        <details className="isolation-note">
          <summary>
            The folder had {uncommitted.length === 1 ? "1 uncommitted change" : `${uncommitted.length} uncommitted changes`}
            {uncommitted.length >= 200 ? " or more" : ""} that this worktree does not have: {uncommitted.length === 1 ? "it stays" : "they stay"}{" "}
            in the folder.
          </summary>
          <p className="muted">
            The worktree starts at the last commit. Applying treats these files as the folder’s own changes: where the session changes
            one too, it is a conflict, never an overwrite.
          </p>
          <ul className="isolation-paths" aria-label="Uncommitted paths left in the folder">
            {uncommitted.map((p) => (
              <li key={p} className="mono">
                {p}
              </li>
            ))}
          </ul>
        </details>
      )}
      {!discarded && (iso.note ?? "") !== "" && (
        <p className="isolation-note isolation-lack" role="note">
          {iso.note}
        </p>
      )}
    </div>
  );
}

/**
 * SetupBox shows the setup command: a spinner and its output following
 * the end while it runs; its outcome after, the output folded (open when
 * it failed).
 */
function SetupBox(props: { setup: SetupState }) {
  const st = props.setup;
  const running = st.state === "running";
  const failed = st.state === "failed";
  // Open while it runs and when it failed; a person's choice wins after.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? (running || failed);
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const el = pre.current;
    if (el !== null && running) el.scrollTop = el.scrollHeight;
  }, [st.output, running]);
  const title = setupTitle(st);
  return (
    <section className={`setup-box setup-${st.state}`} aria-label="Setup command">
      <div className="setup-head">
        <button type="button" className="setup-toggle" aria-expanded={open} onClick={() => setChosen(!open)}>
          {open ? <ChevronDown size={14} aria-hidden="true" /> : <ChevronRight size={14} aria-hidden="true" />}
          {running ? <Spinner label={title} visible /> : <span className="setup-title">{title}</span>}
        </button>
        {/* The outcome is announced once, when it comes (the spinner says it runs). */}
        <span className="visually-hidden" role="status">
          {running ? "" : title}
        </span>
        <code className="setup-command" title={st.command}>
          {st.command}
        </code>
      </div>
      {running && <p className="setup-wait muted">Runs wait until it ends: a message you send now is sent then.</p>}
      {failed && (
        <p className="setup-error">
          {st.error !== "" ? `${st.error}. ` : ""}The session can still run: you or the model can mend what setup left undone.
        </p>
      )}
      {open && (
        <pre ref={pre} className="setup-output" role="log" aria-label="Setup output" tabIndex={0}>
          {st.cut ? "…\n" : ""}
          {st.output !== "" ? st.output : running ? "(no output yet)" : "(no output)"}
        </pre>
      )}
    </section>
  );
}
