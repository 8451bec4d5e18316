import type { Event, TypedNotice } from "./gen/event";

/**
 * Event is a kernel event, the envelope generated from Go (gen/event.ts):
 * the transports route it by sessionId and order it by seq (1, 2, 3 … per
 * session, no gaps; see docs/events.md) and hand it on untouched.
 */
export type { Event };

/**
 * Notice is an event the kernel publishes and never stores
 * (background.changed, mcp.changed, mcp.elicitation; docs/events.md): its seq is 0, it is
 * in no session's log and it is not replayed.
 */
export type Notice = TypedNotice;

/** noticeTypes are the types of notices, which no session's log holds. */
const noticeTypes: ReadonlySet<string> = new Set(["background.changed", "mcp.changed", "mcp.elicitation"]);

/** isNotice says whether ev is a notice rather than a stored event. */
export function isNotice(ev: Event): ev is Event & Notice {
  return noticeTypes.has(ev.type);
}

/**
 * Transport is how the UI reaches the kernel: the desktop over Wails
 * bindings and runtime events (wails.ts), the browser over `foya serve`'s
 * HTTP and SSE (http.ts). Both call the same methods, those of the Go
 * api.Service, with the same JSON arguments, and reject with an ApiError.
 */
export interface Transport {
  /** call invokes a method of api.Service with its arguments in order. */
  call<T>(method: string, args: unknown[]): Promise<T>;
  /**
   * subscribe delivers a session's events with seq > afterSeq, each once
   * and in seq order: first those stored, then live ones as they come,
   * across reconnections, until the returned function is called.
   */
  subscribe(sessionId: string, afterSeq: number, onEvent: (ev: Event) => void): () => void;
  /**
   * subscribeAll delivers every session's live stored events from now on (no
   * replay), in the order published, until the returned function is called.
   * After a dropped connection it goes on with the events published since
   * it reconnected: what came in between is lost, so a view that needs
   * every event lists again (the session list reloads on reconnect, see
   * onReconnect) or uses subscribe.
   */
  subscribeAll(onEvent: (ev: Event) => void, onReconnect?: () => void): () => void;
  /**
   * subscribeNotices delivers the kernel's notices from now on, in the
   * order published, until the returned function is called. A notice
   * missed while the connection was down is not sent again: onReconnect
   * says so, and a view that shows what notices change lists again. No
   * view needs a timer to follow a background command or an MCP server.
   */
  subscribeNotices(onNotice: (n: Notice) => void, onReconnect?: () => void): () => void;
  /**
   * pickFolder shows the system's folder dialog and resolves to the
   * chosen folder, or null when the user cancelled. It is null where there
   * is no such dialog (the browser): there the UI offers a path field
   * completed by the CompletePath call.
   */
  readonly pickFolder: (() => Promise<string | null>) | null;
}
