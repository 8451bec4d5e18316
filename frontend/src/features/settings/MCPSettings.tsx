import { Fragment, useCallback, useEffect, useId, useRef, useState, type FormEvent } from "react";
import { AlertDialog } from "radix-ui";
import { useApi, useTransport } from "../../backend";
import type {
  Approval as MCPApprove,
  Content,
  List as MCPList,
  Prompt,
  Resource,
  Server as MCPServer,
} from "../../backend/gen/mcpconfig";
import { Button } from "../../ui/Button";
import { Notice } from "../../ui/Notice";
import { ErrorNotice } from "../../ui/ErrorNotice";
import { errorText } from "./errors";
import { useSessionWorkdir } from "./workdir";
import {
  approvalFacts,
  approveArgs,
  canRestart,
  configOf,
  emptyForm,
  originWords,
  runsWorkspaceCode,
  stateWords,
  toolWords,
  type AddForm,
} from "./mcp";
import { Result } from "./ModeSettings";
import { MCPLog } from "./MCPLog";

type Load = { status: "loading" } | { status: "error"; message: string } | { status: "ready"; list: MCPList };
type Outcome = { ok: boolean; text: string } | null;

/**
 * MCPSettings is the "MCP servers" section: the user's servers and, for the
 * open session's folder, the project's, each with its state (the error and
 * the end of its standard error when it failed), its tools, where it comes
 * from and its actions (restart, always load, remove; approve for a
 * project's server after showing its command line), their resources and
 * prompts (spec M3), and a form to add a server (a command, or a URL).
 * It reads the list again when an mcp.changed notice says something in it
 * changed (a server started, failed, stopped, was approved, the
 * configuration changed), and after a reconnect: no timer.
 */
export function MCPSettings(props: { sessionId: string | null }) {
  const api = useApi();
  const transport = useTransport();
  const workdir = useSessionWorkdir(props.sessionId);
  const [load, setLoad] = useState<Load>({ status: "loading" });
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [adding, setAdding] = useState(false);

  const reload = useCallback(() => {
    if (workdir === null) return Promise.resolve();
    return api.MCPServers(workdir).then(
      (list) => setLoad({ status: "ready", list }),
      (e: unknown) => setLoad({ status: "error", message: errorText(e) }),
    );
  }, [api, workdir]);

  useEffect(() => {
    void reload();
  }, [reload]);

  // A server's state and tools show as they change, without a click: the
  // list is read again on each mcp.changed notice, one read at a time (a
  // burst of notices costs one more read, not one each).
  useEffect(() => {
    let reading = false;
    let again = false;
    const read = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      void reload().finally(() => {
        reading = false;
        if (again) {
          again = false;
          read();
        }
      });
    };
    return transport.subscribeNotices((n) => {
      if (n.type === "mcp.changed") read();
    }, read);
  }, [transport, reload]);

  const done = (text: string) => {
    setAdding(false);
    setOutcome({ ok: true, text });
    void reload();
  };
  const failed = (text: string) => {
    setOutcome({ ok: false, text });
    // What failed may have changed the server too (a sign-in that failed).
    void reload();
  };

  if (load.status === "loading" || workdir === null) return <p className="muted">Loading MCP servers… (Foya waits briefly for them to start)</p>;
  if (load.status === "error") {
    return (
      <ErrorNotice title="Could not load the MCP servers" error={load.message} onRetry={() => void reload()} retryLabel="Try again" />
    );
  }
  const { servers, problems } = load.list;
  return (
    <div className="settings-section mcp-settings">
      <p className="muted">
        MCP servers bring their own tools; every call still asks the approval policy. Yours are kept in mcp.json in Foya's data folder and start
        without asking{workdir !== "" ? `; the project at ${workdir} may bring its own in .foya/mcp.json or .mcp.json` : ""}.
      </p>
      <Result result={outcome} />
      {problems.length > 0 && (
        <Notice kind="alert" title="Some MCP configuration could not be read (the other servers still load)">
          <ul className="mcp-problems">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </Notice>
      )}
      {servers.length === 0 && !adding && <p className="muted">No MCP servers yet: add one with the program to start, or its URL.</p>}
      <ul className="provider-list" aria-label="MCP servers">
        {servers.map((s) => (
          <ServerItem key={`${s.scope}:${s.name}`} server={s} workdir={workdir} onChanged={done} onFailed={failed} />
        ))}
      </ul>
      <div className="form-actions">
        {!adding && (
          <Button
            onClick={() => {
              setOutcome(null);
              setAdding(true);
            }}
          >
            Add an MCP server
          </Button>
        )}
        <Button onClick={() => void reload()} aria-label="Refresh the MCP servers">
          Refresh
        </Button>
      </div>
      {adding && <AddServerForm onCancel={() => setAdding(false)} onDone={(name) => done(`MCP server ${name} added; it starts at once.`)} />}
    </div>
  );
}

