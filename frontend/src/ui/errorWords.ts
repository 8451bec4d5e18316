// Errors in words: what a person reads first when something failed, the
// technical text kept for the Details fold, and which actions help.
import { ApiError } from "../backend/errors";

/** ErrorAction is an action that may help with an error; the notice offers those its caller can do. */
export type ErrorAction = "retry" | "settings" | "test";

/** Cause is a kind of failure the UI words in its own sentence. */
export type Cause = "unreachable" | "key" | "rate" | "busy" | "not_found" | "database" | "access" | "unknown";

/** Explained is an error in words: the sentence first, the technical detail, what may help. */
export interface Explained {
  cause: Cause;
  /** sentence says what happened, in words a person without the logs understands. */
  sentence: string;
  /** next says what to do about it. */
  next: string;
  /** detail is the technical text as the backend gave it ("" when there is none). */
  detail: string;
  /** actions are those that may help, the most useful first. */
  actions: ErrorAction[];
}

/**
 * host finds the model server's address in a technical message: the host
 * of the first URL, else the address a dial or a lookup named; "" when
 * none is there.
 */
export function host(text: string): string {
  const url = /\bhttps?:\/\/([^/\s"'?#]+)/i.exec(text);
  if (url !== null) return url[1]!;
  const dial = /\bdial tcp (\[[^\]]+\](?::\d+)?|[^\s:\[]+(?::\d+)?)/.exec(text);
  if (dial !== null) return dial[1]!;
  const lookup = /\blookup ([^\s:]+)/.exec(text);
  return lookup !== null ? lookup[1]! : "";
}

const unreachable = /connection refused|no such host|i\/o timeout|timed? ?out|deadline exceeded|network is unreachable|no route to host|connection reset|server misbehaving/i;
const modelKey = /\b(401|403)\b|unauthori[sz]ed|forbidden|invalid api key|incorrect api key/i;
const rateLimit = /\b429\b|too many requests|rate.?limit/i;
const database = /\bdatabase\b|sqlite|SQLITE_|disk I\/O error|readonly database|database is locked/i;

/**
 * explain words an error: an ApiError (a refused call), or the text of a
 * failure the kernel reported (a run's error). Known causes get their own
 * sentence; any other gets a general one, its text kept in detail.
 */
export function explain(e: unknown): Explained {
  const err = e instanceof ApiError ? e : typeof e === "string" ? new ApiError("", e) : e instanceof Error ? new ApiError("internal", e.message) : new ApiError("internal", String(e));
  const detail = err.message.trim();
  const code = err.code;
  const words = (cause: Cause, sentence: string, next: string, actions: ErrorAction[]): Explained => ({ cause, sentence, next, detail, actions });

  // Foya's own server refused the page (the browser front end's token).
  if (code === "unauthorized" || code === "forbidden") {
    return words("access", "Foya refused this page's access token.", "Open Foya again from the address it printed when it started.", []);
  }
  if (code === "busy") {
    return words("busy", "This session already has a run going.", "Wait for it to end, or stop it (Escape), then try again.", ["retry"]);
  }
  if (code === "not_found") {
    return words("not_found", "What this was about no longer exists: it may have been deleted.", "Pick another one in the list.", []);
  }
  // Before the status codes: an address may hold digits such as 401 or 429 (a port).
  if (unreachable.test(detail) && !database.test(detail)) {
    const at = host(detail);
    return words(
      "unreachable",
      at !== "" ? `Foya could not reach the model server at ${at}.` : "Foya could not reach the model server.",
      "Check that the server is running and the provider's address in Settings is right, then retry.",
      ["retry", "test", "settings"],
    );
  }
  if (rateLimit.test(detail)) {
    return words("rate", "The model server is limiting requests: too many were sent in a short time.", "Wait a little, then retry.", ["retry", "settings"]);
  }
  if (modelKey.test(detail) && !database.test(detail)) {
    return words("key", "The model server refused the key.", "Check the provider's API key in Settings, then retry.", ["settings", "test", "retry"]);
  }
  if (database.test(detail) || (code === "internal" && /\bstore\b/.test(detail))) {
    return words("database", "Foya could not read or write its database.", "Check there is free disk space and that the data folder can be written, then retry.", ["retry"]);
  }
  if (code === "unavailable") {
    return words("unreachable", "The model server is not available.", "Check the provider in Settings, then retry.", ["retry", "test", "settings"]);
  }
  return words("unknown", "Something went wrong.", detail !== "" ? "The details below say what Foya was told; retry, or check Settings." : "Retry; if it fails again, check Settings.", ["retry"]);
}
