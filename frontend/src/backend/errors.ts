/**
 * toError turns whatever a transport rejected with into an Error. Wails
 * rejects bound calls with the Go error's text as a plain string.
 */
export function toError(reason: unknown): Error {
  if (reason instanceof Error) {
    return reason;
  }
  if (typeof reason === "string" && reason.trim() !== "") {
    return new Error(reason);
  }
  return new Error(`unexpected error from the backend: ${String(reason)}`);
}
