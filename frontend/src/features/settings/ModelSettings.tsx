import { useEffect, useId, useState, type FormEvent } from "react";
import { Switch } from "radix-ui";
import { useApi } from "../../backend";
import { Button } from "../../ui/Button";
import { ErrorNotice } from "../../ui/ErrorNotice";
import { errorText } from "./errors";
import type { WorkspaceUsage as Usage } from "../../backend/gen/kernel";
import {
  DefaultMode,
  DefaultProvider,
  ImagesPrefix,
  KindBool,
  KindBytes,
  KindDuration,
  NotifyApproval,
  NotifyRunEnded,
  NotifyRunFailed,
  WorkspaceMaxKept,
  type Entry,
} from "../../backend/gen/settings";
import { imageKey } from "./keys";
import { formatBytes, formatDuration, parseBytes, parseDuration, type Parsed } from "./units";
import { Field } from "../../ui/Field";
import { useLoad } from "../useLoad";

/** Settings with a pane of their own (Approval modes, Providers, Notifications), which explains and sets them. */
const ownPane = new Set([DefaultMode, DefaultProvider, NotifyApproval, NotifyRunEnded, NotifyRunFailed]);
/** The workspace index's settings share this namespace; they sit beside its disk use. */
const workspacePrefix = "workspace.";
/** Settings of sessions themselves (how they are titled) have a section of their own. */
const sessionsPrefix = "sessions.";

/**
 * ModelSettings shows a field for every setting the backend declares
 * (api.SettingList: label, doc line, default, value in force) that has no
 * pane of its own, so a setting added to the backend's table appears here
 * unchanged; and image input per model (model.images.MODEL). Every value
 * is checked by the kernel, whose message is shown as it is.
 */
export function ModelSettings(props: { sessionId: string | null }) {
  const api = useApi();
  const loaded = useLoad(async () => {
    const [entries, providers, session] = await Promise.all([
      api.SettingList(),
      api.Providers(),
      props.sessionId === null ? Promise.resolve(null) : api.Session(props.sessionId),
    ]);
    const images = entries.find((e) => e.key === ImagesPrefix)?.set ?? {};
    const names = new Set<string>();
    if (session !== null && session.model !== "") names.add(session.model);
    for (const p of providers) names.add(p.model);
    for (const k of Object.keys(images)) names.add(k.slice(ImagesPrefix.length));
    return { entries, images, models: [...names].sort() };
  }, [api, props.sessionId]);
  // A save reads the settings again; what is shown stays until they come.
  const reload = async () => loaded.reload();

  if (loaded.state.status === "error") {
    return (
      <ErrorNotice title="Could not load the settings" error={loaded.state.error} onRetry={loaded.reload} retryLabel="Try again" />
    );
  }
  const load = loaded.state.value;
  if (load === undefined) return <p className="muted">Loading the settings…</p>;
  const fields = load.entries.filter((e) => !e.family && !ownPane.has(e.key));
  const field = (e: Entry) =>
    e.kind === KindBool ? <BoolField key={e.key} entry={e} onSaved={reload} /> : <SettingField key={e.key} entry={e} onSaved={reload} />;
  const sessionFields = fields.filter((e) => e.key.startsWith(sessionsPrefix));
  return (
    <div className="settings-section">
      <section aria-labelledby="limits-h">
        <h3 id="limits-h">Limits and access</h3>
        {fields.filter((e) => !e.key.startsWith(workspacePrefix) && !e.key.startsWith(sessionsPrefix)).map(field)}
      </section>
      {sessionFields.length > 0 && (
        <section aria-labelledby="sessions-h">
          <h3 id="sessions-h">Sessions</h3>
          {sessionFields.map(field)}
        </section>
      )}
      <section aria-labelledby="workspace-h">
        <h3 id="workspace-h">Workspace index</h3>
        <p className="muted">
          Foya keeps a compressed copy of the workspace&apos;s files so that what shell commands change can be reverted. Files past these limits are
          recorded as not restorable.
        </p>
        {fields.filter((e) => e.key.startsWith(workspacePrefix)).map(field)}
        <WorkspaceDisk bound={load.entries.find((e) => e.key === WorkspaceMaxKept)?.value} />
      </section>
      <section aria-labelledby="images-h">
        <h3 id="images-h">Image input</h3>
        <p className="muted">
          Whether a model is sent images (screenshots, images a tool read). A model that takes none gets a note instead; sending images to such a
          model makes its server refuse the request.
        </p>
        <ImageInputs models={load.models} settings={load.images} onSaved={reload} />
      </section>
    </div>
  );
}

