import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "./errors";
import { HttpTransport, type EventSourceLike } from "./http";
import type { Event } from "./transport";

function ev(seq: number, sessionId = "s"): Event {
  return { type: "text.delta", sessionId, seq, time: "2026-12-01T10:00:00Z" };
}

/** fetchOf returns a fetch that records each request and answers with reply. */
function fetchOf(reply: () => Response | Promise<Response>) {
  const requests: { url: string; init: RequestInit | undefined }[] = [];
  const f = (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ url: String(input), init });
    return Promise.resolve(reply());
  };
  return { requests, fetch: f as typeof fetch };
}

/**
 * FakeSource plays the browser's EventSource: the test hands it messages
 * (what the server sent, with the browser's own reconnections in between)
 * and errors, with the readyState the browser would have.
 */
class FakeSource implements EventSourceLike {
  onmessage: ((m: MessageEvent<string>) => void) | null = null;
  onerror: (() => void) | null = null;
  onopen: (() => void) | null = null;
  readyState = 1;
  closed = false;
  constructor(readonly url: string) {}

  close(): void {
    this.closed = true;
    this.readyState = 2;
  }

  send(...evs: Event[]): void {
    for (const e of evs) this.onmessage?.(new MessageEvent("message", { data: JSON.stringify(e), lastEventId: String(e.seq) }));
  }

  raw(data: string): void {
    this.onmessage?.(new MessageEvent("message", { data }));
  }

  /** open reports the stream (re)connected, as the browser does. */
  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }

  /** fail reports an error; gaveUp says the browser will not reconnect by itself. */
  fail(gaveUp: boolean): void {
    this.readyState = gaveUp ? 2 : 0;
    this.onerror?.();
  }
}