function ServerItem(props: { server: MCPServer; workdir: string; onChanged(text: string): void; onFailed(text: string): void }) {
  const api = useApi();
  const s = props.server;
  const headingId = useId();
  const [busy, setBusy] = useState("");
  const [removing, setRemoving] = useState(false);
  const [approving, setApproving] = useState(false);
  const [browsing, setBrowsing] = useState(false);
  const [logging, setLogging] = useState(false);
  const state = stateWords(s);
  const mine = s.scope === "user";

  const act = async (what: string, f: () => Promise<unknown>, ok: string, fail: string) => {
    setBusy(what);
    try {
      await f();
      props.onChanged(ok);
    } catch (e) {
      props.onFailed(`${fail}: ${errorText(e)}`);
    } finally {
      setBusy("");
    }
  };

  return (
    <li className="provider mcp-server" aria-labelledby={headingId}>
      <div className="provider-head">
        <h4 id={headingId}>{s.name}</h4>
        <span className={`badge mcp-state mcp-state-${s.state}`}>{state.label}</span>
      </div>
      <dl className="provider-facts">
        <dt>From</dt>
        <dd>{originWords(s)}</dd>
        <dt>{s.transport === "stdio" ? "Command" : s.transport === "sse" ? "URL (SSE)" : "URL"}</dt>
        <dd>
          <code>{s.commandLine}</code>
          {s.sandbox && " (runs in the sandbox: writes only in the workspace, no network)"}
        </dd>
        <dt>Tools</dt>
        <dd>{toolWords(s)}</dd>
        {s.signIn !== undefined && s.signIn !== "" && (
          <>
            <dt>Sign-in</dt>
            <dd>{signInWords(s.signIn)}</dd>
          </>
        )}
        {s.restarts > 0 && (
          <>
            <dt>Restarts</dt>
            <dd>{s.restarts}</dd>
          </>
        )}
      </dl>
      {state.hint !== "" && <p className="muted hint">{state.hint}</p>}
      {s.error !== undefined && s.error !== "" && (
        <p className="error-text" role={s.state === "failed" ? "alert" : undefined}>
          {s.state === "failed" ? "Why it failed: " : "Last error: "}
          {s.error}
        </p>
      )}
      {s.signIn === "error" && s.signInError !== undefined && s.signInError !== "" && (
        <p className="error-text" role="alert">
          Sign-in failed: {s.signInError}
        </p>
      )}
      {s.stderr !== undefined && s.stderr !== "" && (
        <details className="mcp-stderr" open={s.state === "failed"}>
          <summary>End of its standard error</summary>
          <pre>{s.stderr}</pre>
        </details>
      )}
      <div className="provider-actions">
        {s.state === "unapproved" && (
          <Button variant="primary" onClick={() => setApproving(true)} aria-label={`Approve ${s.name}`}>
            Approve…
          </Button>
        )}
        {canRestart(s) && (
          <Button
            disabled={busy !== ""}
            aria-label={`Restart ${s.name}`}
            onClick={() =>
              void act("restart", () => api.RestartMCPServer(s.scope === "project" ? props.workdir : "", s.name), `MCP server ${s.name} restarted.`, `${s.name} was not restarted`)
            }
          >
            {busy === "restart" ? "Restarting…" : "Restart"}
          </Button>
        )}
        {(s.signIn === "sign-in-needed" || s.signIn === "error") && (
          <Button
            variant="primary"
            disabled={busy !== ""}
            aria-label={`Sign in to ${s.name}`}
            onClick={() =>
              void act("signin", () => api.SignInMCPServer(s.scope === "project" ? props.workdir : "", s.name), `Signed in to MCP server ${s.name}.`, `Could not sign in to ${s.name}`)
            }
          >
            {busy === "signin" ? "Waiting for the browser…" : "Sign in"}
          </Button>
        )}
        {s.signIn === "signed-in" && (
          <Button
            disabled={busy !== ""}
            aria-label={`Sign out of ${s.name}`}
            onClick={() =>
              void act("signout", () => api.SignOutMCPServer(s.scope === "project" ? props.workdir : "", s.name), `Signed out of MCP server ${s.name}.`, `Could not sign out of ${s.name}`)
            }
          >
            {busy === "signout" ? "Signing out…" : "Sign out"}
          </Button>
        )}
        {s.state === "ready" && (
          <Button onClick={() => setBrowsing((b) => !b)} aria-expanded={browsing} aria-label={`Resources and prompts of ${s.name}`}>
            {browsing ? "Hide resources and prompts" : "Resources and prompts"}
          </Button>
        )}
        {hasLog(s) && (
          <Button onClick={() => setLogging((l) => !l)} aria-expanded={logging} aria-label={`Log of ${s.name}`}>
            {logging ? "Hide log" : "Log"}
          </Button>
        )}
        {mine && (
          <Button variant="danger" onClick={() => setRemoving(true)} aria-label={`Remove ${s.name}`}>
            Remove
          </Button>
        )}
      </div>
      {mine && (
        <label className="check-label">
          <input
            type="checkbox"
            checked={s.alwaysLoad}
            disabled={busy !== ""}
            onChange={(e) => {
              const on = e.target.checked;
              void act(
                "always",
                () => api.SetMCPAlwaysLoad(s.name, on),
                on ? `${s.name}'s tools are now always offered to the model.` : `${s.name}'s tools are deferred with the others when MCP tools are many.`,
                `${s.name} was not changed`,
              );
            }}
          />{" "}
          Always load: offer its tools in every request, even when MCP tools are deferred behind tool_search
        </label>
      )}
      {browsing && <Browse server={s.name} workdir={s.scope === "project" ? props.workdir : ""} />}
      {logging && hasLog(s) && <MCPLog server={s.name} workdir={s.scope === "project" ? props.workdir : ""} />}
      <AlertDialog.Root open={removing} onOpenChange={setRemoving}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="settings-overlay" />
          <AlertDialog.Content className="settings-confirm">
            <AlertDialog.Title>Remove MCP server {s.name}?</AlertDialog.Title>
            <AlertDialog.Description>
              It stops, and its entry is deleted from {s.file}. Its tools are no longer offered from the next step on.
            </AlertDialog.Description>
            <div className="confirm-actions">
              <AlertDialog.Cancel asChild>
                <Button>Cancel</Button>
              </AlertDialog.Cancel>
              <AlertDialog.Action asChild>
                <Button variant="danger" onClick={() => void act("remove", () => api.RemoveMCPServer(s.name), `MCP server ${s.name} removed.`, `${s.name} was not removed`)}>
                  Remove {s.name}
                </Button>
              </AlertDialog.Action>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
      {approving && (
        <ApproveDialog
          server={s}
          onClose={() => setApproving(false)}
          onApprove={(a) =>
            void act(
              "approve",
              () => api.ApproveMCPServer(props.workdir, s.name, a),
              `MCP server ${s.name} approved${a.unsandboxed === true ? ", outside the sandbox" : s.transport === "stdio" ? "; it runs in the sandbox" : ""}.`,
              `${s.name} was not approved`,
            )
          }
        />
      )}
    </li>
  );
}