/**
 * WorkspaceDisk says how much disk the workspace indexes take, and the kept
 * copies against their bound (workspace.maxKeptBytes), so that a person
 * sees what the limits above cost; it asks again when the bound changes.
 */
function WorkspaceDisk(props: { bound: string | undefined }) {
  const api = useApi();
  const { state } = useLoad(() => api.WorkspaceUsage(), [api, props.bound], { keep: true });
  if (state.status === "error") return <p className="muted">The index&apos;s disk use is not known: {errorText(state.error)}</p>;
  const usage: Usage | undefined = state.value;
  if (usage === undefined) return null;
  return (
    <p className="muted" aria-label="Workspace index disk use">
      On disk: {formatBytes(String(usage.blobBytes + usage.indexBytes))} in {usage.blobs} kept contents and {usage.indexes} session indexes.
      {usage.maxKeptBytes > 0 && (
        <> Kept contents: {formatBytes(String(usage.blobBytes))} of the {formatBytes(String(usage.maxKeptBytes))} allowed.</>
      )}{" "}
      Deleting a session removes what only it kept.
    </p>
  );
}

/** Units: how a kind of setting is shown and read back; other kinds are edited as the kernel keeps them. */
const units: Partial<Record<string, { show: (v: string) => string; read: (text: string) => Parsed; how: string }>> = {
  [KindBytes]: { show: formatBytes, read: parseBytes, how: "A size in KB, MB or GB (1 MB = 1,048,576 bytes), such as 64 MB." },
  [KindDuration]: { show: formatDuration, read: parseDuration, how: "In seconds, such as 120 s; minutes work too (2 min)." },
};

type Status = { kind: "idle" } | { kind: "saving" } | { kind: "saved" } | { kind: "error"; text: string };

/**
 * SettingField edits one setting: its label, its doc line, its default and
 * the value in force, sizes and durations in their units. It saves at once,
 * as the dialog says: when the field loses focus or on Enter, if the text
 * changed. What cannot be read, or what the kernel refuses, is said at the
 * field (aria-invalid, described by the error) and the text stays as typed.
 */
function SettingField(props: { entry: Entry; onSaved(): Promise<void> }) {
  const { label, key, doc, kind } = props.entry;
  const unit = units[kind];
  const show = (v: string) => (unit !== undefined ? unit.show(v) : v);
  const value = props.entry.value;
  const api = useApi();
  const [text, setText] = useState(show(value));
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const shownValue = show(value);
  useEffect(() => setText(shownValue), [shownValue]);

  const save = async () => {
    const typed = text.trim();
    if (typed === shownValue || status.kind === "saving") return;
    const parsed: Parsed = unit !== undefined ? unit.read(typed) : { ok: true, value: typed };
    if (!parsed.ok) {
      setStatus({ kind: "error", text: parsed.error });
      return;
    }
    setStatus({ kind: "saving" });
    try {
      await api.SetSetting(key, parsed.value);
      await props.onSaved();
      setStatus({ kind: "saved" });
    } catch (err) {
      setStatus({ kind: "error", text: `${label} was not changed: ${errorText(err)}` });
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void save();
  };
  const exact = kind === KindBytes && value !== "" && shownValue !== `${value} bytes` ? ` (${Number(value).toLocaleString("en")} bytes)` : "";
  const hint = (
    <>
      {doc} {unit !== undefined && `${unit.how} `}<code>{key}</code>, default {props.entry.default === "" ? "none" : show(props.entry.default)}. Now:{" "}
      {value === "" ? "not set" : shownValue}
      {exact}.
    </>
  );
  return (
    <form className="setting-field" onSubmit={onSubmit} aria-label={label} noValidate>
      <Field label={label} hint={hint} error={status.kind === "error" ? status.text : undefined}>
        {(control) => (
          <div className="setting-row">
            <input
              {...control}
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                if (status.kind !== "saving") setStatus({ kind: "idle" });
              }}
              onBlur={() => void save()}
              spellCheck={false}
            />
            <span className="setting-status" role="status">
              {status.kind === "saving" ? "Saving…" : status.kind === "saved" ? "Saved" : ""}
            </span>
          </div>
        )}
      </Field>
    </form>
  );
}

