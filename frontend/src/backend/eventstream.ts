// An EventSource over fetch, so that the stream can carry the
// Authorization header (the browser's EventSource sends no headers of
// ours, and foya serve sets no cookie).

import type { EventSourceLike } from "./http";

/** The readyState values of EventSource. */
const connecting = 0;
const open = 1;
const closed = 2;

export interface EventStreamOptions {
  /** fetch opens the stream; the page's own fetch by default. */
  fetch?: typeof fetch;
  /** headers go with every (re)connection, e.g. Authorization. */
  headers?: Record<string, string>;
  /** retryMs is the wait before reconnecting until the server sends retry:. */
  retryMs?: number;
}

/**
 * FetchEventSource reads a text/event-stream the way the browser's
 * EventSource does (the WHATWG parsing rules: data, id, retry, comments;
 * only "message" events are dispatched), with headers of the caller's.
 * Like EventSource it reconnects by itself after a dropped connection or
 * the end of the stream, sending the last id it got as Last-Event-ID, with
 * readyState CONNECTING while it waits; an answer that is not a 200
 * text/event-stream makes it give up (readyState CLOSED), as EventSource
 * does.
 */
export class FetchEventSource implements EventSourceLike {
  onmessage: ((m: MessageEvent<string>) => void) | null = null;
  onerror: (() => void) | null = null;
  onopen: (() => void) | null = null;
  readyState = connecting;
  private readonly fetch: typeof fetch;
  private readonly headers: Record<string, string>;
  private retryMs: number;
  private lastEventId = "";
  private abort: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly url: string,
    opts: EventStreamOptions = {},
  ) {
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = opts.headers ?? {};
    this.retryMs = opts.retryMs ?? 1000;
    void this.connect();
  }

  close(): void {
    this.readyState = closed;
    clearTimeout(this.timer);
    this.abort?.abort();
  }

  private async connect(): Promise<void> {
    const ac = new AbortController();
    this.abort = ac;
    const headers: Record<string, string> = { Accept: "text/event-stream", ...this.headers };
    if (this.lastEventId !== "") headers["Last-Event-ID"] = this.lastEventId;
    let res: Response;
    try {
      res = await this.fetch(this.url, { headers, signal: ac.signal, cache: "no-store", credentials: "omit" });
    } catch {
      this.reconnect();
      return;
    }
    if (this.readyState === closed) return;
    const type = res.headers.get("Content-Type") ?? "";
    if (!res.ok || res.body === null || !type.startsWith("text/event-stream")) {
      // As EventSource: an answer that is not a stream is final.
      this.readyState = closed;
      ac.abort();
      this.onerror?.();
      return;
    }
    this.readyState = open;
    this.onopen?.();
    try {
      await this.read(res.body);
    } catch {
      // The connection dropped (or close aborted it): reconnect below.
    }
    this.reconnect();
  }

  private reconnect(): void {
    if (this.readyState === closed) return;
    this.readyState = connecting;
    this.onerror?.();
    if (this.readyState === closed) return; // onerror closed it
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
  }

  /** read parses the stream until it ends, dispatching each event. */
  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    let data: string[] = [];
    let type = "";
    let id = this.lastEventId;
    for (;;) {
      const { done, value } = await reader.read();
      if (this.readyState === closed) {
        void reader.cancel().catch(() => {});
        return;
      }
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buf);
        // A \r at the end may be the first half of a \r\n.
        if (m === null || (m[0] === "\r" && m.index === buf.length - 1 && !done)) break;
        const line = buf.slice(0, m.index);
        buf = buf.slice(m.index + m[0].length);
        if (line === "") {
          this.lastEventId = id;
          if (data.length > 0 && (type === "" || type === "message")) {
            this.onmessage?.(new MessageEvent("message", { data: data.join("\n"), lastEventId: id }));
            if (this.readyState === closed) return;
          }
          data = [];
          type = "";
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        switch (field) {
          case "data":
            data.push(value);
            break;
          case "event":
            type = value;
            break;
          case "id":
            if (!value.includes("\0")) id = value;
            break;
          case "retry":
            if (/^\d+$/.test(value)) this.retryMs = Number(value);
            break;
        }
      }
      if (done) return;
    }
  }
}