function sources() {
  const opened: FakeSource[] = [];
  return {
    opened,
    openEvents: (url: string) => {
      const s = new FakeSource(url);
      opened.push(s);
      return s;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("HttpTransport.call", () => {
  it("posts the JSON array of arguments to /api/call/{method} with the bearer token and no cookie", async () => {
    // The bearer token goes in a header: a cookie would let any page of the
    // browser call the kernel.
    const f = fetchOf(() => Response.json([{ id: "a" }]));
    const got = await new HttpTransport({ fetch: f.fetch, token: "t0ken" }).call("Sessions", ["x", 2, { y: true }]);
    expect(got).toEqual([{ id: "a" }]);
    expect(f.requests).toHaveLength(1);
    const r = f.requests[0]!;
    expect(r.url).toBe("/api/call/Sessions");
    expect(r.init?.method).toBe("POST");
    expect(new Headers(r.init?.headers).get("Authorization")).toBe("Bearer t0ken");
    expect(r.init?.credentials).toBe("omit");
    expect(r.init?.body).toBe('["x",2,{"y":true}]');
  });

  it("resolves to null for a method without a result", async () => {
    for (const body of ["null", ""]) {
      const f = fetchOf(() => new Response(body, { status: 200 }));
      await expect(new HttpTransport({ fetch: f.fetch }).call("Cancel", ["s"])).resolves.toBeNull();
    }
  });

  it.each<[string, () => Response, string, string]>([
    [
      "the server's error body",
      () => Response.json({ code: "not_found", message: "session ses_x: not found" }, { status: 404 }),
      "not_found",
      "session ses_x: not found",
    ],
    [
      "a 401 without a body",
      () => new Response("", { status: 401, statusText: "Unauthorized" }),
      "unauthorized",
      "Info: the server answered 401 Unauthorized",
    ],
    [
      "an error page that is not JSON",
      () => new Response("<h1>Bad gateway</h1>", { status: 502, statusText: "Bad Gateway" }),
      "internal",
      "Info: the server answered 502 Bad Gateway: <h1>Bad gateway</h1>",
    ],
    [
      "a 200 that is not JSON",
      () => new Response("<!doctype html>", { status: 200 }),
      "internal",
      "Info: the server's answer is not JSON: <!doctype html>",
    ],
  ])("rejects with an ApiError from %s", async (_name, reply, code, message) => {
    const e = await new HttpTransport({ fetch: fetchOf(reply).fetch }).call("Info", []).catch((e: unknown) => e);
    expect(e).toBeInstanceOf(ApiError);
    expect({ code: (e as ApiError).code, message: (e as ApiError).message }).toEqual({ code, message });
  });

  it("says the server is not reachable when fetch fails", async () => {
    const f = (() => Promise.reject(new TypeError("Failed to fetch"))) as typeof fetch;
    const e = await new HttpTransport({ fetch: f }).call("Info", []).catch((e: unknown) => e);
    expect(e).toMatchObject({ code: "unavailable" });
    expect((e as ApiError).message).toContain("Failed to fetch");
    expect((e as ApiError).message).toContain("start foya serve");
  });

  it("has no folder dialog", () => {
    expect(new HttpTransport().pickFolder).toBeNull();
  });
});

describe("HttpTransport.subscribe", () => {
  it("opens the session's stream after afterSeq and delivers each seq once, in order", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const s = sources();
    const got: number[] = [];
    new HttpTransport({ openEvents: s.openEvents }).subscribe("ses/x", 3, (e) => got.push(e.seq));
    expect(s.opened.map((o) => o.url)).toEqual(["/api/sessions/ses%2Fx/events?after=3"]);
    const src = s.opened[0]!;
    src.send(ev(3), ev(4), ev(5));
    src.fail(false); // the connection dropped; the browser reconnects with Last-Event-ID
    src.readyState = 1;
    src.send(ev(5), ev(6)); // a server replaying one too many
    src.raw("not json");
    src.raw('{"type":"x"}');
    expect(got).toEqual([4, 5, 6]);
    expect(errors).toHaveBeenCalledWith("foya: an event of session ses/x is not JSON:", "not json");
    expect(s.opened).toHaveLength(1); // the browser's own reconnection, not a new source
  });

  it("reopens the stream after the last seq when the browser gives up", async () => {
    vi.useFakeTimers();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const s = sources();
    const got: number[] = [];
    new HttpTransport({ openEvents: s.openEvents, retryMs: 250 }).subscribe("s", 0, (e) => got.push(e.seq));
    s.opened[0]!.send(ev(1), ev(2));
    s.opened[0]!.fail(true); // say the server answered 503 while restarting
    expect(s.opened[0]!.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(249);
    expect(s.opened).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.opened.map((o) => o.url)).toEqual(["/api/sessions/s/events?after=0", "/api/sessions/s/events?after=2"]);
    s.opened[1]!.send(ev(2), ev(3));
    expect(got).toEqual([1, 2, 3]);
  });

  it("shares one stream among every subscriber, events and notices alike, until the last leaves", () => {
    // A browser gives a server six connections at once: a stream each for
    // the sidebar, the Background panel, MCP questions and Settings left
    // none for the API's calls.
    const s = sources();
    const t = new HttpTransport({ openEvents: s.openEvents });
    const events: number[] = [];
    const notices: string[] = [];
    let reconnects = 0;
    const stopA = t.subscribeAll((e) => events.push(e.seq));
    const stopB = t.subscribeNotices((n) => notices.push(n.type), () => reconnects++);
    const stopC = t.subscribeNotices(() => undefined, () => reconnects++);
    expect(s.opened).toHaveLength(1);
    const src = s.opened[0]!;
    src.open();
    src.send(ev(4, "a"), { type: "background.changed", sessionId: "a", seq: 0, time: "", data: {} } as Event);
    expect(events).toEqual([4]);
    expect(notices).toEqual(["background.changed"]);
    src.fail(false);
    src.open();
    expect(reconnects).toBe(2); // each subscriber reads again
    stopA();
    stopB();
    expect(src.closed).toBe(false);
    stopC();
    expect(src.closed).toBe(true);
    t.subscribeAll(() => undefined); // a new first subscriber opens it again
    expect(s.opened).toHaveLength(2);
  });

  it("stops at unsubscribe: closes the stream, drops late messages, cancels a reopen", async () => {
    vi.useFakeTimers();
    const s = sources();
    const got: number[] = [];
    const t = new HttpTransport({ openEvents: s.openEvents, retryMs: 10 });
    const stop = t.subscribe("s", 0, (e) => got.push(e.seq));
    stop();
    expect(s.opened[0]!.closed).toBe(true);
    s.opened[0]!.send(ev(1));
    expect(got).toEqual([]);

    const stop2 = t.subscribe("s", 0, (e) => got.push(e.seq));
    s.opened[1]!.fail(true);
    stop2();
    await vi.advanceTimersByTimeAsync(100);
    expect(s.opened).toHaveLength(2);
  });
});

describe("HttpTransport.subscribeAll", () => {
  it("opens /api/events and delivers every session's events as they come", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const s = sources();
    const got: string[] = [];
    new HttpTransport({ openEvents: s.openEvents }).subscribeAll((e) => got.push(`${e.sessionId}:${e.seq}`));
    expect(s.opened.map((o) => o.url)).toEqual(["/api/events"]);
    const src = s.opened[0]!;
    src.open();
    src.send(ev(7, "a"), ev(1, "b"), ev(8, "a"));
    src.raw("not json");
    src.raw('{"type":"x"}'); // no seq, no session: not an event
    expect(got).toEqual(["a:7", "b:1", "a:8"]);
    expect(errors).toHaveBeenCalledWith("foya: an event of the all-sessions stream is not JSON:", "not json");
  });

  it("says so when the stream comes back, by itself or reopened", async () => {
    vi.useFakeTimers();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const s = sources();
    let reconnects = 0;
    const got: number[] = [];
    new HttpTransport({ openEvents: s.openEvents, retryMs: 100 }).subscribeAll(
      (e) => got.push(e.seq),
      () => reconnects++,
    );
    s.opened[0]!.open();
    expect(reconnects).toBe(0); // the first connection is not a reconnection
    s.opened[0]!.fail(false); // the browser reconnects by itself
    s.opened[0]!.open();
    expect(reconnects).toBe(1);
    s.opened[0]!.fail(true); // the browser gave up: reopened after retryMs
    expect(s.opened[0]!.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(s.opened.map((o) => o.url)).toEqual(["/api/events", "/api/events"]);
    s.opened[1]!.open();
    expect(reconnects).toBe(2);
    s.opened[1]!.send(ev(3));
    expect(got).toEqual([3]);
  });

  it("shares one stream among every subscriber, events and notices alike, until the last leaves", () => {
    // A browser gives a server six connections at once: a stream each for
    // the sidebar, the Background panel, MCP questions and Settings left
    // none for the API's calls.
    const s = sources();
    const t = new HttpTransport({ openEvents: s.openEvents });
    const events: number[] = [];
    const notices: string[] = [];
    let reconnects = 0;
    const stopA = t.subscribeAll((e) => events.push(e.seq));
    const stopB = t.subscribeNotices((n) => notices.push(n.type), () => reconnects++);
    const stopC = t.subscribeNotices(() => undefined, () => reconnects++);
    expect(s.opened).toHaveLength(1);
    const src = s.opened[0]!;
    src.open();
    src.send(ev(4, "a"), { type: "background.changed", sessionId: "a", seq: 0, time: "", data: {} } as Event);
    expect(events).toEqual([4]);
    expect(notices).toEqual(["background.changed"]);
    src.fail(false);
    src.open();
    expect(reconnects).toBe(2); // each subscriber reads again
    stopA();
    stopB();
    expect(src.closed).toBe(false);
    stopC();
    expect(src.closed).toBe(true);
    t.subscribeAll(() => undefined); // a new first subscriber opens it again
    expect(s.opened).toHaveLength(2);
  });

  it("stops at unsubscribe: closes the stream, drops late messages, cancels a reopen", async () => {
    vi.useFakeTimers();
    const s = sources();
    const got: number[] = [];
    const stop = new HttpTransport({ openEvents: s.openEvents, retryMs: 10 }).subscribeAll((e) => got.push(e.seq));
    s.opened[0]!.fail(true);
    stop();
    await vi.advanceTimersByTimeAsync(50);
    expect(s.opened).toHaveLength(1);
    s.opened[0]!.send(ev(1));
    expect(got).toEqual([]);
  });
});
