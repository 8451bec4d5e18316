import { FolderOpen } from "lucide-react";
import { useId, useRef, useState, type FormEvent } from "react";
import { toApiError, useApi, useTransport, type Session } from "../../backend";
import type { Provider } from "../../backend/gen/profiles";
import { Button } from "../../ui/Button";
import { Dialog } from "../../ui/Dialog";
import { Notice } from "../../ui/Notice";
import { Spinner } from "../../ui/Spinner";
import { modeHint, modeLabel, modes, toMode, type Mode } from "./modes";
import { maxTitle } from "./SessionList";
import { useLoad } from "../useLoad";

/** Choices is what the dialog loads before it can offer a choice. */
interface Choices {
  providers: Provider[];
  mode: Mode;
  /** error says why the providers or the default mode could not be read. */
  error: string;
}

/**
 * validate checks the form before it is sent and returns what is wrong, by
 * field ("" when nothing). The kernel checks again (the folder must exist).
 */
export function validate(f: { folder: string; title: string; model: string; branch?: string }): {
  folder: string;
  title: string;
  model: string;
  branch: string;
} {
  const folder = f.folder.trim();
  return {
    branch: branchProblem(f.branch ?? ""),
    folder:
      folder === ""
        ? "Choose the folder the session works in."
        : !isAbsolute(folder)
          ? `“${folder}” is not a full path: start it with / or ~ (or a drive letter such as C:\\).`
          : "",
    title: [...f.title.trim()].length > maxTitle ? `A title is at most ${maxTitle} characters.` : "",
    model: /\s/.test(f.model.trim()) ? "A model name has no spaces." : "",
  };
}

// completeAfterMs is how long typing pauses before the folder is completed.
const completeAfterMs = 120;

// pause resolves after ms, or rejects once signal is aborted (typing went on).
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });
}

/**
 * branchProblem says what is wrong with a branch name for an isolated
 * worktree ("" when nothing, or when it is empty: Foya names it). Git checks
 * again (git check-ref-format); this catches what a person types by mistake.
 */
