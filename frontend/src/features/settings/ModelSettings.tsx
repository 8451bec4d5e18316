import { useCallback, useEffect, useId, useState, type FormEvent } from "react";
import { Switch } from "radix-ui";
import { useApi } from "../../backend";
import { Button } from "../../ui/Button";
import { Notice } from "../../ui/Notice";
import { errorText } from "./errors";
import type { WorkspaceUsage as Usage } from "../../backend/gen/kernel";
import {
  bytesText,
  imageKey,
  imagesPrefix,
  settingIdleTimeout,
  settingMaxSteps,
  settingMaxWrite,
  settingWorkspaceMaxFile,
  settingWorkspaceMaxKept,
  settingWorkspaceMaxTotal,
} from "./keys";
import { Result } from "./ModeSettings";

type Load =
  | { status: "loading" }
  | { status: "error"; message: string }
  | { status: "ready"; settings: Record<string, string>; models: string[] };

/**
 * ModelSettings sets image input per model (model.images.MODEL), the step
 * limit of a turn (run.max_steps), the most one write may hold
 * (files.maxWriteBytes) and how long a silent model is waited for
 * (provider.idleTimeout). Every value is checked by the kernel, whose
 * message is shown as it is.
 */
export function ModelSettings(props: { sessionId: string | null }) {
  const api = useApi();
  const [load, setLoad] = useState<Load>({ status: "loading" });

  const reload = useCallback(async () => {
    try {
      const [settings, providers, session] = await Promise.all([
        api.Settings(),
        api.Providers(),
        props.sessionId === null ? Promise.resolve(null) : api.Session(props.sessionId),
      ]);
      const names = new Set<string>();
      if (session !== null && session.model !== "") names.add(session.model);
      for (const p of providers) names.add(p.model);
      for (const k of Object.keys(settings)) if (k.startsWith(imagesPrefix)) names.add(k.slice(imagesPrefix.length));
      setLoad({ status: "ready", settings, models: [...names].sort() });
    } catch (e) {
      setLoad({ status: "error", message: errorText(e) });
    }
  }, [api, props.sessionId]);

  useEffect(() => {
    void reload();
  }, [reload]);

  if (load.status === "loading") return <p className="muted">Loading the settings…</p>;
  if (load.status === "error") {
    return (
      <Notice kind="alert" title="Could not load the settings">
        <p className="error-text">{load.message}</p>
        <Button onClick={() => void reload()}>Try again</Button>
      </Notice>
    );
  }
  return (
    <div className="settings-section">
      <section aria-labelledby="limits-h">
        <h3 id="limits-h">Limits</h3>
        <SettingField
          label="Step limit"
          settingKey={settingMaxSteps}
          value={load.settings[settingMaxSteps] ?? ""}
          hint="The most model steps one turn takes before it stops with a Continue button: a whole number."
          onSaved={reload}
        />
        <SettingField
          label="Largest write"
          settingKey={settingMaxWrite}
          value={load.settings[settingMaxWrite] ?? ""}
          shown={bytesText}
          hint="The most content one write or edit may hold: bytes, or a number with KiB, MiB or GiB, such as 64MiB."
          onSaved={reload}
        />
        <SettingField
          label="Model idle timeout"
          settingKey={settingIdleTimeout}
          value={load.settings[settingIdleTimeout] ?? ""}
          hint="How long a model may send nothing before its stream is stopped: a duration such as 30s or 5m."
          onSaved={reload}
        />
      </section>
      <section aria-labelledby="workspace-h">
        <h3 id="workspace-h">Workspace index</h3>
        <p className="muted">
          Foya keeps a compressed copy of the workspace&apos;s files so that what shell commands change can be reverted. Files past these limits are
          recorded as not restorable.
        </p>
        <SettingField
          label="Largest file kept"
          settingKey={settingWorkspaceMaxFile}
          value={load.settings[settingWorkspaceMaxFile] ?? ""}
          shown={bytesText}
          hint="Larger files are tracked without a copy: bytes, or a number with KiB, MiB or GiB."
          onSaved={reload}
        />
        <SettingField
          label="Most kept per session"
          settingKey={settingWorkspaceMaxTotal}
          value={load.settings[settingWorkspaceMaxTotal] ?? ""}
          shown={bytesText}
          hint="The most file contents one session's index keeps, before compression."
          onSaved={reload}
        />
        <SettingField
          label="Most kept on disk"
          settingKey={settingWorkspaceMaxKept}
          value={load.settings[settingWorkspaceMaxKept] ?? ""}
          shown={bytesText}
          hint="The most disk the kept copies take, all sessions together, compressed (twice the above unless set). Past it a file is not copied, and a command's change to it is not restorable."
          onSaved={reload}
        />
        <WorkspaceDisk bound={load.settings[settingWorkspaceMaxKept]} />
      </section>
      <section aria-labelledby="images-h">
        <h3 id="images-h">Image input</h3>
        <p className="muted">
          Whether a model is sent images (screenshots, images a tool read). A model that takes none gets a note instead; sending images to such a
          model makes its server refuse the request.
        </p>
        <ImageInputs models={load.models} settings={load.settings} onSaved={reload} />
      </section>
    </div>
  );
}

