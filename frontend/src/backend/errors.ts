/**
 * ApiError is what every Transport call rejects with: a code the UI may
 * branch on (the kernel's: not_found, invalid, conflict, busy, unavailable,
 * internal; the server's: unauthorized, forbidden) and a message a person
 * can read.
 */
export class ApiError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.code = code;
  }
}

/**
 * toApiError turns whatever a transport rejected with into an ApiError.
 * Wails rejects a bound call with the Go error's text, which for the
 * kernel's API is the JSON `{"code":...,"message":...}`; any other text (an
 * error of Wails itself, such as arguments it could not parse) is an
 * internal error with that text as its message.
 */
export function toApiError(reason: unknown): ApiError {
  if (reason instanceof ApiError) {
    return reason;
  }
  if (typeof reason === "string") {
    if (reason.trim() === "") {
      return new ApiError("internal", "unexpected error from the backend: an empty message");
    }
    return fromBody(reason) ?? new ApiError("internal", reason);
  }
  if (isCoded(reason)) {
    return new ApiError(reason.code, reason.message);
  }
  if (reason instanceof Error) {
    return new ApiError("internal", reason.message);
  }
  return new ApiError("internal", `unexpected error from the backend: ${String(reason)}`);
}

/**
 * fromBody parses the JSON text `{"code":...,"message":...}`, or returns
 * null when text is not that.
 */
export function fromBody(text: string): ApiError | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  return isCoded(v) ? new ApiError(v.code, v.message) : null;
}

function isCoded(v: unknown): v is { code: string; message: string } {
  if (typeof v !== "object" || v === null) {
    return false;
  }
  const o = v as { code?: unknown; message?: unknown };
  return typeof o.code === "string" && o.code !== "" && typeof o.message === "string";
}
