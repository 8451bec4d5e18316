// The values of an MCP server's form (an mcp.elicitation notice's fields)
// as the inputs hold them, and their check: the same rules as the
// kernel's (backend/mcp/elicit.go), so a person sees each field's error
// before anything is sent.
import type { ElicitField } from "../../backend/gen/event";

/** Raw is what the inputs hold: text for strings and numbers, a flag for booleans. */
export type Raw = Record<string, string | boolean>;

/** Value is one value of the answer. */
export type Value = string | number | boolean;

/** initialRaw fills each input with its field's default ("" or false without one). */
export function initialRaw(fields: readonly ElicitField[]): Raw {
  const raw: Raw = {};
  for (const f of fields) {
    if (f.type === "boolean") raw[f.name] = typeof f.default === "boolean" ? f.default : false;
    else raw[f.name] = f.default === undefined ? "" : String(f.default);
  }
  return raw;
}

/** label is a field's title, else its name. */
export function label(f: ElicitField): string {
  return f.title !== undefined && f.title !== "" ? f.title : f.name;
}

const emailRe = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/;
const dateRe = /^\d{4}-\d{2}-\d{2}$/;
const dateTimeRe = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function validDate(s: string): boolean {
  if (!dateRe.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}

/** checkString is what is wrong with a string's value ("" when nothing). */
function checkString(f: ElicitField, s: string): string {
  const n = [...s].length;
  if (f.minLength !== undefined && n < f.minLength) return `must be at least ${f.minLength} characters`;
  if (f.maxLength !== undefined && n > f.maxLength) return `must be at most ${f.maxLength} characters`;
  if (f.options !== undefined && f.options.length > 0 && !f.options.some((o) => o.value === s)) return "must be one of the choices";
  switch (f.format) {
    case "email":
      return emailRe.test(s) ? "" : "must be an email address";
    case "uri":
      return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) ? "" : "must be a URI, such as https://example.com";
    case "date":
      return validDate(s) ? "" : "must be a date, such as 2026-12-31";
    case "date-time":
      return dateTimeRe.test(s) && validDate(s.slice(0, 10)) ? "" : "must be a date and time, such as 2026-12-31T09:30:00Z";
  }
  return "";
}

/** checkNumber reads a number's text and says what is wrong with it. */
function checkNumber(f: ElicitField, s: string): [number, string] {
  const t = s.trim();
  const n = t === "" ? NaN : Number(t);
  if (!Number.isFinite(n)) return [n, "must be a number"];
  if (f.type === "integer" && !Number.isInteger(n)) return [n, "must be a whole number"];
  if (f.minimum !== undefined && n < f.minimum) return [n, `must be at least ${f.minimum}`];
  if (f.maximum !== undefined && n > f.maximum) return [n, `must be at most ${f.maximum}`];
  return [n, ""];
}

/**
 * check turns the inputs into the answer's values and says what is wrong
 * with each field, by name. An empty optional text or number is left out;
 * an empty required one is "required". Booleans are always sent.
 */
export function check(fields: readonly ElicitField[], raw: Raw): { values: Record<string, Value>; errors: Record<string, string> } {
  const values: Record<string, Value> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = raw[f.name];
    if (f.type === "boolean") {
      values[f.name] = v === true;
      continue;
    }
    const s = typeof v === "string" ? v : "";
    if (s === "") {
      if (f.required === true) errors[f.name] = "required";
      continue;
    }
    if (f.type === "number" || f.type === "integer") {
      const [n, msg] = checkNumber(f, s);
      if (msg !== "") errors[f.name] = msg;
      else values[f.name] = n;
      continue;
    }
    const msg = checkString(f, s);
    if (msg !== "") errors[f.name] = msg;
    else values[f.name] = s;
  }
  return { values, errors };
}
