import { useId, useState, type FormEvent } from "react";
import { AlertDialog } from "radix-ui";
import { useApi } from "../../backend";
import type { CheckStep, Provider, ProviderCheck, ProviderEdit, ProviderInput } from "../../backend/gen/profiles";
import {
  CheckDown,
  CheckFailed,
  CheckOK,
  CheckSkipped,
  CheckUnauthorized,
  CheckWrongModel,
  KeyInFile,
  KeyInKeyring,
} from "../../backend/gen/profiles";
import { Button } from "../../ui/Button";
import { Notice } from "../../ui/Notice";
import { Field } from "../../ui/Field";
import { errorText, profileErrorField, type ProfileField } from "./errors";
import { formatHeaders, parseHeaders } from "./headers";
import { Result } from "./ModeSettings";
import { useLoad } from "../useLoad";

type Outcome = { ok: boolean; text: string } | null;

/** keyPlace says where a profile's key is kept, from Provider.keyStore. */
export function keyPlace(p: Provider): string {
  switch (p.keyStore) {
    case KeyInKeyring:
      return "Key kept in the system keyring.";
    case KeyInFile:
      return "Key kept in provider-keys.json in Foya's data folder, readable by you only (mode 0600): this system has no keyring.";
    case undefined:
    case "":
      return "No API key stored.";
    default:
      return `Key kept in: ${p.keyStore}.`;
  }
}

/**
 * ProviderSettings lists the provider profiles and adds, edits, tests,
 * removes them and sets the default. A key is write-only: typed, sent,
 * never read back (the kernel's Provider has none).
 */
export function ProviderSettings() {
  const api = useApi();
  const loaded = useLoad(() => api.Providers(), [api]);
  const reload = loaded.reload;
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);


  const done = (text: string) => {
    setAdding(false);
    setEditing(null);
    setOutcome({ ok: true, text });
    reload();
  };

  if (loaded.state.status === "error") {
    return (
      <Notice kind="alert" title="Could not load the provider profiles">
        <p className="error-text">{errorText(loaded.state.error)}</p>
        <Button onClick={reload}>Try again</Button>
      </Notice>
    );
  }
  // After a change the list is read again; what is shown stays until it comes.
  const providers = loaded.state.value;
  if (providers === undefined) return <p className="muted">Loading provider profiles…</p>;
  return (
    <div className="settings-section">
      <Result result={outcome} />
      {providers.length === 0 && !adding && (
        <p className="muted">No provider profiles yet: add one with the server's base URL, a model and its API key.</p>
      )}
      <ul className="provider-list" aria-label="Provider profiles">
        {providers.map((p) =>
          editing === p.name ? (
            <li key={p.name} className="provider">
              <ProviderForm
                initial={p}
                onCancel={() => setEditing(null)}
                onDone={(q) => done(`Provider ${q.name} saved. ${keyPlace(q)}`)}
              />
            </li>
          ) : (
            <ProviderItem
              key={p.name}
              provider={p}
              onEdit={() => {
                setOutcome(null);
                setEditing(p.name);
              }}
              onChanged={done}
              onFailed={(text) => setOutcome({ ok: false, text })}
            />
          ),
        )}
      </ul>
      {adding ? (
        <ProviderForm onCancel={() => setAdding(false)} onDone={(q) => done(`Provider ${q.name} added. ${keyPlace(q)}`)} />
      ) : (
        <Button
          onClick={() => {
            setOutcome(null);
            setAdding(true);
          }}
        >
          Add a provider
        </Button>
      )}
    </div>
  );
}