/** hasLog says whether Foya runs a server, so that it has a log: not one unapproved or disabled. */
function hasLog(s: MCPServer): boolean {
  return s.state !== "unapproved" && s.state !== "disabled";
}

/**
 * ApproveDialog shows everything that decides what a project's server
 * runs before the person approves it, and sends back the fingerprint of
 * what it showed; a stdio server runs in the sandbox
 * unless they lift it here, and one that runs workspace code leaves it
 * only once they confirm that risk too.
 */
function ApproveDialog(props: { server: MCPServer; onClose(): void; onApprove(a: MCPApprove): void }) {
  const s = props.server;
  const [unconfined, setUnconfined] = useState(false);
  const [trustCode, setTrustCode] = useState(false);
  const stdio = s.transport === "stdio";
  const code = runsWorkspaceCode(s);
  const blocked = unconfined && code && !trustCode;
  return (
    <AlertDialog.Root open onOpenChange={(open) => !open && props.onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="settings-overlay" />
        <AlertDialog.Content className="settings-confirm">
          <AlertDialog.Title>Approve the project's MCP server {s.name}?</AlertDialog.Title>
          <AlertDialog.Description>
            {stdio ? "Foya will start this program" : "Foya will connect to this address"}, from {s.file}:
          </AlertDialog.Description>
          <pre className="mcp-command" aria-label="Command line to approve">
            {s.commandLine}
          </pre>
          <dl className="provider-facts" aria-label="What the approval covers">
            {approvalFacts(s).map((f, i) => (
              <Fragment key={i}>
                <dt>{f.label}</dt>
                <dd>
                  <code>{f.value}</code>
                </dd>
              </Fragment>
            ))}
          </dl>
          {stdio && (
            <label className="check-label">
              <input type="checkbox" checked={unconfined} onChange={(e) => setUnconfined(e.target.checked)} /> Run it outside the sandbox (it may then write
              anywhere you can and reach the network)
            </label>
          )}
          {stdio && unconfined && code && (
            <label className="check-label">
              <input type="checkbox" checked={trustCode} onChange={(e) => setTrustCode(e.target.checked)} /> I understand that it runs code from the workspace (
              {(s.code ?? []).join(", ")}): outside the sandbox, whatever is written there, by the model too, runs with all my rights
            </label>
          )}
          <p className="muted">
            The approval holds for this entry and the workspace code it runs as they are now
            {(s.vars ?? []).length > 0 ? ", and for the values the variables of its command, arguments, folder or URL have now" : ""}: if one
            changes, the server stops and Foya asks again.
          </p>
          <div className="confirm-actions">
            <AlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant="primary" disabled={blocked} onClick={() => props.onApprove(approveArgs(s, unconfined, trustCode))}>
                Approve {s.name}
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** SHOWN_TEXT bounds the text of a resource shown here. */
export const SHOWN_TEXT = 64 << 10;

/** Browse lists a server's resources (each readable here) and prompts. */
function Browse(props: { server: string; workdir: string }) {
  const api = useApi();
  const [resources, setResources] = useState<{ status: "loading" } | { status: "error"; message: string } | { status: "ready"; list: Resource[] }>({ status: "loading" });
  const [prompts, setPrompts] = useState<{ status: "loading" } | { status: "error"; message: string } | { status: "ready"; list: Prompt[] }>({ status: "loading" });
  const [shown, setShown] = useState<{ uri: string; status: "loading" } | { uri: string; status: "error"; message: string } | { uri: string; status: "ready"; contents: Content[] } | null>(null);
  const live = useRef(true);

  useEffect(() => {
    live.current = true;
    api.MCPResources(props.workdir, props.server).then(
      (list) => live.current && setResources({ status: "ready", list }),
      (e: unknown) => live.current && setResources({ status: "error", message: errorText(e) }),
    );
    api.MCPPrompts(props.workdir, props.server).then(
      (list) => live.current && setPrompts({ status: "ready", list }),
      (e: unknown) => live.current && setPrompts({ status: "error", message: errorText(e) }),
    );
    return () => {
      live.current = false;
    };
  }, [api, props.server, props.workdir]);

  const show = async (uri: string) => {
    setShown({ uri, status: "loading" });
    try {
      const contents = await api.ReadMCPResource(props.workdir, props.server, uri);
      if (live.current) setShown({ uri, status: "ready", contents });
    } catch (e) {
      if (live.current) setShown({ uri, status: "error", message: errorText(e) });
    }
  };

  return (
    <div className="mcp-browse">
      <section aria-label={`Resources of ${props.server}`}>
        <h5>Resources</h5>
        {resources.status === "loading" && <p className="muted">Listing its resources…</p>}
        {resources.status === "error" && <p role="alert" className="error-text">Could not list its resources: {resources.message}</p>}
        {resources.status === "ready" && resources.list.length === 0 && <p className="muted">It offers no resources.</p>}
        {resources.status === "ready" && resources.list.length > 0 && (
          <ul className="mcp-items">
            {resources.list.map((r) => (
              <li key={r.uri}>
                <strong>{r.name}</strong> <code>{r.uri}</code>
                {r.mimeType !== undefined && r.mimeType !== "" && <span className="muted"> ({r.mimeType})</span>}
                {r.description !== undefined && r.description !== "" && <p className="muted hint">{r.description}</p>}
                <Button onClick={() => void show(r.uri)} aria-label={`Show ${r.uri}`}>
                  Show
                </Button>
                {shown !== null && shown.uri === r.uri && <Shown shown={shown} />}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label={`Prompts of ${props.server}`}>
        <h5>Prompts</h5>
        {prompts.status === "loading" && <p className="muted">Listing its prompts…</p>}
        {prompts.status === "error" && <p role="alert" className="error-text">Could not list its prompts: {prompts.message}</p>}
        {prompts.status === "ready" && prompts.list.length === 0 && <p className="muted">It offers no prompts.</p>}
        {prompts.status === "ready" && prompts.list.length > 0 && (
          <ul className="mcp-items">
            {prompts.list.map((p) => (
              <li key={p.name}>
                <strong>{p.name}</strong>
                {p.description !== undefined && p.description !== "" && <span className="muted">: {p.description}</span>}
                {(p.arguments ?? []).length > 0 && (
                  <p className="muted hint">
                    Arguments: {(p.arguments ?? []).map((a) => `${a.name}${a.required === true ? " (required)" : ""}`).join(", ")}
                  </p>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function Shown(props: { shown: { status: "loading" } | { status: "error"; message: string } | { status: "ready"; contents: Content[] } }) {
  const s = props.shown;
  if (s.status === "loading") return <p className="muted">Reading…</p>;
  if (s.status === "error") return <p role="alert" className="error-text">Could not read it: {s.message}</p>;
  if (s.contents.length === 0) return <p className="muted">It is empty.</p>;
  return (
    <div className="mcp-shown">
      {s.contents.map((c, i) =>
        c.blob !== undefined && c.blob !== "" ? (
          <p key={i} className="muted">
            {c.mimeType ?? "binary data"}: about {Math.floor((c.blob.length * 3) / 4)} bytes, not shown.
          </p>
        ) : (
          <pre key={i} aria-label={`Contents of ${c.uri}`}>
            {(c.text ?? "").length > SHOWN_TEXT ? `${(c.text ?? "").slice(0, SHOWN_TEXT)}\n… (cut here: the rest is not shown)` : c.text}
          </pre>
        ),
      )}
    </div>
  );
}

/** AddServerForm adds one of the user's servers: a program to start, or a URL. */
function AddServerForm(props: { onCancel(): void; onDone(name: string): void }) {
  const api = useApi();
  const id = useId();
  const [f, setF] = useState<AddForm>(emptyForm);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = <K extends keyof AddForm>(k: K, v: AddForm[K]) => setF((old) => ({ ...old, [k]: v }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const c = configOf(f);
    if ("error" in c) {
      setError(c.error);
      return;
    }
    setBusy(true);
    try {
      await api.AddMCPServer(c.config);
      props.onDone(c.config.name);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="provider-form" aria-label="Add an MCP server" onSubmit={(e) => void submit(e)} noValidate>
      <h4>Add an MCP server</h4>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input id={`${id}-name`} value={f.name} onChange={(e) => set("name", e.target.value)} autoComplete="off" required />
        <p className="muted hint">Its tools are named mcp__name__tool, such as mcp__github__create_issue.</p>
      </div>
      <fieldset className="field mcp-kind">
        <legend>How Foya reaches it</legend>
        <label className="check-label">
          <input type="radio" name={`${id}-kind`} checked={f.kind === "stdio"} onChange={() => set("kind", "stdio")} /> Start a program (stdio)
        </label>
        <label className="check-label">
          <input type="radio" name={`${id}-kind`} checked={f.kind === "http"} onChange={() => set("kind", "http")} /> Connect to a URL (streamable HTTP)
        </label>
        <label className="check-label">
          <input type="radio" name={`${id}-kind`} checked={f.kind === "sse"} onChange={() => set("kind", "sse")} /> Connect to a URL (SSE, older servers)
        </label>
      </fieldset>
      {f.kind === "stdio" ? (
        <>
          <div className="field">
            <label htmlFor={`${id}-command`}>Command</label>
            <input id={`${id}-command`} value={f.command} onChange={(e) => set("command", e.target.value)} autoComplete="off" spellCheck={false} />
            <p className="muted hint">The program to start, such as npx or /usr/local/bin/my-server.</p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-args`}>Arguments</label>
            <textarea id={`${id}-args`} value={f.args} onChange={(e) => set("args", e.target.value)} rows={3} spellCheck={false} />
            <p className="muted hint">One argument per line, as the program gets them (no shell quoting).</p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-env`}>Environment</label>
            <textarea id={`${id}-env`} value={f.env} onChange={(e) => set("env", e.target.value)} rows={2} spellCheck={false} />
            <p className="muted hint">One NAME=value per line, added to the environment Foya gives commands (which has no secrets of its own).</p>
          </div>
          <label className="check-label">
            <input type="checkbox" checked={f.sandbox} onChange={(e) => set("sandbox", e.target.checked)} /> Run it in the sandbox (writes only in the
            session's workspace, no network)
          </label>
        </>
      ) : (
        <>
          <div className="field">
            <label htmlFor={`${id}-url`}>URL</label>
            <input id={`${id}-url`} value={f.url} onChange={(e) => set("url", e.target.value)} inputMode="url" autoComplete="off" spellCheck={false} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-headers`}>Headers</label>
            <textarea id={`${id}-headers`} value={f.headers} onChange={(e) => set("headers", e.target.value)} rows={2} spellCheck={false} />
            <p className="muted hint">One "Name: value" per line, such as Authorization: Bearer …; kept in Foya's mcp.json, readable by you only.</p>
          </div>
        </>
      )}
      <label className="check-label">
        <input type="checkbox" checked={f.alwaysLoad} onChange={(e) => set("alwaysLoad", e.target.checked)} /> Always load its tools, even when MCP
        tools are deferred behind tool_search
      </label>
      {error !== null && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Adding and starting…" : "Add server"}
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

/** signInWords names an HTTP server's sign-in state. */
function signInWords(state: string): string {
  switch (state) {
    case "signed-in":
      return "Signed in";
    case "sign-in-needed":
      return "Sign-in needed";
    case "not-needed":
      return "Not needed";
    case "error":
      return "Sign-in failed";
  }
  return state;
}
