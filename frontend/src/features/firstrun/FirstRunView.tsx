import { CheckCircle2, FolderOpen, RefreshCw } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { toApiError, useApi, type Session } from "../../backend";
import type { Provider } from "../../backend/gen/profiles";
import { CheckOK } from "../../backend/gen/profiles";
import { Button } from "../../ui/Button";
import { Notice } from "../../ui/Notice";
import { Spinner } from "../../ui/Spinner";
import { CreateSessionDialog } from "../sessions";
import { statusText, usable, type Probe } from "./probe";
import { SetupForm } from "./SetupForm";
import "./firstrun.css";

export { profileName, statusText, usable, type Probe } from "./probe";

/**
 * FirstRunView is the first screen of a Foya with no provider profile and
 * no session: it lists the model servers the kernel looks for (the
 * environment's OPENAI_API_KEY and OPENAI_BASE_URL, Ollama, LM Studio,
 * llama.cpp and vLLM on loopback), probes each on its own so the screen
 * never waits for the slowest, and saves a found server, a named provider
 * (a preset) or any OpenAI-compatible server as a provider profile
 * (SetupForm). Saving opens the new-session dialog on that profile, so the
 * first run always leads into a session; "Continue without a model" is
 * always offered.
 */
export function FirstRunView(props: { onSkip: () => void; onSessionCreated: (s: Session) => void }) {
  const api = useApi();
  const [list, setList] = useState<{ status: "loading" } | { status: "error"; message: string } | { status: "ready"; probes: Probe[] }>({
    status: "loading",
  });
  const [saved, setSaved] = useState<Provider | null>(null);
  const [creating, setCreating] = useState(false);
  const round = useRef(0);

  const look = useCallback(() => {
    const r = ++round.current;
    setList({ status: "loading" });
    api.ModelServers().then(
      (servers) => {
        if (r !== round.current) return;
        setList({ status: "ready", probes: servers.map((server) => ({ server, state: "probing" })) });
        for (const s of servers) {
          api.ProbeModelServer(s.id).then(
            (server) => update(r, { server, state: "done" }),
            (e: unknown) => update(r, { server: s, state: "error", error: toApiError(e).message }),
          );
        }
      },
      (e: unknown) => {
        if (r === round.current) setList({ status: "error", message: toApiError(e).message });
      },
    );
    function update(r: number, p: Probe) {
      if (r !== round.current) return;
      setList((l) => (l.status !== "ready" ? l : { status: "ready", probes: l.probes.map((q) => (q.server.id === p.server.id ? p : q)) }));
    }
  }, [api]);

  useEffect(() => {
    look();
    return () => {
      round.current++;
    };
  }, [look]);

  const probes = list.status === "ready" ? list.probes : [];
  const probing = list.status === "loading" || probes.some((p) => p.state === "probing");
  const found = probes.filter(usable);

  return (
    <section className="firstrun" aria-labelledby="firstrun-title">
      <div className="firstrun-body">
      <h2 id="firstrun-title">Set up Foya</h2>
      <p className="muted">
        Foya works with any OpenAI-compatible model server. It looked for one on this machine and in its environment.
      </p>

      <div className="firstrun-head">
        <h3>Model servers</h3>
        <Button onClick={look} disabled={probing}>
          <RefreshCw size={14} aria-hidden="true" /> Look again
        </Button>
      </div>
      {list.status === "loading" && <Spinner label="Listing the model servers to look for…" visible />}
      {list.status === "error" && (
        <Notice kind="alert" title="Could not look for model servers">
          <p className="error-text">{list.message}</p>
        </Notice>
      )}
      {list.status === "ready" && (
        <ul className="firstrun-servers" aria-label="Model servers">
          {probes.map((p) => (
            <ServerRow key={p.server.id} probe={p} />
          ))}
        </ul>
      )}

      {!probing && found.length === 0 && list.status === "ready" && (
        <Notice kind="status" title="No model server found">
          <p>
            No OpenAI-compatible server answered on this machine, and no OPENAI_API_KEY is set. Connect to a provider below, or
            start a local server (Ollama, LM Studio, llama.cpp or vLLM) and press “Look again”.
          </p>
        </Notice>
      )}

      {saved === null ? (
        <>
          <h3>Save a model server</h3>
          <SetupForm
            found={found}
            onSaved={(p) => {
              setSaved(p);
              setCreating(true);
            }}
          />
        </>
      ) : (
        <Notice kind="status" title={`Saved as provider profile “${saved.name}”`}>
          <p>
            Model {saved.model} on {saved.baseUrl}. Now choose the project folder your first session works in. Change the profile, or
            add others, in Settings → Providers.
          </p>
        </Notice>
      )}

      <div className="firstrun-actions">
        <Button variant={saved !== null ? "primary" : "default"} onClick={() => setCreating(true)}>
          <FolderOpen size={16} aria-hidden="true" /> Choose a project folder
        </Button>
        <Button onClick={props.onSkip}>{saved !== null ? "Done" : "Continue without a model"}</Button>
      </div>
      {saved === null && <p className="muted firstrun-later">Without a model you can look around, and come back here from the sidebar.</p>}

      <CreateSessionDialog
        open={creating}
        provider={saved?.name}
        onClose={() => setCreating(false)}
        onCreated={(s) => {
          setCreating(false);
          props.onSessionCreated(s);
        }}
      />
      </div>
    </section>
  );
}

function ServerRow(props: { probe: Probe }) {
  const { server, state } = props.probe;
  const label = `${server.name}: ${statusText(props.probe)}`;
  return (
    <li className={`firstrun-server firstrun-${state === "done" ? server.status : state}`} aria-label={label}>
      <div className="firstrun-server-top">
        <strong>{server.name}</strong> <code className="path">{server.baseUrl}</code>
        {/* A missing key is the status line's to say. */}
        {server.fromEnv && server.keyPresent && <span className="muted"> · OPENAI_API_KEY is set</span>}
      </div>
      {state === "probing" ? (
        <Spinner label={`Looking at ${server.name}…`} visible />
      ) : state === "error" ? (
        <p className="error-text">{props.probe.error}</p>
      ) : (
        <p>
          {server.status === CheckOK && server.models.length > 0 && <CheckCircle2 size={14} aria-hidden="true" />}{" "}
          <span className="firstrun-status">{upper(statusText(props.probe))}</span>
          {server.status === CheckOK && server.models.length > 0 ? (
            `: ${shortList(server.models)}`
          ) : server.status === "down" ? (
            // The same words for every port nothing listens on; the notice below says what to do.
            <span className="muted">: nothing answers on this port.</span>
          ) : (
            <span className="muted">. {upper(server.message)}</span>
          )}
        </p>
      )}
    </li>
  );
}

function upper(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function shortList(models: string[]): string {
  return models.length > 6 ? `${models.slice(0, 6).join(", ")} and ${models.length - 6} more` : models.join(", ");
}
