// An MCP server's question during a tool call (elicitation): a form built
// from the server's schema, or a URL the server asks the user to open.
// Send (Enter) checks every field first and says what is wrong at each;
// Decline says no; Cancel (Esc) dismisses it. Focus goes into the form
// when it shows; a URL opens only when the user clicks to open it.
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { ElicitField, MCPElicitationData } from "../../backend/gen/event";
import type { ElicitAnswer } from "../../backend/gen/kernel";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { check, initialRaw, label, type Raw } from "./form";
import "./elicit.css";

/**
 * GUARD_MS is how long a form that just showed ignores Enter, so a
 * keystroke meant for the message box never sends it.
 */
export const GUARD_MS = 500;

/** hint says what a field takes, in words. */
function hint(f: ElicitField): string {
  const parts: string[] = [];
  if (f.description !== undefined && f.description !== "") parts.push(f.description);
  const range = (lo: number | undefined, hi: number | undefined, unit: string) => {
    if (lo !== undefined && hi !== undefined) return `${lo} to ${hi}${unit}`;
    if (lo !== undefined) return `at least ${lo}${unit}`;
    if (hi !== undefined) return `at most ${hi}${unit}`;
    return "";
  };
  if (f.type === "integer") parts.push(["a whole number", range(f.minimum, f.maximum, "")].filter((x) => x !== "").join(", "));
  if (f.type === "number") parts.push(["a number", range(f.minimum, f.maximum, "")].filter((x) => x !== "").join(", "));
  if (f.type === "string" && (f.options ?? []).length === 0) {
    const len = range(f.minLength, f.maxLength, " characters");
    const fmt = { email: "an email address", uri: "a URI, such as https://example.com", date: "a date, such as 2026-12-31", "date-time": "a date and time, such as 2026-12-31T09:30:00Z" }[f.format ?? ""];
    parts.push([fmt ?? "", len].filter((x) => x !== "").join(", "));
  }
  return parts.filter((x) => x !== "").join(" · ");
}

export interface ElicitFormProps {
  req: MCPElicitationData;
  /** onAnswer sends the answer; it rejects with the kernel's error. */
  onAnswer: (a: ElicitAnswer) => Promise<void>;
}

