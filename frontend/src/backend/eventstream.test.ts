import { afterEach, describe, expect, it, vi } from "vitest";
import { FetchEventSource } from "./eventstream";

/**
 * server plays foya serve's SSE route: each fetch gets the next answer;
 * a stream answer's body is fed by the test, chunk by chunk.
 */
function server() {
  const requests: { url: string; headers: Headers; credentials: RequestCredentials | undefined }[] = [];
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  const cancelled: number[] = [];
  const answers: (() => Response)[] = [];
  const stream = () => {
    const i = streams.length;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void streams.push(c), cancel: () => void cancelled.push(i) });
    return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
  };
  const f = (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ url: String(input), headers: new Headers(init?.headers), credentials: init?.credentials });
    return Promise.resolve((answers.shift() ?? stream)());
  };
  const enc = new TextEncoder();
  return {
    requests,
    answers,
    cancelled,
    fetch: f as typeof fetch,
    send: (i: number, text: string) => streams[i]!.enqueue(enc.encode(text)),
    end: (i: number) => streams[i]!.close(),
    opened: () => streams.length,
  };
}

function collect(es: FetchEventSource) {
  const got: { data: string; id: string }[] = [];
  const seen: string[] = [];
  es.onmessage = (m) => got.push({ data: m.data, id: m.lastEventId });
  es.onopen = () => seen.push("open");
  es.onerror = () => seen.push(`error ${es.readyState}`);
  return { got, seen };
}

afterEach(() => vi.useRealTimers());

// The stream carries the bearer header, which EventSource cannot send (and a token in the URL would be logged).
describe("FetchEventSource", () => {
  it("sends the caller's headers, no cookie, and parses events split anywhere", async () => {
    const s = server();
    const es = new FetchEventSource("/api/events", { fetch: s.fetch, headers: { Authorization: "Bearer t" } });
    const c = collect(es);
    await vi.waitFor(() => expect(s.opened()).toBe(1));
    expect(s.requests[0]!.headers.get("Authorization")).toBe("Bearer t");
    expect(s.requests[0]!.headers.get("Last-Event-ID")).toBeNull();
    expect(s.requests[0]!.credentials).toBe("omit");
    s.send(0, "retry: 1000\n\n: ping\n\nid: 1\ndata: {\"seq\":1}\n\nid: 2\nda");
    s.send(0, "ta: {\"seq\":2}\r");
    s.send(0, "\n\r\nevent: other\ndata: skipped\n\ndata: a\ndata: b\n\n");
    await vi.waitFor(() => expect(c.got).toHaveLength(3));
    expect(c.got).toEqual([
      { data: '{"seq":1}', id: "1" },
      { data: '{"seq":2}', id: "2" },
      { data: "a\nb", id: "2" },
    ]);
    expect(c.seen).toEqual(["open"]);
    expect(es.readyState).toBe(1);
    es.close();
  });

  it("reconnects after the stream ends, with the last id as Last-Event-ID", async () => {
    const s = server();
    const es = new FetchEventSource("/api/sessions/s/events?after=0", { fetch: s.fetch, retryMs: 5 });
    const c = collect(es);
    await vi.waitFor(() => expect(s.opened()).toBe(1));
    s.send(0, "retry: 1\nid: 7\ndata: x\n\n");
    s.end(0);
    await vi.waitFor(() => expect(s.opened()).toBe(2));
    expect(c.seen).toEqual(["open", "error 0", "open"]);
    expect(s.requests[1]!.headers.get("Last-Event-ID")).toBe("7");
    expect(s.requests[1]!.url).toBe("/api/sessions/s/events?after=0");
    s.send(1, "id: 8\ndata: y\n\n");
    await vi.waitFor(() => expect(c.got.map((g) => g.id)).toEqual(["7", "8"]));
    es.close();
  });

  it("gives up, as EventSource does, on an answer that is not a stream", async () => {
    const s = server();
    s.answers.push(() => Response.json({ code: "unauthorized", message: "no token" }, { status: 401 }));
    const es = new FetchEventSource("/api/events", { fetch: s.fetch, retryMs: 1 });
    const c = collect(es);
    await vi.waitFor(() => expect(c.seen).toEqual(["error 2"]));
    expect(es.readyState).toBe(2);
    expect(s.requests).toHaveLength(1);
  });

  it("stops at close: no more messages, no reconnection", async () => {
    const s = server();
    const es = new FetchEventSource("/api/events", { fetch: s.fetch, retryMs: 1 });
    const c = collect(es);
    await vi.waitFor(() => expect(s.opened()).toBe(1));
    es.close();
    s.send(0, "data: late\n\n");
    await vi.waitFor(() => expect(s.cancelled).toEqual([0])); // the reader let go of the stream
    expect(c.got).toEqual([]);
    expect(c.seen).toEqual(["open"]);
    expect(s.requests).toHaveLength(1);
  });
});
