// Words and numbers the conversation view shows: durations, sizes, a tool
// call's target, a Run error in words.
import { ApiError } from "../../backend";
import type { Session } from "../../backend/gen/kernel";
import type { Provider } from "../../backend/gen/profiles";
import type { CardStatus, ToolCard } from "./reducer";

/** duration says how long a call ran: "12 ms", "2.2 s", "3 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s === 0 ? `${min} min` : `${min} min ${s} s`;
}

/** bytes says a size: "40 bytes", "1 byte", "3.4 KB" (1,000 bytes to the KB). */
export function bytes(n: number): string {
  if (n === 1) return "1 byte";
  if (n < 1000) return `${n} bytes`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

/** statusWord is a card's status as the card says it. */
export const statusWord: Record<CardStatus, string> = {
  queued: "queued",
  waiting: "waiting for approval",
  running: "running",
  done: "done",
  error: "error",
  cancelled: "cancelled",
  interrupted: "interrupted",
};

// The arguments that name what a tool works on, the most telling first.
const targetKeys = ["path", "command", "pattern", "url", "query", "id", "names"];
const searchKeys = ["pattern", "path", "query"];
const taskKeys = ["description"];

/**
 * target is what a call works on, from its arguments (complete or still
 * streaming): a path, a command, a pattern, a URL. "" when none is known.
 */
export function target(card: ToolCard, workdir: string): string {
  // A file tool is named by the file it changed; a command by itself,
  // whatever files it changed (those show below it).
  const change = card.name === "bash" ? undefined : card.result?.fileChanges[0];
  if (change !== undefined) return relative(change.path, workdir);
  const args = card.argsPreview;
  const keys = card.name === "grep" || card.name === "glob" ? searchKeys : card.name === "task" ? taskKeys : targetKeys;
  let value = "";
  try {
    const v: unknown = JSON.parse(args);
    if (typeof v === "object" && v !== null) {
      const o = v as Record<string, unknown>;
      for (const k of keys) {
        const x = o[k];
        if (typeof x === "string" && x !== "") {
          value = x;
          break;
        }
        if (Array.isArray(x) && x.length > 0) {
          value = x.join(", ");
          break;
        }
      }
    }
  } catch {
    // Still streaming: the first complete string of a target key.
    for (const k of keys) {
      const m = new RegExp(`"${k}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(args);
      if (m) {
        try {
          value = JSON.parse(m[1]!) as string;
        } catch {
          value = "";
        }
        break;
      }
    }
  }
  value = value.split("\n")[0]!;
  if (value.length > 120) value = value.slice(0, 119) + "…";
  return card.name === "bash" || card.name === "bash_output" || card.name === "bash_kill" || card.name === "task" ? value : relative(value, workdir);
}

/** relative shows a path inside workdir relative to it, any other as it is. */
export function relative(path: string, workdir: string): string {
  if (workdir !== "" && path.startsWith(workdir + "/")) return path.slice(workdir.length + 1);
  return path;
}

/** runError says why a Run (or Continue) was refused, with what to do. */
export function runError(e: unknown): string {
  const code = e instanceof ApiError ? e.code : "internal";
  const message = e instanceof Error ? e.message : String(e);
  if (code === "busy") return "This session already has a run going: wait for it to end, or stop it (Escape), then send again.";
  if (/^no model\b/.test(message)) {
    return "This session has no model to ask: add a provider profile with a model in Settings, then send again.";
  }
  // A mention's folder that is gone is the session's, not the model's server.
  if (/^the session's folder /.test(message)) return `The message was not sent: ${message}.`;
  if (code === "unavailable") return `The model's server is not available (${message}): check the provider in Settings, then send again.`;
  if (code === "not_found") return `This session no longer exists (${message}): pick another session in the list.`;
  return `The message was not sent: ${message}`;
}

/**
 * runModel is the model a Run of the session would ask, as the kernel picks
 * it (Kernel.Run, profiles.Service.Client): the session's profile with the
 * session's model (else the profile's), or, when the session names no profile that
 * exists, the default profile's. "" means Run would fail with "no model".
 */
export function runModel(s: Session, providers: Provider[]): string {
  const own = providers.find((p) => p.name === s.provider);
  if (own !== undefined) return s.model || own.model;
  return providers.find((p) => p.default === true)?.model ?? "";
}