/**
 * BoolField switches a true-or-false setting: a checkbox with the setting's
 * label and doc line, saved as soon as it changes. A failed save says why
 * at the field and shows the value in force again.
 */
function BoolField(props: { entry: Entry; onSaved(): Promise<void> }) {
  const { label, key, doc } = props.entry;
  const api = useApi();
  const id = useId();
  const inForce = (props.entry.value === "" ? props.entry.default : props.entry.value) === "true";
  const [on, setOn] = useState(inForce);
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  useEffect(() => setOn(inForce), [inForce]);

  const change = async (v: boolean) => {
    setOn(v);
    setStatus({ kind: "saving" });
    try {
      await api.SetSetting(key, String(v));
      await props.onSaved();
      setStatus({ kind: "saved" });
    } catch (err) {
      setOn(inForce);
      setStatus({ kind: "error", text: `${label} was not changed: ${errorText(err)}` });
    }
  };
  return (
    <div className="setting-field" role="group" aria-labelledby={`${id}-label`}>
      <label className="check-label" id={`${id}-label`}>
        <input
          type="checkbox"
          checked={on}
          disabled={status.kind === "saving"}
          onChange={(e) => void change(e.target.checked)}
          aria-describedby={`${id}-doc`}
          aria-invalid={status.kind === "error" ? true : undefined}
        />{" "}
        <strong>{label}</strong>
      </label>
      <span className="setting-status" role="status">
        {status.kind === "saving" ? "Saving…" : status.kind === "saved" ? "Saved" : ""}
      </span>
      <p className="muted" id={`${id}-doc`}>
        {doc} <code>{key}</code>, default {props.entry.default === "" ? "none" : props.entry.default}.
      </p>
      {status.kind === "error" && (
        <p role="alert" className="error-text">
          {status.text}
        </p>
      )}
    </div>
  );
}

function ImageInputs(props: { models: string[]; settings: Record<string, string>; onSaved(): Promise<void> }) {
  const [extra, setExtra] = useState<string[]>([]);
  const [name, setName] = useState("");
  const id = useId();
  const models = [...new Set([...props.models, ...extra])];
  const add = (e: FormEvent) => {
    e.preventDefault();
    const m = name.trim();
    if (m !== "") setExtra((x) => [...x, m]);
    setName("");
  };
  return (
    <>
      {models.length === 0 ? (
        <p className="muted">No model yet: add a provider profile, or name a model below.</p>
      ) : (
        <ul className="image-inputs" aria-label="Image input per model">
          {models.map((m) => (
            <ImageInput key={m} model={m} setByYou={imageKey(m) in props.settings} onSaved={props.onSaved} />
          ))}
        </ul>
      )}
      <form className="setting-row" onSubmit={add} aria-label="Another model">
        <label htmlFor={id}>Another model</label>
        <input id={id} value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} />
        <Button type="submit" disabled={name.trim() === ""}>
          Add
        </Button>
      </form>
    </>
  );
}

function ImageInput(props: { model: string; setByYou: boolean; onSaved(): Promise<void> }) {
  const api = useApi();
  const id = useId();
  const { state, set } = useLoad(() => api.ImageInput(props.model), [api, props.model, props.setByYou], { keep: true });
  const on = state.value ?? null;
  // failed is the last switch's failure; a failed read shows as the error too.
  const [failed, setFailed] = useState<string | null>(null);
  const error = failed ?? (state.status === "error" ? errorText(state.error) : null);
  const [busy, setBusy] = useState(false);

  const toggle = async (v: boolean) => {
    setBusy(true);
    setFailed(null);
    try {
      await api.SetSetting(imageKey(props.model), String(v));
      set(v);
      await props.onSaved();
    } catch (e) {
      setFailed(`Image input of ${props.model} was not changed: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="image-input">
      <label htmlFor={id}>
        <code>{props.model}</code>
      </label>
      <Switch.Root
        id={id}
        className="switch"
        checked={on ?? false}
        disabled={on === null || busy}
        onCheckedChange={(v) => void toggle(v)}
        aria-label={`Images for ${props.model}`}
        aria-describedby={`${id}-how`}
      >
        <Switch.Thumb className="switch-thumb" />
      </Switch.Root>
      <span className="muted" id={`${id}-how`}>
        {on === null && error === null ? "…" : props.setByYou ? "set by you" : "guessed from the model's name"}
      </span>
      {error !== null && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
    </li>
  );
}
