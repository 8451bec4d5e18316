import { CheckCircle2 } from "lucide-react";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { toApiError, useApi } from "../../backend";
import type { Provider, ProviderInput, ServerCheck } from "../../backend/gen/profiles";
import {
  CheckBadURL,
  CheckDown,
  CheckNoModelList,
  CheckNotModels,
  CheckOK,
  CheckUnauthorized,
  CheckUnknownHost,
  DiscoverTimeout,
} from "../../backend/gen/profiles";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { Notice } from "../../ui/Notice";
import { Spinner } from "../../ui/Spinner";
import { profileErrorField } from "../settings/errors";
import { profileName, statusText, type Probe } from "./probe";
import { presets, urlProblem, type Preset } from "./presets";

/** Source is where a profile's server comes from: a server found on this machine, or a preset. */
export type Source = { kind: "found"; key: string; probe: Probe } | { kind: "preset"; key: string; preset: Preset };

type Check = { status: "idle" } | { status: "testing" } | { status: "done"; result: ServerCheck } | { status: "error"; message: string };

/**
 * Draft is what the form holds for one source. Each source has its own, so
 * a model picked, a URL edited or a key typed for one server never goes
 * with another when the person changes their choice.
 */
interface Draft {
  baseUrl: string;
  apiKey: string;
  model: string;
  name: string;
  search: string;
  useEnvKey: boolean;
  check: Check;
}

/** FieldName is a field a sentence can be about. */
type FieldName = "baseUrl" | "apiKey" | "model" | "name";
type Errors = { [F in FieldName | "form"]?: string | undefined };

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function newDraft(src: Source): Draft {
  if (src.kind === "found") {
    const s = src.probe.server;
    return { baseUrl: s.baseUrl, apiKey: "", model: s.models[0] ?? "", name: profileName(s), search: "", useEnvKey: true, check: { status: "idle" } };
  }
  const p = src.preset;
  return { baseUrl: p.baseUrl, apiKey: "", model: "", name: p.id === "other" ? "custom" : p.id === "lmstudio" ? "lm-studio" : p.id, search: "", useEnvKey: false, check: { status: "idle" } };
}

/** headline says what a connection test found, in a few words. */
function headline(r: ServerCheck): string {
  switch (r.status) {
    case CheckUnauthorized:
      return "Key refused";
    case CheckUnknownHost:
      return "No such host";
    case CheckDown:
      return "Not reachable";
    case DiscoverTimeout:
      return "No answer in time";
    case CheckNotModels:
      return "Not a model server";
    case CheckNoModelList:
      return "No model list there";
    case CheckBadURL:
      return "Not a URL";
    default:
      return "The server answered with an error";
  }
}

const fieldWords: Record<string, string> = { baseUrl: "base URL", apiKey: "API key" };

/** saveError puts the kernel's refusal of a profile at the field it is about. */
function saveError(e: unknown, name: string): Errors {
  const err = toApiError(e);
  if (err.code === "conflict") return { name: `A profile named “${name}” exists already: choose another name.` };
  const field = profileErrorField(e);
  if (field !== null && field !== "headers") return { [field]: err.message };
  return { form: err.message.trim() === "" ? `The profile was not saved (${err.code}); try again.` : `The profile was not saved: ${err.message}` };
}

/**
 * SetupForm saves a provider profile: for a server the first run found on
 * this machine, or for a provider chosen by name (a preset fills its base
 * URL and says whether it wants a key) or any OpenAI-compatible server.
 * "Test connection" asks the server for its models (CheckServer) and says
 * what happened in words at the field it concerns, with the technical
 * detail folded below; the models it lists are offered with a search
 * field. The key is write-only: typed, sent, never shown back.
 */