function ProviderItem(props: {
  provider: Provider;
  onEdit(): void;
  onChanged(text: string): void;
  onFailed(text: string): void;
}) {
  const api = useApi();
  const p = props.provider;
  const [check, setCheck] = useState<{ status: "idle" } | { status: "testing" } | { status: "done"; check: ProviderCheck } | { status: "error"; message: string }>({ status: "idle" });
  const [removing, setRemoving] = useState(false);
  const headingId = useId();

  const test = async () => {
    setCheck({ status: "testing" });
    try {
      setCheck({ status: "done", check: await api.TestProvider(p.name) });
    } catch (e) {
      setCheck({ status: "error", message: errorText(e) });
    }
  };
  const makeDefault = async () => {
    try {
      await api.SetDefaultProvider(p.name);
      props.onChanged(`Provider ${p.name} is now the default: sessions that name no profile use it.`);
    } catch (e) {
      props.onFailed(`${p.name} was not made the default: ${errorText(e)}`);
    }
  };
  const remove = async () => {
    try {
      await api.RemoveProvider(p.name);
      props.onChanged(`Provider ${p.name} removed, with its key.`);
    } catch (e) {
      props.onFailed(`${p.name} was not removed: ${errorText(e)}`);
    }
  };

  return (
    <li className="provider" aria-labelledby={headingId}>
      <div className="provider-head">
        <h4 id={headingId}>{p.name}</h4>
        {p.default === true && <span className="badge">Default</span>}
      </div>
      <dl className="provider-facts">
        <dt>Base URL</dt>
        <dd>
          <code>{p.baseUrl}</code>
        </dd>
        <dt>Model</dt>
        <dd>
          <code>{p.model}</code>
        </dd>
        {Object.keys(p.headers ?? {}).length > 0 && (
          <>
            <dt>Headers</dt>
            <dd>
              <pre className="headers">{formatHeaders(p.headers)}</pre>
            </dd>
          </>
        )}
        {(p.secretHeaders ?? []).length > 0 && (
          <>
            <dt>Secret headers</dt>
            <dd>{(p.secretHeaders ?? []).join(", ")} (kept with the key, not shown)</dd>
          </>
        )}
        <dt>Tool calls</dt>
        <dd>{toolCallsLabels[toolCallsMode(p)] ?? p.toolCalls}</dd>
        {(p.contextWindow ?? 0) > 0 && (
          <>
            <dt>Context window</dt>
            <dd>{(p.contextWindow ?? 0).toLocaleString("en-US")} tokens, when the server does not say</dd>
          </>
        )}
        {(p.maxOutput ?? 0) > 0 && (
          <>
            <dt>Output limit</dt>
            <dd>{(p.maxOutput ?? 0).toLocaleString("en-US")} tokens, when the server does not say</dd>
          </>
        )}
        {((p.inputPrice ?? 0) > 0 || (p.outputPrice ?? 0) > 0) && (
          <>
            <dt>Prices</dt>
            <dd>
              ${priceText(p.inputPrice)} per million input tokens, ${priceText(p.outputPrice)} per million output tokens
            </dd>
          </>
        )}
        <dt>API key</dt>
        <dd>{keyPlace(p)}</dd>
      </dl>
      <div className="provider-actions">
        <Button onClick={props.onEdit} aria-label={`Edit ${p.name}`}>
          Edit
        </Button>
        <Button onClick={() => void test()} disabled={check.status === "testing"} aria-label={`Test connection to ${p.name}`}>
          {check.status === "testing" ? "Testing…" : "Test connection"}
        </Button>
        {p.default !== true && (
          <Button onClick={() => void makeDefault()} aria-label={`Make ${p.name} the default`}>
            Make default
          </Button>
        )}
        <Button className="danger" onClick={() => setRemoving(true)} aria-label={`Remove ${p.name}`}>
          Remove
        </Button>
      </div>
      {check.status === "testing" && (
        <p role="status" className="muted">
          Testing {p.name}: listing its models, then one short streamed request…
        </p>
      )}
      {check.status === "error" && (
        <p role="alert" className="error-text">
          The test could not be made: {check.message}
        </p>
      )}
      {check.status === "done" && <CheckResult check={check.check} />}
      <AlertDialog.Root open={removing} onOpenChange={setRemoving}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="settings-overlay" />
          <AlertDialog.Content className="settings-confirm">
            <AlertDialog.Title>Remove provider {p.name}?</AlertDialog.Title>
            <AlertDialog.Description>
              Its profile and its key are deleted{p.keyStore === KeyInKeyring ? " from the system keyring" : p.keyStore === KeyInFile ? " from the key file" : ""}.
              Sessions that used it keep its name and need another profile to run again.
            </AlertDialog.Description>
            <div className="confirm-actions">
              <AlertDialog.Cancel asChild>
                <Button>Cancel</Button>
              </AlertDialog.Cancel>
              <AlertDialog.Action asChild>
                <Button className="danger" onClick={() => void remove()}>
                  Remove {p.name}
                </Button>
              </AlertDialog.Action>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </li>
  );
}

