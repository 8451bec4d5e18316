import { useCallback, useEffect, useState, type ReactNode } from "react";
import { AlertDialog } from "radix-ui";
import { useApi } from "../../backend";
import type { HookInfo, Hooks, HooksFile } from "../../backend/gen/kernel";
import { Button } from "../../ui/Button";
import { ErrorNotice } from "../../ui/ErrorNotice";
import { errorText } from "./errors";
import { useSessionWorkdir } from "./workdir";
import { Result } from "./ModeSettings";

type Load = { status: "loading" } | { status: "error"; message: string } | { status: "ready"; hooks: Hooks };

/** statusWords says whether a hooks file's hooks run, in words (docs/hooks.md). */
export function statusWords(f: HooksFile): string {
  switch (f.status) {
    case "none":
      return "No file.";
    case "active":
      return "Its hooks run, outside the sandbox unless a hook asks for it.";
    case "approved":
      return "Approved by you: its hooks run, in the sandbox.";
    case "unapproved":
      return "Not approved: its hooks do not run until you approve this exact content.";
    case "changed":
      return "Changed since you approved it: its hooks do not run until you approve the new content.";
    case "invalid":
      return `It cannot be used, so none of its hooks runs: ${f.error ?? ""}`;
    case "exposed":
      return `Not run: ${f.error ?? ""}`;
  }
  return f.status;
}

/**
 * HookSettings is the "Hooks" section: the user's own hooks file and, for
 * the open session's folder, the project's .foya/hooks.json, each with its
 * hooks and whether they run; a project's file is approved here after its
 * exact content was shown (the hash of what was shown is what is
 * approved), or its approval revoked.
 */
export function HookSettings(props: { sessionId: string | null }) {
  const api = useApi();
  const workdir = useSessionWorkdir(props.sessionId);
  const [load, setLoad] = useState<Load>({ status: "loading" });
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const [reviewing, setReviewing] = useState(false);

  const reload = useCallback(() => {
    if (workdir === null) return Promise.resolve();
    return api.Hooks(workdir).then(
      (hooks) => setLoad({ status: "ready", hooks }),
      (e: unknown) => setLoad({ status: "error", message: errorText(e) }),
    );
  }, [api, workdir]);

  useEffect(() => {
    void reload();
  }, [reload]);

  if (load.status === "loading" || workdir === null) return <p className="muted">Loading hooks…</p>;
  if (load.status === "error") return <ErrorNotice title="Could not load the hooks" error={load.message} onRetry={() => void reload()} retryLabel="Try again" />;
  const { user, project } = load.hooks;
  const act = (what: () => Promise<void>, ok: string, bad: string) =>
    what().then(
      () => {
        setOutcome({ ok: true, text: ok });
        void reload();
      },
      (e: unknown) => {
        setOutcome({ ok: false, text: `${bad}: ${errorText(e)}` });
        void reload();
      },
    );
  return (
    <div className="hook-settings">
      <p className="muted">
        Hooks are commands Foya runs before and after tool calls, when it asks you to approve something, and when a turn ends. What each one did shows on
        the call's card.
      </p>
      <Result result={outcome} />
      <HooksFileView title="Your hooks" file={user} />
      {workdir === "" ? (
        <p className="muted">Open a session to see its project's hooks.</p>
      ) : (
        <HooksFileView title="This project's hooks" file={project}>
          {(project.status === "unapproved" || project.status === "changed") && (
            <Button variant="primary" onClick={() => setReviewing(true)}>
              Review and approve…
            </Button>
          )}
          {project.status === "approved" && (
            <Button
              onClick={() =>
                void act(() => api.RevokeProjectHooks(workdir), "Revoked: the project's hooks do not run until you approve them again.", "Not revoked")
              }
            >
              Revoke
            </Button>
          )}
        </HooksFileView>
      )}
      {user.status === "none" && (workdir === "" || project.status === "none") && <HooksExample />}
      {reviewing && (
        <ApproveHooks
          file={project}
          onClose={() => setReviewing(false)}
          onApprove={() => {
            setReviewing(false);
            void act(
              () => api.TrustProjectHooks(workdir ?? "", project.hash ?? ""),
              "Approved: the project's hooks run from the next turn, in the sandbox.",
              "Not approved",
            );
          }}
        />
      )}
    </div>
  );
}