/** ElicitForm is one pending question of an MCP server. */
export function ElicitForm({ req, onAnswer }: ElicitFormProps) {
  const fields = req.fields ?? [];
  const [raw, setRaw] = useState<Raw>(() => initialRaw(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const armed = useRef(false);
  const self = useRef<HTMLElement>(null);
  const titleId = useId();

  useEffect(() => {
    const t = setTimeout(() => (armed.current = true), GUARD_MS);
    return () => clearTimeout(t);
  }, []);
  // Focus into the form: its first field, else the question itself.
  useEffect(() => {
    const el = self.current;
    if (el === null) return;
    const first = el.querySelector<HTMLElement>("input, select");
    (first ?? el).focus({ preventScroll: true });
    el.scrollIntoView?.({ block: "nearest" });
  }, []);

  const send = async (a: ElicitAnswer) => {
    if (busy) return;
    setBusy(true);
    setError("");
    try {
      await onAnswer(a);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  const submit = () => {
    const { values, errors } = check(fields, raw);
    setErrors(errors);
    const bad = fields.find((f) => errors[f.name] !== undefined);
    if (bad !== undefined) {
      self.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(bad.name)}"]`)?.focus();
      return;
    }
    void send({ action: "accept", content: values });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (armed.current) submit();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key === "Escape") {
      // Cancel the question, not the run.
      e.preventDefault();
      e.stopPropagation();
      void send({ action: "cancel" });
      return;
    }
    const tag = (e.target as HTMLElement).tagName;
    if (e.key === "Enter" && req.mode !== "url" && tag !== "BUTTON" && tag !== "A" && tag !== "TEXTAREA") {
      e.preventDefault();
      if (armed.current) submit();
    }
  };
  const set = (name: string, v: string | boolean) => {
    setRaw((r) => ({ ...r, [name]: v }));
    if (errors[name] !== undefined) setErrors(({ [name]: _, ...rest }) => rest);
  };

  return (
    <section className="elicit" aria-labelledby={titleId} tabIndex={-1} ref={self} onKeyDown={onKeyDown}>
      <h3 className="elicit-title" id={titleId}>
        The MCP server {req.server} asks
      </h3>
      {req.message !== "" && <p className="elicit-message">{req.message}</p>}
      {req.mode === "url" ? (
        <>
          <p className="elicit-url">
            It asks you to open <code>{req.url}</code>
          </p>
          <div className="elicit-actions">
            <a
              className="button button-primary"
              href={req.url}
              target="_blank"
              rel="noreferrer noopener"
              aria-disabled={busy}
              onClick={(e) => {
                if (busy) {
                  e.preventDefault();
                  return;
                }
                void send({ action: "accept" });
              }}
            >
              Open in the browser
            </a>
            <Button disabled={busy} onClick={() => void send({ action: "decline" })}>
              Decline
            </Button>
            <Button disabled={busy} variant="ghost" onClick={() => void send({ action: "cancel" })}>
              Cancel
            </Button>
          </div>
        </>
      ) : (
        <form noValidate onSubmit={onSubmit} className="elicit-form">
          {fields.map((f) => (
            <FieldInput key={f.name} f={f} value={raw[f.name] ?? ""} error={errors[f.name]} onChange={(v) => set(f.name, v)} />
          ))}
          <div className="elicit-actions">
            <Button type="submit" variant="primary" disabled={busy} aria-keyshortcuts="Enter">
              Send
            </Button>
            <Button disabled={busy} onClick={() => void send({ action: "decline" })}>
              Decline
            </Button>
            <Button disabled={busy} variant="ghost" aria-keyshortcuts="Escape" onClick={() => void send({ action: "cancel" })}>
              Cancel
            </Button>
            <span className="muted hint">Enter sends · Esc cancels</span>
          </div>
        </form>
      )}
      {error !== "" && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** FieldInput is one field's control, with its label, hint and error. */
function FieldInput(props: { f: ElicitField; value: string | boolean; error: string | undefined; onChange: (v: string | boolean) => void }) {
  const { f } = props;
  const required = f.required === true;
  const name = (
    <>
      {label(f)}
      {required && (
        <span className="elicit-required" aria-hidden="true">
          {" "}
          *
        </span>
      )}
    </>
  );
  const h = hint(f);
  if (f.type === "boolean") {
    // A checkbox reads as its label, box first; its hint and error beneath.
    return <CheckField f={f} required={required} hint={h} value={props.value === true} error={props.error} onChange={props.onChange} />;
  }
  return (
    <Field label={name} hint={h === "" ? undefined : h} error={props.error} className="elicit-field">
      {(c) => {
        const common = { ...c, className: "input", "data-field": f.name, "aria-required": required || undefined };
        const opts = f.options ?? [];
        if (opts.length > 0) {
          return (
            <select {...common} value={String(props.value)} onChange={(e) => props.onChange(e.target.value)}>
              <option value="">{required ? "Choose one" : "None"}</option>
              {opts.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.title !== undefined && o.title !== "" ? o.title : o.value}
                </option>
              ))}
            </select>
          );
        }
        const numeric = f.type === "number" || f.type === "integer";
        return (
          <input
            {...common}
            type={f.format === "email" ? "email" : "text"}
            inputMode={numeric ? (f.type === "integer" ? "numeric" : "decimal") : undefined}
            autoComplete="off"
            value={String(props.value)}
            onChange={(e) => props.onChange(e.target.value)}
          />
        );
      }}
    </Field>
  );
}

/** CheckField is a boolean field: the box before its label, its hint and error beneath. */
function CheckField(props: {
  f: ElicitField;
  required: boolean;
  hint: string;
  value: boolean;
  error: string | undefined;
  onChange: (v: boolean) => void;
}) {
  const id = useId();
  const bad = props.error !== undefined && props.error !== "";
  const described = [bad ? `${id}-error` : "", props.hint !== "" ? `${id}-hint` : ""].filter((x) => x !== "").join(" ");
  return (
    <div className="field elicit-field">
      <label className="elicit-check">
        <input
          type="checkbox"
          data-field={props.f.name}
          checked={props.value}
          aria-required={props.required || undefined}
          aria-invalid={bad || undefined}
          aria-describedby={described === "" ? undefined : described}
          onChange={(e) => props.onChange(e.target.checked)}
        />
        {label(props.f)}
        {props.required && (
          <span className="elicit-required" aria-hidden="true">
            {" "}
            *
          </span>
        )}
      </label>
      {bad && (
        <p id={`${id}-error`} className="field-error">
          {props.error}
        </p>
      )}
      {props.hint !== "" && (
        <p id={`${id}-hint`} className="muted hint">
          {props.hint}
        </p>
      )}
    </div>
  );
}
