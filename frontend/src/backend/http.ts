import { ApiError, fromBody } from "./errors";
import { FetchEventSource } from "./eventstream";
import { isNotice, type Event, type Notice, type Transport } from "./transport";

/** EventSourceLike is the part of the browser's EventSource this file uses (FetchEventSource has it). */
export interface EventSourceLike {
  onmessage: ((m: MessageEvent<string>) => void) | null;
  onerror: (() => void) | null;
  /** onopen is called when the stream is (re)connected. */
  onopen: (() => void) | null;
  readonly readyState: number;
  close(): void;
}

/** closedState is EventSource.CLOSED: the source gave up and will not reconnect. */
const closedState = 2;

export interface HttpOptions {
  /** token is foya serve's token, sent as Authorization: Bearer (see token.ts); "" sends none. */
  token?: string;
  /** fetch sends the calls; the page's own fetch by default. */
  fetch?: typeof fetch;
  /** openEvents opens an event stream; a FetchEventSource with the token by default. */
  openEvents?: (url: string) => EventSourceLike;
  /** retryMs is how long to wait before reopening a stream the browser gave up on. */
  retryMs?: number;
}

/**
 * HttpTransport implements Transport in a browser page served by `foya
 * serve`: calls are `POST /api/call/{method}` with the JSON array of
 * arguments, events a text/event-stream of the session read through fetch
 * (FetchEventSource). Both go to the page's own origin with the token as
 * Authorization: Bearer, never with a cookie.
 *
 * The stream reconnects by itself after a dropped connection, sending the
 * last seq it got as Last-Event-ID; when it gives up (the server answered
 * with an error), the stream is reopened after the last seq delivered.
 * Events at or below that seq are dropped, so each arrives once.
 */
export class HttpTransport implements Transport {
  readonly pickFolder = null;
  private readonly fetch: typeof fetch;
  private readonly headers: Record<string, string>;
  private readonly openEvents: (url: string) => EventSourceLike;
  private readonly retryMs: number;

  constructor(opts: HttpOptions = {}) {
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
    this.retryMs = opts.retryMs ?? 1000;
    this.openEvents =
      opts.openEvents ?? ((url) => new FetchEventSource(url, { fetch: this.fetch, headers: this.headers, retryMs: this.retryMs }));
  }

  async call<T>(method: string, args: unknown[]): Promise<T> {
    let res: Response;
    try {
      res = await this.fetch(`/api/call/${encodeURIComponent(method)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...this.headers },
        body: JSON.stringify(args),
        credentials: "omit",
      });
    } catch (e) {
      throw new ApiError(
        "unavailable",
        `Foya's server is not reachable (${e instanceof Error ? e.message : String(e)}): start foya serve and open the address it prints`,
      );
    }
    const text = await res.text();
    if (!res.ok) {
      throw (
        fromBody(text) ??
        new ApiError(codeOf(res.status), `${method}: the server answered ${res.status} ${res.statusText}${text.trim() === "" ? "" : `: ${text.trim().slice(0, 200)}`}`)
      );
    }
    if (text.trim() === "") {
      return null as T;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError("internal", `${method}: the server's answer is not JSON: ${text.slice(0, 200)}`);
    }
  }

  subscribe(sessionId: string, afterSeq: number, onEvent: (ev: Event) => void): () => void {
    let last = afterSeq;
    let closed = false;
    let source: EventSourceLike | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;

    const open = () => {
      const es = this.openEvents(`/api/sessions/${encodeURIComponent(sessionId)}/events?after=${last}`);
      source = es;
      es.onmessage = (m) => {
        if (closed) return;
        let ev: Event;
        try {
          ev = JSON.parse(m.data) as Event;
        } catch {
          console.error(`foya: an event of session ${sessionId} is not JSON:`, m.data.slice(0, 200));
          return;
        }
        if (typeof ev.seq !== "number" || ev.seq <= last) return;
        last = ev.seq;
        onEvent(ev);
      };
      es.onerror = () => {
        // While CONNECTING the source retries by itself, with Last-Event-ID.
        if (closed || es.readyState !== closedState) return;
        es.close();
        retry = setTimeout(open, this.retryMs);
      };
    };
    open();
    return () => {
      closed = true;
      clearTimeout(retry);
      source?.close();
    };
  }

  subscribeAll(onEvent: (ev: Event) => void, onReconnect?: () => void): () => void {
    return this.streamAll((ev) => {
      if (!isNotice(ev)) onEvent(ev);
    }, onReconnect);
  }

  subscribeNotices(onNotice: (n: Notice) => void, onReconnect?: () => void): () => void {
    return this.streamAll((ev) => {
      if (isNotice(ev)) onNotice(ev);
    }, onReconnect);
  }

  /**
   * streamAll follows /api/events, which carries every session's stored
   * events and the kernel's notices, as they are published. Every
   * subscriber shares one stream: a browser gives a server six connections
   * at once, and a stream each (the sidebar, the Background panel, MCP
   * questions, Settings...) left none for the API's calls, which then
   * waited for ever. The stream opens with the first subscriber and closes
   * with the last.
   */
  private streamAll(onEvent: (ev: Event) => void, onReconnect?: () => void): () => void {
    const sub = { onEvent, onReconnect };
    this.allSubs.add(sub);
    if (this.allSubs.size === 1) this.openAll();
    return () => {
      if (!this.allSubs.delete(sub) || this.allSubs.size > 0) return;
      clearTimeout(this.allRetry);
      this.allSource?.close();
      this.allSource = null;
    };
  }

  private readonly allSubs = new Set<{ onEvent: (ev: Event) => void; onReconnect: (() => void) | undefined }>();
  private allSource: EventSourceLike | null = null;
  private allRetry: ReturnType<typeof setTimeout> | undefined;

  /**
   * openAll opens the shared /api/events stream; lost says it replaces one
   * that dropped, so that subscribers read again what they missed.
   */
  private openAll(lost = false): void {
    const es = this.openEvents("/api/events");
    this.allSource = es;
    const current = () => this.allSource === es;
    es.onopen = () => {
      if (!current() || !lost) return;
      lost = false; // the stream dropped: events may have been missed
      for (const s of [...this.allSubs]) s.onReconnect?.();
    };
    es.onmessage = (m) => {
      if (!current()) return;
      let ev: Event;
      try {
        ev = JSON.parse(m.data) as Event;
      } catch {
        console.error("foya: an event of the all-sessions stream is not JSON:", m.data.slice(0, 200));
        return;
      }
      if (typeof ev.seq !== "number" || typeof ev.sessionId !== "string") return;
      for (const s of [...this.allSubs]) s.onEvent(ev);
    };
    es.onerror = () => {
      if (!current()) return;
      lost = true;
      if (es.readyState !== closedState) return; // the source reconnects by itself
      es.close();
      this.allRetry = setTimeout(() => current() && this.openAll(true), this.retryMs);
    };
  }
}

/** codeOf names an HTTP status the way the server's error bodies do. */
function codeOf(status: number): string {
  switch (status) {
    case 400:
      return "invalid";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 409:
      return "conflict";
    case 503:
      return "unavailable";
    default:
      return "internal";
  }
}