function HooksFileView(props: { title: string; file: HooksFile; children?: ReactNode }) {
  const f = props.file;
  return (
    <section className="hook-file" aria-label={props.title}>
      <h3>{props.title}</h3>
      <p>
        <code>{f.file}</code>
      </p>
      <p className={f.status === "invalid" || f.status === "exposed" || f.status === "changed" ? "error-text" : ""}>{statusWords(f)}</p>
      {f.hooks.length > 0 && (
        <ul className="hook-list" aria-label={`${props.title}: the file's hooks`}>
          {f.hooks.map((h) => (
            <li key={h.name}>
              <HookLine hook={h} />
            </li>
          ))}
        </ul>
      )}
      {props.children}
    </section>
  );
}

function HookLine({ hook }: { hook: HookInfo }) {
  const when = hook.event === "turn_end" ? "turn_end" : `${hook.event} ${hook.match !== undefined && hook.match !== "" ? hook.match : "*"}`;
  return (
    <>
      <strong>{hook.name}</strong> <span className="muted">({when}, {hook.sandbox ? "sandboxed" : "unsandboxed"}, {hook.timeoutSeconds}s)</span>
      <pre className="hook-command">{hook.command}</pre>
    </>
  );
}

/** ApproveHooks shows a project's hooks file exactly as it is before the person approves it. */
export function ApproveHooks(props: { file: HooksFile; onClose(): void; onApprove(): void }) {
  const f = props.file;
  return (
    <AlertDialog.Root open onOpenChange={(open) => !open && props.onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="settings-overlay" />
        <AlertDialog.Content className="settings-confirm">
          <AlertDialog.Title>Approve the project's hooks?</AlertDialog.Title>
          <AlertDialog.Description>Foya will run these commands, in the sandbox, at the points they name. This is {f.file}, exactly:</AlertDialog.Description>
          <pre className="mcp-command" aria-label="The hooks file to approve">
            {f.content}
          </pre>
          <p className="muted">
            sha256 <code>{f.hash}</code>. The approval holds for this content only: if the file changes, its hooks stop and Foya asks again. A hook may run a
            script of the workspace, which the agent can change: that is why it runs in the sandbox.
          </p>
          <div className="confirm-actions">
            <AlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant="primary" onClick={props.onApprove}>
                Approve
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** hooksExample is a hooks file to start from (docs/hooks.md, "The file"). */
const hooksExample = `{
  "hooks": [
    { "name": "no-force-push", "event": "before_tool", "match": "bash", "command": "python3 .foya/guard.py" },
    { "name": "gofmt", "event": "after_tool", "match": "edit", "command": "gofmt -l . | head -20" },
    { "event": "turn_end", "command": "notify-send Foya 'the turn ended'" }
  ]
}`;

/**
 * HooksExample says how to start when there is no hooks file: where to
 * write one and what it looks like. A hook gets the event as JSON on its
 * standard input and may answer with JSON on its standard output.
 */
function HooksExample() {
  return (
    <section className="hooks-example" aria-label="Writing a hooks file">
      <h3>Writing a hooks file</h3>
      <p className="muted">
        Write either file above as a list of hooks: each names its event (<code>before_tool</code>, <code>after_tool</code>, <code>approval</code> or{" "}
        <code>turn_end</code>), the command, and optionally the tools it is for. A hook gets the event as JSON on its standard input; before a call it may answer{" "}
        <code>{'{"decision": "deny", "reason": "…"}'}</code>, after one <code>{'{"note": "…"}'}</code> for the model. A project&apos;s file runs only once you
        approved it here, and always in the sandbox.
      </p>
      <pre className="hooks-example-file">{hooksExample}</pre>
    </section>
  );
}