export function branchProblem(b: string): string {
  const name = b.trim();
  if (name === "") return "";
  if (/\s/.test(name)) return "A branch name has no spaces.";
  if (name.startsWith("-") || name.startsWith("/") || name.endsWith("/") || name.endsWith(".") || name.endsWith(".lock"))
    return "A branch name cannot start with - or /, nor end with /, . or .lock.";
  if (name.includes("..") || name.includes("//") || name.includes("@{") || /[~^:?*[\\\x00-\x1f\x7f]/.test(name))
    return "A branch name cannot hold .., //, @{, nor any of ~ ^ : ? * [ \\.";
  return "";
}

function isAbsolute(p: string): boolean {
  return p.startsWith("/") || p === "~" || p.startsWith("~/") || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("\\\\");
}

/**
 * CreateSessionDialog asks for a new session's folder (the system's folder
 * dialog on the desktop, a path field completed by CompletePath), title,
 * provider profile and model (from Providers; the environment's model
 * server when there is none) and approval mode (the DefaultMode, Manual
 * when that cannot be read), then creates it (CreateSession).
 */
export function CreateSessionDialog(props: { open: boolean; onClose: () => void; onCreated: (s: Session) => void; provider?: string | undefined }) {
  return (
    <Dialog
      open={props.open}
      onOpenChange={(o) => {
        if (!o) props.onClose();
      }}
      title="New session"
      description="A session works in one folder, with one model, under one approval mode."
      className="dialog-wide"
    >
      {props.open && <CreateForm onClose={props.onClose} onCreated={props.onCreated} provider={props.provider} />}
    </Dialog>
  );
}

function CreateForm(props: { onClose: () => void; onCreated: (s: Session) => void; provider?: string | undefined }) {
  const api = useApi();
  const transport = useTransport();
  const ids = { folder: useId(), title: useId(), provider: useId(), model: useId(), list: useId(), err: useId(), branch: useId() };
  const [folder, setFolder] = useState("");
  const [title, setTitle] = useState("");
  // What the person picked; null until they do, and the defaults show.
  const [providerPick, setProvider] = useState<string | null>(null);
  const [modelPick, setModel] = useState<string | null>(null);
  const [modePick, setMode] = useState<Mode | null>(null);
  const [isolated, setIsolated] = useState(false);
  const [branch, setBranch] = useState("");
  const branchInput = useRef<HTMLInputElement>(null);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const folderInput = useRef<HTMLInputElement>(null);

  // The profiles and the default mode; either may fail, and the dialog still
  // works (no profile: the environment's server; no default: Manual).
  const loaded = useLoad(async (): Promise<Choices> => {
    const [p, m] = await Promise.allSettled([api.Providers(), api.DefaultMode()]);
    const providers = p.status === "fulfilled" ? (p.value ?? []) : [];
    const def = m.status === "fulfilled" ? toMode(m.value) : null;
    const errors = [
      p.status === "rejected" ? `the provider profiles could not be read (${toApiError(p.reason).message})` : "",
      m.status === "rejected" ? `the default mode could not be read (${toApiError(m.reason).message}), so Manual is chosen` : "",
    ].filter((e) => e !== "");
    return { providers, mode: def ?? "manual", error: errors.join("; ") };
  }, [api]);
  const choices = loaded.state.value ?? null;
  // The form starts from the profile it was given (one just saved), else
  // the default profile (its model), and the default mode.
  const first =
    choices?.providers.find((x) => x.name === props.provider) ?? choices?.providers.find((x) => x.default === true) ?? choices?.providers[0];
  const provider = providerPick ?? first?.name ?? "";
  const model = modelPick ?? first?.model ?? "";
  const mode: Mode = modePick ?? choices?.mode ?? "manual";

  // Completion of the typed folder: the kernel lists the folders it could be,
  // once typing pauses. Completion is a help: without it (it failed) the
  // field still works.
  const completion = useLoad(
    async (signal) => {
      const typed = folder.trim();
      if (typed === "" || !isAbsolute(typed)) return [];
      await pause(completeAfterMs, signal);
      return ((await api.CompletePath(typed)) ?? []).filter((x) => x !== typed);
    },
    [api, folder],
    { keep: true },
  );
  const completions = completion.state.status === "error" ? [] : (completion.state.value ?? []);

  const problems = validate({ folder, title, model, branch: isolated ? branch : "" });
  const invalid = problems.folder !== "" || problems.title !== "" || problems.model !== "" || problems.branch !== "";

  const pick = async () => {
    if (transport.pickFolder === null) return;
    try {
      const dir = await transport.pickFolder();
      if (dir !== null) setFolder(dir);
    } catch (e) {
      setError(`The folder dialog did not open: ${toApiError(e).message}. Type the folder's path instead.`);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (invalid || busy) {
      if (problems.folder !== "") folderInput.current?.focus();
      else if (problems.branch !== "") branchInput.current?.focus();
      return;
    }
    setBusy(true);
    setError("");
    api
      .CreateSession({
        workdir: folder.trim(),
        approvalMode: mode,
        ...(provider !== "" ? { provider } : {}),
        ...(model.trim() !== "" ? { model: model.trim() } : {}),
        ...(title.trim() !== "" ? { title: title.trim() } : {}),
        ...(isolated ? { isolation: "auto", ...(branch.trim() !== "" ? { branch: branch.trim() } : {}) } : {}),
      })
      .then(
        (s) => props.onCreated(s),
        (err: unknown) => {
          setBusy(false);
          const ae = toApiError(err);
          // The kernel's words say what to do (a branch that exists, a copy
          // that would not fit, a folder with no repository for a branch).
          setError(
            isolated
              ? `Could not make the isolated copy: ${ae.message}.`
              : ae.code === "invalid"
                ? `${ae.message}. Check the folder exists and is a folder, then try again.`
                : `Could not create the session: ${ae.message}`,
          );
          if (isolated && ae.code === "conflict" && branch.trim() !== "") branchInput.current?.focus();
        },
      );
  };

  if (choices === null) {
    return <Spinner label="Loading provider profiles…" visible />;
  }
  const chosen = choices.providers.find((p) => p.name === provider);
  const showFolderError = touched && problems.folder !== "";

  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={ids.folder}>Folder</label>
        <div className="field-row">
          <input
            ref={folderInput}
            id={ids.folder}
            className="input mono"
            list={ids.list}
            autoComplete="off"
            spellCheck={false}
            placeholder={transport.pickFolder !== null ? "Choose a folder, or type its path" : "/home/you/project"}
            value={folder}
            aria-invalid={showFolderError ? true : undefined}
            aria-describedby={showFolderError ? `${ids.folder}-err` : undefined}
            onChange={(e) => setFolder(e.target.value)}
            autoFocus
          />
          {transport.pickFolder !== null && (
            <Button onClick={() => void pick()}>
              <FolderOpen size={16} aria-hidden="true" /> Choose…
            </Button>
          )}
        </div>
        <datalist id={ids.list}>
          {completions.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        {showFolderError && (
          <p className="field-error" id={`${ids.folder}-err`}>
            {problems.folder}
          </p>
        )}
      </div>

      <div className="field">
        <label htmlFor={ids.title}>Title (optional)</label>
        <input
          id={ids.title}
          className="input"
          placeholder="New session"
          value={title}
          aria-invalid={problems.title !== "" ? true : undefined}
          onChange={(e) => setTitle(e.target.value)}
        />
        {problems.title !== "" && <p className="field-error">{problems.title}</p>}
      </div>

      <div className="field-pair">
        <div className="field">
          <label htmlFor={ids.provider}>Provider profile</label>
          {choices.providers.length === 0 ? (
            <p className="field-static" id={ids.provider}>
              The environment’s model server (no profile is set up; add one in Settings)
            </p>
          ) : (
            <select
              id={ids.provider}
              className="input"
              value={provider}
              onChange={(e) => {
                const p = choices.providers.find((x) => x.name === e.target.value);
                setProvider(e.target.value);
                if (p !== undefined) setModel(p.model);
              }}
            >
              {choices.providers.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                  {p.default === true ? " (default)" : ""}
                </option>
              ))}
            </select>
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.model}>Model</label>
          <input
            id={ids.model}
            className="input mono"
            spellCheck={false}
            placeholder={chosen?.model || "the environment’s model"}
            value={model}
            aria-invalid={problems.model !== "" ? true : undefined}
            onChange={(e) => setModel(e.target.value)}
          />
          {problems.model !== "" && <p className="field-error">{problems.model}</p>}
        </div>
      </div>

      <fieldset className="field isolation-choice">
        <legend>Where it works</legend>
        <div className="isolation-options">
          <label className="mode-choice">
            <input type="radio" name="isolation" value="" checked={!isolated} onChange={() => setIsolated(false)} />
            <span>
              <span className="mode-choice-name">Work in the folder</span>
              <span className="mode-choice-hint">Edits the folder itself, as you see it.</span>
            </span>
          </label>
          <label className="mode-choice">
            <input type="radio" name="isolation" value="auto" checked={isolated} onChange={() => setIsolated(true)} />
            <span>
              <span className="mode-choice-name">Isolated copy</span>
              <span className="mode-choice-hint">
                A git worktree on a new branch (in a repository), else a copy. Its work comes back when you apply it.
              </span>
            </span>
          </label>
        </div>
        {isolated && (
          <div className="field isolation-branch">
            <label htmlFor={ids.branch}>Branch (optional, for a repository)</label>
            <input
              ref={branchInput}
              id={ids.branch}
              className="input mono"
              spellCheck={false}
              autoComplete="off"
              placeholder="foya/<session ID>"
              value={branch}
              aria-invalid={problems.branch !== "" ? true : undefined}
              aria-describedby={problems.branch !== "" ? `${ids.branch}-err` : `${ids.branch}-hint`}
              onChange={(e) => setBranch(e.target.value)}
            />
            {problems.branch !== "" ? (
              <p className="field-error" id={`${ids.branch}-err`}>
                {problems.branch}
              </p>
            ) : (
              <p className="field-hint muted" id={`${ids.branch}-hint`}>
                The worktree starts at the last commit: uncommitted changes stay in the folder. Leave empty for a copy.
              </p>
            )}
          </div>
        )}
      </fieldset>

      <fieldset className="field modes">
        <legend>Approval mode</legend>
        {modes.map((m) => (
          <label key={m} className={`mode-choice mode-${m}`}>
            <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
            <span>
              <span className="mode-choice-name">
                {modeLabel[m]}
                {m === choices.mode ? " (default)" : ""}
              </span>
              <span className="mode-choice-hint">{modeHint[m]}</span>
            </span>
          </label>
        ))}
      </fieldset>

      {choices.error !== "" && (
        <Notice kind="status">
          <p>Note: {choices.error}.</p>
        </Notice>
      )}
      {error !== "" && (
        <Notice kind="alert">
          <p className="error-text">{error}</p>
        </Notice>
      )}
      <div className="dialog-actions">
        <Button onClick={props.onClose}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Creating…" : "Create session"}
        </Button>
      </div>
    </form>
  );
}