const stepWords: Record<string, string> = {
  [CheckOK]: "OK",
  [CheckUnauthorized]: "Key refused",
  [CheckWrongModel]: "Unknown model",
  [CheckDown]: "No answer",
  [CheckFailed]: "Failed",
  [CheckSkipped]: "Not tried",
};

/** CheckResult shows each step of a connection test with its outcome, message and time. */
export function CheckResult(props: { check: ProviderCheck }) {
  const c = props.check;
  const ok = c.models.status === CheckOK && c.stream.status === CheckOK;
  return (
    <section className={ok ? "check check-ok" : "check check-bad"} aria-label={`Connection test of ${c.provider}`}>
      <p role={ok ? "status" : "alert"}>
        {ok ? `${c.provider} works: ${c.model} at ${c.baseUrl} answered.` : `${c.provider} does not work yet: see the steps below.`}
      </p>
      <ol>
        <Step name="Model list (GET /models)" step={c.models} />
        <Step name="One streamed reply" step={c.stream} />
      </ol>
    </section>
  );
}

function Step(props: { name: string; step: CheckStep }) {
  const s = props.step;
  return (
    <li>
      <strong>{props.name}:</strong> <span className={s.status === CheckOK ? "step-ok" : "step-bad"}>{stepWords[s.status] ?? s.status}</span>
      {s.httpStatus !== undefined && s.httpStatus !== 0 && ` (HTTP ${s.httpStatus})`}
      {s.status !== CheckSkipped && ` in ${s.millis} ms`}: {s.message}
    </li>
  );
}

/** The tool-call modes of a profile ("" is auto), as the form offers them. */
const toolCallsLabels: Record<string, string> = { auto: "Auto", native: "Native only", text: "Parse from text" };

function toolCallsMode(p: Provider | undefined): string {
  return p?.toolCalls === undefined || p.toolCalls === "" ? "auto" : p.toolCalls;
}

/** tokenText is a token setting as the form shows it: empty for none. */
function tokenText(n: number | undefined): string {
  return n === undefined || n === 0 ? "" : String(n);
}

/** parseTokens reads a token setting: 0 for empty, null for what is not a whole number. */
function parseTokens(s: string): number | null {
  const t = s.trim().replace(/[,_\s]/g, "");
  if (t === "") return 0;
  if (!/^\d+$/.test(t)) return null;
  return Number(t);
}

/** priceText is a price as the form shows it: empty for none, "3", "0.15". */
function priceText(n: number | undefined): string {
  return n === undefined || n === 0 ? "" : String(n);
}

/** parsePrice reads a price in US dollars ("3", "0.15", "$2.50"): 0 for empty, null for what is not a plain number. */
function parsePrice(s: string): number | null {
  const t = s.trim().replace(/^\$/, "").trim();
  if (t === "") return 0;
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(t)) return null;
  return Number(t);
}

/**
 * ProviderForm adds a profile (no initial) or edits one. Only changed
 * fields are sent on edit; an empty key field keeps the stored key.
 */