export function SetupForm(props: { found: Probe[]; onSaved: (p: Provider) => void }) {
  const api = useApi();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const sources: Source[] = [
    ...props.found.map((probe): Source => ({ kind: "found", key: `found:${probe.server.id}`, probe })),
    ...presets.map((preset): Source => ({ kind: "preset", key: `preset:${preset.id}`, preset })),
  ];
  // Until the person chooses, the first server found is the choice; any
  // edit pins it, so an answer arriving later never changes it under them.
  const [selected, setSelected] = useState<string | null>(null);
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [focusBad, setFocusBad] = useState(0);

  const chosenKey = selected ?? (props.found[0] !== undefined ? `found:${props.found[0].server.id}` : null);
  const src = sources.find((s) => s.key === chosenKey) ?? null;
  const draft = src === null ? null : (drafts[src.key] ?? newDraft(src));

  useEffect(() => {
    if (focusBad > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusBad]);

  const choose = (key: string) => {
    setSelected(key);
    setErrors({});
  };
  const edit = (patch: Partial<Draft>, clears?: FieldName) => {
    if (src === null) return;
    setSelected(src.key);
    setDrafts((d) => ({ ...d, [src.key]: { ...(d[src.key] ?? newDraft(src)), ...patch } }));
    if (clears !== undefined) setErrors((e) => ({ ...e, [clears]: undefined, form: undefined }));
  };

  const chooser = (
    <fieldset className="field firstrun-sources">
      <legend>Model server</legend>
      {props.found.length > 0 && (
        <div role="group" aria-label="Found on this machine" className="firstrun-group">
          <p className="muted">Found on this machine</p>
          {props.found.map((p) => (
            <label key={p.server.id} className="firstrun-choice">
              <input type="radio" name={`${id}-src`} checked={chosenKey === `found:${p.server.id}`} onChange={() => choose(`found:${p.server.id}`)} />
              {p.server.name} <span className="muted">({statusText(p)})</span>
            </label>
          ))}
        </div>
      )}
      <div role="group" aria-label="Providers" className="firstrun-group">
        <p className="muted">{props.found.length > 0 ? "Or connect to a provider" : "Connect to a provider"}</p>
        <div className="firstrun-presets">
          {presets.map((p) => (
            <label key={p.id} className="firstrun-choice">
              <input type="radio" name={`${id}-src`} checked={chosenKey === `preset:${p.id}`} onChange={() => choose(`preset:${p.id}`)} />
              {p.name}
            </label>
          ))}
        </div>
      </div>
    </fieldset>
  );

  if (src === null || draft === null) {
    return (
      <form ref={formRef} className="form firstrun-form" aria-label="Save a provider profile" noValidate onSubmit={(e) => e.preventDefault()}>
        {chooser}
        <p className="muted">Choose a provider to connect to, or start a local server and press “Look again”.</p>
      </form>
    );
  }

  const server = src.kind === "found" ? src.probe.server : null;
  const preset = src.kind === "preset" ? src.preset : null;
  const envKey = server !== null && server.fromEnv && server.keyPresent && draft.useEnvKey;
  const keyWanted = preset !== null ? preset.key !== "none" : server !== null && (!server.local || server.status === CheckUnauthorized);
  const keyRequired = preset !== null ? preset.key === "required" : server?.status === CheckUnauthorized;
  const checked = draft.check.status === "done" ? draft.check.result : null;
  const models = checked !== null && checked.status === CheckOK ? checked.models : (server?.models ?? []);
  const needle = draft.search.trim().toLowerCase();
  const shown = needle === "" ? models : models.filter((m) => m.toLowerCase().includes(needle));
  // A failed test speaks at the field it is about, unless the person has
  // since been told something newer there.
  const fieldError = (f: FieldName): string | undefined =>
    errors[f] ?? (checked !== null && checked.status !== CheckOK && checked.field === f ? checked.message : undefined);
  const label = preset?.name ?? server?.name ?? "";

  const test = async () => {
    const problem = preset !== null ? urlProblem(draft.baseUrl) : "";
    if (problem !== "") {
      setErrors({ baseUrl: problem });
      setFocusBad((n) => n + 1);
      return;
    }
    setErrors({});
    const key = src.key;
    const asked = { baseUrl: draft.baseUrl.trim(), apiKey: draft.apiKey.trim() };
    // An answer about an address or key edited since is dropped: it would
    // speak of what the form no longer holds.
    const update = (check: Check, model?: string) =>
      setDrafts((d) => {
        const cur = d[key] ?? newDraft(src);
        if (check.status !== "testing" && (cur.baseUrl.trim() !== asked.baseUrl || cur.apiKey.trim() !== asked.apiKey)) return d;
        return { ...d, [key]: { ...cur, check, ...(model !== undefined && cur.model === "" ? { model } : {}) } };
      });
    update({ status: "testing" });
    setSelected(key);
    try {
      const result = await api.CheckServer({ baseUrl: asked.baseUrl, ...(asked.apiKey !== "" ? { apiKey: asked.apiKey } : {}) });
      update({ status: "done", result }, result.status === CheckOK && result.models.length === 1 ? result.models[0] : undefined);
    } catch (e) {
      update({ status: "error", message: toApiError(e).message });
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const bad: Errors = {};
    if (preset !== null) {
      const p = urlProblem(draft.baseUrl);
      if (p !== "") bad.baseUrl = p;
    }
    if (keyRequired && !envKey && draft.apiKey.trim() === "") {
      bad.apiKey = preset !== null ? `${preset.name} needs an API key: paste yours here (from ${preset.where}).` : "This server wants an API key: paste yours here.";
    }
    if (draft.model.trim() === "") {
      bad.model = models.length > 0 ? "Choose the model to use from the list." : "Type the model's name, or test the connection to list the server's models.";
    } else if (/\s/.test(draft.model.trim())) {
      bad.model = "A model name has no spaces.";
    }
    const name = draft.name.trim();
    if (name === "") bad.name = "Give the profile a name, such as “local”.";
    else if (!namePattern.test(name)) bad.name = "A profile name has letters, digits, “.”, “_” or “-” only, and starts with a letter or digit.";
    if (Object.keys(bad).length > 0) {
      setErrors(bad);
      setFocusBad((n) => n + 1);
      return;
    }
    const input: ProviderInput = { name, baseUrl: draft.baseUrl.trim().replace(/\/+$/, ""), model: draft.model.trim() };
    if (!envKey && keyWanted && draft.apiKey.trim() !== "") input.apiKey = draft.apiKey.trim();
    setBusy(true);
    setErrors({});
    (envKey ? api.AddProviderFromEnv(input) : api.AddProvider(input)).then(
      (p) => {
        setBusy(false);
        props.onSaved(p);
      },
      (err: unknown) => {
        setBusy(false);
        setErrors(saveError(err, name));
        setFocusBad((n) => n + 1);
      },
    );
  };

  return (
    <form ref={formRef} className="form firstrun-form" onSubmit={submit} aria-label="Save a provider profile" noValidate>
      {chooser}
      {preset !== null ? (
        <Field
          label="Base URL"
          error={fieldError("baseUrl")}
          hint={preset.id === "other" ? "The server's OpenAI-compatible address, usually ending in /v1." : `${preset.name}'s OpenAI-compatible address; change it if yours differs.`}
        >
          {(c) => (
            <input
              {...c}
              className="input mono"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              placeholder="http://127.0.0.1:8080/v1"
              value={draft.baseUrl}
              onChange={(e) => edit({ baseUrl: e.target.value, check: { status: "idle" } }, "baseUrl")}
            />
          )}
        </Field>
      ) : (
        <p className="field-static">
          <code className="path">{draft.baseUrl}</code>
        </p>
      )}
      {server !== null && server.fromEnv && server.keyPresent && (
        <label className="firstrun-choice">
          <input type="checkbox" checked={draft.useEnvKey} onChange={(e) => edit({ useEnvKey: e.target.checked })} />
          Use the key in OPENAI_API_KEY (it is kept in the system keyring, never shown)
        </label>
      )}
      {keyWanted && !envKey && (
        <Field
          label={keyRequired ? "API key" : "API key (if the server wants one)"}
          error={fieldError("apiKey")}
          hint={`Kept in the system keyring (or a file only you can read where there is none), never shown again.${preset !== null && preset.key === "required" ? ` Find yours on ${preset.where}.` : ""}`}
        >
          {(c) => (
            <input
              {...c}
              className="input mono"
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={draft.apiKey}
              onChange={(e) => edit({ apiKey: e.target.value, check: { status: "idle" } }, "apiKey")}
            />
          )}
        </Field>
      )}
      {!envKey && (
        <div className="firstrun-test">
          <Button onClick={() => void test()} disabled={draft.check.status === "testing"}>
            {draft.check.status === "testing" ? "Testing…" : "Test connection"}
          </Button>
          <TestOutcome check={draft.check} />
        </div>
      )}
      {models.length > 0 ? (
        <div className="firstrun-models">
          <Field label="Search models">
            {(c) => (
              <input {...c} className="input" type="search" autoComplete="off" value={draft.search} onChange={(e) => edit({ search: e.target.value })} />
            )}
          </Field>
          <Field
            label="Model"
            error={fieldError("model")}
            hint={
              shown.length === 0
                ? `No model matches “${draft.search.trim()}”.`
                : shown.length < models.length
                  ? `${shown.length} of ${models.length} models shown.`
                  : `${models.length} ${models.length === 1 ? "model" : "models"} offered by ${label}.`
            }
          >
            {(c) => (
              <select
                {...c}
                className="input firstrun-model-list"
                size={Math.min(8, Math.max(2, shown.length + 1))}
                value={shown.includes(draft.model) ? draft.model : ""}
                onChange={(e) => edit({ model: e.target.value }, "model")}
              >
                {/* Without an option of the value React selects the first
                    one on screen while no model is chosen: the screen
                    would show a model the form does not hold. */}
                {!shown.includes(draft.model) && (
                  <option value="">{draft.model === "" ? "Choose a model…" : `Chosen: ${draft.model} (not in this search)`}</option>
                )}
                {shown.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      ) : (
        <Field label="Model" error={fieldError("model")} hint="Test the connection to list the server's models, or type the model's name.">
          {(c) => (
            <input {...c} className="input mono" autoComplete="off" spellCheck={false} value={draft.model} onChange={(e) => edit({ model: e.target.value }, "model")} />
          )}
        </Field>
      )}
      <Field label="Profile name" error={fieldError("name")} hint="How Foya names this server and model, such as “local”: letters, digits, “.”, “_” or “-”.">
        {(c) => <input {...c} className="input" autoComplete="off" value={draft.name} onChange={(e) => edit({ name: e.target.value }, "name")} />}
      </Field>
      {errors.form !== undefined && (
        <Notice kind="alert">
          <p>{errors.form}</p>
        </Notice>
      )}
      <div>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Saving…" : "Save and start a session"}
        </Button>
      </div>
    </form>
  );
}

/** TestOutcome says what a connection test found: a few words and the sentence, the technical detail folded below. */
function TestOutcome(props: { check: Check }) {
  const c = props.check;
  switch (c.status) {
    case "idle":
      return null;
    case "testing":
      return <Spinner label="Asking the server for its models…" visible />;
    case "error":
      return (
        <p role="alert" className="firstrun-outcome firstrun-bad">
          The test could not be made: {c.message}
        </p>
      );
    case "done": {
      const r = c.result;
      const ok = r.status === CheckOK;
      return (
        <div className={`firstrun-outcome ${ok ? "firstrun-good" : "firstrun-bad"}`}>
          <p role={ok ? "status" : "alert"}>
            {ok ? (
              <>
                <CheckCircle2 size={14} aria-hidden="true" /> {r.message}
              </>
            ) : (
              <>
                <strong>{headline(r)}.</strong> {r.field !== undefined && r.field !== "" ? `See the ${fieldWords[r.field] ?? r.field} above.` : r.message}
              </>
            )}
          </p>
          {r.detail !== undefined && r.detail !== "" && (
            <details>
              <summary>Technical detail</summary>
              <pre className="error-text">{r.detail}</pre>
            </details>
          )}
        </div>
      );
    }
  }
}
