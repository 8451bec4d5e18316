// Package-like entry for src/backend: the only code that touches Wails
// bindings (and, later, fetch/EventSource for `foya serve`).
import { unavailableBackend } from "./unavailable";
import { hasWails, wailsBackend } from "./wails";
import type { Backend } from "./types";

export type { Backend, Info, Session, UIReport } from "./types";
export { BackendProvider, useBackend } from "./context";
export { toError } from "./errors";

/** defaultBackend picks the transport for the page it runs in. */
export function defaultBackend(): Backend {
  return hasWails() ? wailsBackend : unavailableBackend;
}
