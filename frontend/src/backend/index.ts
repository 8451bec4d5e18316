// Package-like entry for src/backend: the only code that touches Wails
// bindings, fetch, event streams and the serve token.
import { HttpTransport } from "./http";
import { takeToken } from "./token";
import type { Transport } from "./transport";
import { hasWails, WailsTransport } from "./wails";

export type { Event, Transport } from "./transport";
export type { Info, Session } from "./types";
export type { UIReport } from "./smoke";
export { ApiError, toApiError } from "./errors";
export { TransportProvider, useApi, useTransport } from "./context";
export { countConversation, reportConversation, reportReady, smokeSession } from "./smoke";
export { createApi } from "./gen/api";
export type { Api } from "./gen/api";

/**
 * defaultTransport picks the transport for the page it runs in: Wails in
 * the desktop window (its runtime is injected), else `foya serve`'s HTTP
 * with the token from the address or this tab's storage (token.ts).
 */
export function defaultTransport(): Transport {
  return hasWails() ? new WailsTransport() : new HttpTransport({ token: takeToken(window) });
}
