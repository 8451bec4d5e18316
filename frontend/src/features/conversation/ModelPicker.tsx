// The model picker beside the composer: a button naming the model the
// session's next run asks, and a menu of the configured provider profiles
// and, for the one chosen, the models its server lists (the same
// ProviderModels call the settings make). Choosing sets the session's
// profile and model (SetModel): the kernel records it (session.model), a
// run already going keeps its own. A server that is down lists nothing,
// and the model's name can be typed instead.
//
// Keyboard: the filter box holds the focus; typing filters, Up and Down
// move, Enter chooses, Escape closes, Backspace in an empty box goes back
// to the profiles.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useApi } from "../../backend/context";
import { toApiError } from "../../backend/errors";
import { useLoad } from "../useLoad";
import { runModel } from "./format";
import "./ModelPicker.css";

type Stage = { kind: "profiles" } | { kind: "models"; provider: string };

interface Option {
  key: string;
  label: string;
  /** The profile's name, or the model's. */
  value: string;
}

/** ModelPicker is the session's model button and its menu (see the file's comment). */
export function ModelPicker({ sessionId, running }: { sessionId: string; running: boolean }) {
  const api = useApi();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [stage, setStage] = useState<Stage>({ kind: "profiles" });
  const [filter, setFilter] = useState("");
  const [active, setActive] = useState(0);
  const [error, setError] = useState("");
  const [saving, setSaving] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const input = useRef<HTMLInputElement>(null);
  // After each run too (a session's first run gives it the default
  // profile), and at each opening (the settings may have changed).
  const loaded = useLoad(() => Promise.all([api.Session(sessionId), api.Providers()]), [api, sessionId, running], { keep: true });
  const provider = stage.kind === "models" ? stage.provider : "";
  const models = useLoad(() => (provider === "" ? Promise.resolve([]) : api.ProviderModels(provider)), [api, provider]);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open, stage]);

  const [sess, providers] = loaded.state.value ?? [undefined, []];
  const current = sess === undefined ? "" : runModel(sess, providers);
  const currentProfile = providers.some((p) => p.name === sess?.provider) ? sess!.provider : (providers.find((p) => p.default === true)?.name ?? "");
  const needle = filter.trim().toLowerCase();
  let options: Option[];
  if (stage.kind === "profiles") {
    options = providers
      .filter((p) => p.name.toLowerCase().includes(needle))
      .map((p) => ({ key: `p:${p.name}`, label: p.default === true ? `${p.name} (default)` : p.name, value: p.name }));
  } else {
    const ids = models.state.status === "ready" ? models.state.value : [];
    options = ids.filter((m) => m.toLowerCase().includes(needle)).map((m) => ({ key: `m:${m}`, label: m, value: m }));
    // A name the server does not list (or a server that is down) can be typed.
    if (filter.trim() !== "" && !ids.includes(filter.trim())) options.push({ key: "typed", label: `Use “${filter.trim()}”`, value: filter.trim() });
  }
  const at = Math.min(active, Math.max(options.length - 1, 0));

  // refocus: back to the button (Escape, a choice), not when the focus left for elsewhere.
  const close = (refocus = true) => {
    setOpen(false);
    setStage({ kind: "profiles" });
    setFilter("");
    setActive(0);
    setError("");
    if (refocus) button.current?.focus();
  };
  const toStage = (s: Stage) => {
    setStage(s);
    setFilter("");
    setActive(0);
    setError("");
  };
  const choose = async (o: Option) => {
    if (stage.kind === "profiles") {
      toStage({ kind: "models", provider: o.value });
      return;
    }
    setSaving(true);
    try {
      const s = await api.SetModel({ sessionId, provider: stage.provider, model: o.value });
      loaded.set([s, providers]);
      close();
    } catch (e) {
      setError(toApiError(e).message);
    } finally {
      setSaving(false);
    }
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const n = options.length;
      if (n > 0) setActive(e.key === "ArrowDown" ? (at + 1) % n : (at - 1 + n) % n);
    } else if (e.key === "Enter") {
      e.preventDefault();
      const o = options[at];
      if (o !== undefined && !saving) void choose(o);
    } else if (e.key === "Escape") {
      // Closes the menu only; the run goes on.
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === "Backspace" && filter === "" && stage.kind === "models") {
      e.preventDefault();
      toStage({ kind: "profiles" });
    }
  };

  const listId = `${id}-list`;
  const label = current === "" ? "Model: none chosen" : `Model: ${current}${currentProfile !== "" ? ` (${currentProfile})` : ""}`;
  return (
    <div className="convo-model">
      <button
        ref={button}
        type="button"
        className="button convo-model-button"
        aria-haspopup="listbox"
        aria-expanded={open}
        title="Choose the profile and model of this session's next runs"
        onClick={() => {
          if (open) return close();
          loaded.reload();
          setOpen(true);
        }}
      >
        {label}
      </button>
      {open && (
        <div
          className="convo-model-menu"
          role="group"
          aria-label="Choose a model"
          onBlur={(e) => {
            if (!e.currentTarget.contains(e.relatedTarget as Node | null) && e.relatedTarget !== button.current) close(false);
          }}
        >
          <p className="convo-model-head">
            {stage.kind === "profiles" ? "Provider profiles" : `Models of ${stage.provider}`}
            {stage.kind === "models" && (
              <button type="button" className="button" onClick={() => toStage({ kind: "profiles" })}>
                Other profile
              </button>
            )}
          </p>
          <input
            ref={input}
            role="combobox"
            aria-label={stage.kind === "profiles" ? "Filter profiles" : "Filter or type a model"}
            aria-expanded
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={options.length > 0 ? `${listId}-${at}` : undefined}
            value={filter}
            placeholder={stage.kind === "profiles" ? "Type to filter" : "Type to filter, or a model's name"}
            onChange={(e) => {
              setFilter(e.target.value);
              setActive(0);
            }}
            onKeyDown={onKey}
          />
          {stage.kind === "models" && models.state.status === "loading" && <p className="muted">Asking {stage.provider} for its models…</p>}
          {stage.kind === "models" && models.state.status === "error" && (
            <p className="muted" role="status">
              Could not list the models of {stage.provider}: {models.state.error.message}. Type the model's name and press Enter.
            </p>
          )}
          {stage.kind === "profiles" && providers.length === 0 && (
            <p className="muted">No provider profile is configured: add one in Settings, Providers.</p>
          )}
          <ul id={listId} role="listbox" aria-label={stage.kind === "profiles" ? "Provider profiles" : `Models of ${stage.provider}`}>
            {options.map((o, i) => (
              <li
                key={o.key}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === at}
                className={i === at ? "active" : undefined}
                onMouseDown={(e) => e.preventDefault()}
                onMouseEnter={() => setActive(i)}
                onClick={() => void choose(o)}
              >
                {o.label}
              </li>
            ))}
          </ul>
          {error !== "" && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