function ProviderForm(props: { initial?: Provider; onCancel(): void; onDone(p: Provider): void }) {
  const api = useApi();
  const init = props.initial;
  const [name, setName] = useState(init?.name ?? "");
  const [baseUrl, setBaseUrl] = useState(init?.baseUrl ?? "");
  const [model, setModel] = useState(init?.model ?? "");
  const [headers, setHeaders] = useState(formatHeaders(init?.headers));
  const [toolCalls, setToolCalls] = useState(toolCallsMode(init));
  const [apiKey, setApiKey] = useState("");
  const [dropKey, setDropKey] = useState(false);
  const [contextWindow, setContextWindow] = useState(tokenText(init?.contextWindow));
  const [maxOutput, setMaxOutput] = useState(tokenText(init?.maxOutput));
  const [inputPrice, setInputPrice] = useState(priceText(init?.inputPrice));
  const [outputPrice, setOutputPrice] = useState(priceText(init?.outputPrice));
  const [busy, setBusy] = useState(false);
  // A refusal is said at the field it is about; one about none (a locked
  // keyring, nothing changed) under the form.
  const [error, setError] = useState<{ field: ProfileField | null; text: string } | null>(null);
  const errorAt = (f: ProfileField) => (error !== null && error.field === f ? error.text : undefined);
  const [models, setModels] = useState<{ status: "idle" | "loading" } | { status: "ready"; ids: string[] } | { status: "error"; message: string }>({ status: "idle" });
  const secret = init?.secretHeaders ?? [];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const parsed = parseHeaders(headers);
    if ("error" in parsed) {
      setError({ field: "headers", text: parsed.error });
      return;
    }
    const win = parseTokens(contextWindow);
    if (win === null) {
      setError({ field: "contextWindow", text: "The context window is a whole number of tokens, such as 32768; leave it empty to let Foya ask the server." });
      return;
    }
    const out = parseTokens(maxOutput);
    if (out === null) {
      setError({ field: "maxOutput", text: "The output limit is a whole number of tokens, such as 4096; leave it empty to let Foya ask the server." });
      return;
    }
    const inP = parsePrice(inputPrice);
    if (inP === null) {
      setError({ field: "inputPrice", text: "The input price is US dollars per million tokens, a number such as 3 or 0.15; leave it empty for no prices." });
      return;
    }
    const outP = parsePrice(outputPrice);
    if (outP === null) {
      setError({ field: "outputPrice", text: "The output price is US dollars per million tokens, a number such as 15 or 0.6; leave it empty for no prices." });
      return;
    }
    setBusy(true);
    try {
      if (init === undefined) {
        const input: ProviderInput = { name: name.trim(), baseUrl: baseUrl.trim(), model: model.trim(), headers: parsed.headers };
        if (apiKey !== "") input.apiKey = apiKey;
        if (toolCalls !== "auto") input.toolCalls = toolCalls;
        if (win > 0) input.contextWindow = win;
        if (out > 0) input.maxOutput = out;
        if (inP > 0) input.inputPrice = inP;
        if (outP > 0) input.outputPrice = outP;
        props.onDone(await api.AddProvider(input));
      } else {
        const edit: ProviderEdit = {};
        if (baseUrl.trim() !== init.baseUrl) edit.baseUrl = baseUrl.trim();
        if (model.trim() !== init.model) edit.model = model.trim();
        if (headers !== formatHeaders(init.headers)) edit.headers = parsed.headers;
        if (toolCalls !== toolCallsMode(init)) edit.toolCalls = toolCalls;
        if (win !== (init.contextWindow ?? 0)) edit.contextWindow = win;
        if (out !== (init.maxOutput ?? 0)) edit.maxOutput = out;
        if (inP !== (init.inputPrice ?? 0)) edit.inputPrice = inP;
        if (outP !== (init.outputPrice ?? 0)) edit.outputPrice = outP;
        if (dropKey) edit.apiKey = "";
        else if (apiKey !== "") edit.apiKey = apiKey;
        if (Object.keys(edit).length === 0) {
          setError({ field: null, text: "Nothing changed: change a field, or cancel." });
          return;
        }
        props.onDone(await api.EditProvider(init.name, edit));
      }
    } catch (err) {
      setError({ field: profileErrorField(err), text: errorText(err) });
    } finally {
      setApiKey("");
      setBusy(false);
    }
  };

  const listModels = async () => {
    if (init === undefined) return;
    setModels({ status: "loading" });
    try {
      setModels({ status: "ready", ids: await api.ProviderModels(init.name) });
    } catch (e) {
      setModels({ status: "error", message: errorText(e) });
    }
  };

  const title = init === undefined ? "Add a provider" : `Edit ${init.name}`;
  return (
    <form className="provider-form" aria-label={title} onSubmit={(e) => void submit(e)} noValidate>
      <h4>{title}</h4>
      {init === undefined && (
        <Field label="Name" error={errorAt("name")} hint={'Letters, digits, ".", "_" or "-", such as local or openai.'}>
          {(c) => <input {...c} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" required />}
        </Field>
      )}
      <Field label="Base URL" error={errorAt("baseUrl")} hint="The OpenAI-compatible server, usually ending in /v1, such as http://127.0.0.1:8080/v1.">
        {(c) => <input {...c} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} inputMode="url" autoComplete="off" required />}
      </Field>
      <Field label="Model" error={errorAt("model")}>
        {(c) => <input {...c} value={model} onChange={(e) => setModel(e.target.value)} autoComplete="off" required />}
      </Field>
      {init !== undefined && (
        <div className="models">
          <Button onClick={() => void listModels()} disabled={models.status === "loading"}>
            {models.status === "loading" ? "Listing models…" : "List the server's models"}
          </Button>
          {models.status === "error" && (
            <p role="alert" className="error-text">
              Could not list the models: {models.message}
            </p>
          )}
          {models.status === "ready" &&
            (models.ids.length === 0 ? (
              <p className="muted">The server lists no models; type the model's name.</p>
            ) : (
              <label>
                Models the server lists
                <select value={models.ids.includes(model) ? model : ""} onChange={(e) => e.target.value !== "" && setModel(e.target.value)}>
                  <option value="">Choose one of {models.ids.length}…</option>
                  {models.ids.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
            ))}
        </div>
      )}
      <Field
        label="Tool calls"
        error={errorAt("toolCalls")}
        hint="How the model's tool calls are read. Local servers without a tool parser (Ollama, llama.cpp, vLLM, LM Studio) often send them as text: Auto reads them from the text when the server sent none of its own."
      >
        {(c) => (
          <select {...c} value={toolCalls} onChange={(e) => setToolCalls(e.target.value)}>
            {Object.entries(toolCallsLabels).map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label="Extra headers"
        error={errorAt("headers")}
        hint={`One "Name: value" per line. Headers that carry credentials (Authorization, api-key, …) are kept with the key and never shown again.${
          secret.length > 0 ? ` Kept now: ${secret.join(", ")}. Changing these headers replaces them all: type those again to keep them.` : ""
        }`}
      >
        {(c) => <textarea {...c} value={headers} onChange={(e) => setHeaders(e.target.value)} rows={3} spellCheck={false} />}
      </Field>
      <Field
        label="Context window (tokens)"
        error={errorAt("contextWindow")}
        hint="Used when the server does not say how many tokens the model takes; leave it empty to let Foya ask the server (it guesses 8,192 when the server does not say)."
      >
        {(c) => <input {...c} value={contextWindow} onChange={(e) => setContextWindow(e.target.value)} inputMode="numeric" autoComplete="off" />}
      </Field>
      <Field label="Output limit (tokens)" error={errorAt("maxOutput")} hint="The most tokens of one answer, when the server does not say; leave it empty for the server's.">
        {(c) => <input {...c} value={maxOutput} onChange={(e) => setMaxOutput(e.target.value)} inputMode="numeric" autoComplete="off" />}
      </Field>
      <Field
        label="Input price (US$ per million tokens)"
        error={errorAt("inputPrice")}
        hint="What the model's prompt tokens cost, such as 3; with the output price, the composer's meter shows a session's cost. Leave both empty for none."
      >
        {(c) => <input {...c} value={inputPrice} onChange={(e) => setInputPrice(e.target.value)} inputMode="decimal" autoComplete="off" />}
      </Field>
      <Field label="Output price (US$ per million tokens)" error={errorAt("outputPrice")} hint="What the model's completion tokens cost, such as 15.">
        {(c) => <input {...c} value={outputPrice} onChange={(e) => setOutputPrice(e.target.value)} inputMode="decimal" autoComplete="off" />}
      </Field>
      <Field
        label="API key"
        error={errorAt("apiKey")}
        hint={
          init === undefined
            ? "Write-only: it goes to the system keyring (or a file only you can read where there is none) and is never shown again. Leave it empty for a server without a key."
            : `Write-only: leave it empty to keep the stored key. ${keyPlace(init)}`
        }
      >
        {(c) => (
          <input {...c} type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="new-password" spellCheck={false} disabled={dropKey} />
        )}
      </Field>
      {init !== undefined && init.keyStore !== undefined && init.keyStore !== "" && (
        <label className="check-label">
          <input type="checkbox" checked={dropKey} onChange={(e) => setDropKey(e.target.checked)} /> Remove the stored key
        </label>
      )}
      {error !== null && error.field === null && <p role="alert">{error.text}</p>}
      <div className="form-actions">
        <Button type="submit" disabled={busy}>
          {busy ? "Saving…" : init === undefined ? "Add provider" : "Save changes"}
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
