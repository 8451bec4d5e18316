import { CheckCircle2, FolderOpen, RefreshCw } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from "react";
import { toApiError, useApi, type Session } from "../../backend";
import type { ModelServer, Provider, ProviderInput } from "../../backend/gen/profiles";
import { CheckOK, CheckUnauthorized } from "../../backend/gen/profiles";
import { Button } from "../../ui/Button";
import { Notice } from "../../ui/Notice";
import { Spinner } from "../../ui/Spinner";
import { CreateSessionDialog } from "../sessions";
import "./firstrun.css";

/** Probe is one candidate as the view knows it: not yet answered, or its probe's result. */
export type Probe = { server: ModelServer; state: "probing" | "done" | "error"; error?: string };

/** usable says whether a probed server can be saved: it lists models, or it wants a key. */
export function usable(p: Probe): boolean {
  return p.state === "done" && ((p.server.status === CheckOK && p.server.models.length > 0) || p.server.status === CheckUnauthorized);
}

/** profileName suggests a profile's name from its server ("ollama", "lm-studio", ...). */
export function profileName(s: ModelServer): string {
  if (s.fromEnv) return "openai-env";
  if (s.id.startsWith("port-")) return `local-${s.id.slice("port-".length)}`;
  return s.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || s.id;
}

/**
 * FirstRunView is the first screen of a Foya with no provider profile and
 * no session: it lists the model servers the kernel looks for (the
 * environment's OPENAI_API_KEY and OPENAI_BASE_URL, Ollama, LM Studio,
 * llama.cpp and vLLM on loopback), probes each on its own so the screen
 * never waits for the slowest, lets the user save a server and model as a
 * provider profile, then choose a project folder (the new-session dialog).
 * "Continue without a model" is always offered.
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
            No OpenAI-compatible server answered on this machine, and no OPENAI_API_KEY is set. Start one (Ollama, LM Studio,
            llama.cpp or vLLM) and press “Look again”, or add a provider later in Settings → Providers.
          </p>
        </Notice>
      )}

      {saved === null ? (
        isNonEmpty(found) && <SaveForm found={found} onSaved={setSaved} />
      ) : (
        <Notice kind="status" title={`Saved as provider profile “${saved.name}”`}>
          <p>
            Model {saved.model} on {saved.baseUrl}. Change it, or add others, in Settings → Providers.
          </p>
        </Notice>
      )}

      <div className="firstrun-actions">
        <Button variant={saved !== null ? "primary" : "default"} onClick={() => setCreating(true)}>
          <FolderOpen size={16} aria-hidden="true" /> Choose a project folder
        </Button>
        <Button onClick={props.onSkip}>{saved !== null ? "Done" : "Continue without a model"}</Button>
      </div>
      {saved === null && (
        <p className="muted firstrun-later">Without a model you can look around; add one at any time in Settings → Providers.</p>
      )}

      <CreateSessionDialog
        open={creating}
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
        {server.fromEnv && <span className="muted"> · OPENAI_API_KEY {server.keyPresent ? "is set" : "is not set"}</span>}
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

/** statusText is a candidate's state in a few words. */
export function statusText(p: Probe): string {
  if (p.state === "probing") return "looking…";
  if (p.state === "error") return "could not be probed";
  const s = p.server;
  switch (s.status) {
    case CheckOK:
      return s.models.length === 0 ? "found, no model loaded" : `found, ${s.models.length} ${s.models.length === 1 ? "model" : "models"}`;
    case CheckUnauthorized:
      return "found, wants an API key";
    case "down":
      return "not running";
    case "timeout":
      return "no answer in time";
    case "no-key":
      return "no key set";
    default:
      return "not a model server";
  }
}

function upper(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function isNonEmpty<T>(a: T[]): a is [T, ...T[]] {
  return a.length > 0;
}

function shortList(models: string[]): string {
  return models.length > 6 ? `${models.slice(0, 6).join(", ")} and ${models.length - 6} more` : models.join(", ");
}

function SaveForm(props: { found: [Probe, ...Probe[]]; onSaved: (p: Provider) => void }) {
  const api = useApi();
  const id = useId();
  const [serverId, setServerId] = useState(props.found[0].server.id);
  const server = (props.found.find((p) => p.server.id === serverId) ?? props.found[0]).server;
  const [model, setModel] = useState(server.models[0] ?? "");
  const [name, setName] = useState(profileName(server));
  const [key, setKey] = useState("");
  const [useEnvKey, setUseEnvKey] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");

  const choose = (s: ModelServer) => {
    setServerId(s.id);
    setModel(s.models[0] ?? "");
    setName(profileName(s));
    setError("");
  };
  const envKey = server.fromEnv && server.keyPresent && useEnvKey;
  const wantsKey = !server.local || server.status === CheckUnauthorized;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim() === "") return setError("Give the profile a name, such as “local”.");
    if (model.trim() === "") return setError("Choose or type the model to use.");
    const input: ProviderInput = { name: name.trim(), baseUrl: server.baseUrl, model: model.trim() };
    if (!envKey && key.trim() !== "") input.apiKey = key.trim();
    setBusy(true);
    setError("");
    (envKey ? api.AddProviderFromEnv(input) : api.AddProvider(input)).then(
      (p) => {
        setBusy(false);
        props.onSaved(p);
      },
      (err: unknown) => {
        setBusy(false);
        setError(toApiError(err).message);
      },
    );
  };

  return (
    <form className="form firstrun-form" onSubmit={submit} aria-label="Save a provider profile" noValidate>
      <fieldset className="field">
        <legend>Server</legend>
        {props.found.map((p) => (
          <label key={p.server.id} className="firstrun-choice">
            <input type="radio" name={`${id}-server`} checked={p.server.id === serverId} onChange={() => choose(p.server)} />
            {p.server.name} <span className="muted">({statusText(p)})</span>
          </label>
        ))}
      </fieldset>
      <div className="field-pair">
        <div className="field">
          <label htmlFor={`${id}-model`}>Model</label>
          {server.models.length > 0 ? (
            <select id={`${id}-model`} className="input" value={model} onChange={(e) => setModel(e.target.value)}>
              {server.models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          ) : (
            <input id={`${id}-model`} className="input mono" value={model} onChange={(e) => setModel(e.target.value)} />
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-name`}>Profile name</label>
          <input id={`${id}-name`} className="input" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
      </div>
      {server.fromEnv && server.keyPresent && (
        <label className="firstrun-choice">
          <input type="checkbox" checked={useEnvKey} onChange={(e) => setUseEnvKey(e.target.checked)} />
          Use the key in OPENAI_API_KEY (it is kept in the system keyring, never shown)
        </label>
      )}
      {wantsKey && !envKey && (
        <div className="field">
          <label htmlFor={`${id}-key`}>API key</label>
          <input id={`${id}-key`} className="input mono" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
        </div>
      )}
      {error !== "" && (
        <Notice kind="alert">
          <p className="error-text">{error}</p>
        </Notice>
      )}
      <div>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Saving…" : "Save provider profile"}
        </Button>
      </div>
    </form>
  );
}