/**
 * WorkspaceDisk says how much disk the workspace indexes take (issue 15
 * item 5), and the kept copies against their bound (issue 21 item 10); it
 * asks again when the bound changes.
 */
function WorkspaceDisk(props: { bound: string | undefined }) {
  const api = useApi();
  const [usage, setUsage] = useState<Usage | null | string>(null);
  useEffect(() => {
    let live = true;
    api.WorkspaceUsage().then(
      (u) => live && setUsage(u),
      (e: unknown) => live && setUsage(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [api, props.bound]);
  if (usage === null) return null;
  if (typeof usage === "string") return <p className="muted">The index&apos;s disk use is not known: {usage}</p>;
  return (
    <p className="muted" aria-label="Workspace index disk use">
      On disk: {bytesText(String(usage.blobBytes + usage.indexBytes))} in {usage.blobs} kept contents and {usage.indexes} session indexes.
      {usage.maxKeptBytes > 0 && (
        <> Kept contents: {bytesText(String(usage.blobBytes))} of the {bytesText(String(usage.maxKeptBytes))} allowed.</>
      )}{" "}
      Deleting a session removes what only it kept.
    </p>
  );
}

function SettingField(props: {
  label: string;
  settingKey: string;
  value: string;
  hint: string;
  shown?: (v: string) => string;
  onSaved(): Promise<void>;
}) {
  const api = useApi();
  const id = useId();
  const [text, setText] = useState(props.value);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => setText(props.value), [props.value]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setResult(null);
    try {
      await api.SetSetting(props.settingKey, text.trim());
      await props.onSaved();
      setResult({ ok: true, text: `${props.label} saved.` });
    } catch (err) {
      setResult({ ok: false, text: `${props.label} was not changed: ${errorText(err)}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="setting-field" onSubmit={(e) => void save(e)} aria-label={props.label} noValidate>
      <label htmlFor={id}>{props.label}</label>
      <div className="setting-row">
        <input id={id} value={text} onChange={(e) => setText(e.target.value)} aria-describedby={`${id}-hint`} spellCheck={false} />
        <Button type="submit" disabled={busy || text.trim() === props.value} aria-label={`Save ${props.label.toLowerCase()}`}>
          Save
        </Button>
      </div>
      <p className="muted hint" id={`${id}-hint`}>
        {props.hint} Now: {props.shown ? props.shown(props.value) : props.value}.
      </p>
      <Result result={result} />
    </form>
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
  const [on, setOn] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    api.ImageInput(props.model).then(
      (v) => live && setOn(v),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [api, props.model, props.setByYou]);

  const toggle = async (v: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await api.SetSetting(imageKey(props.model), String(v));
      setOn(v);
      await props.onSaved();
    } catch (e) {
      setError(`Image input of ${props.model} was not changed: ${errorText(e)}`);
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
