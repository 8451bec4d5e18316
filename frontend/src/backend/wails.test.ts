import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "./errors";
import { reportReady } from "./smoke";
import type { Event } from "./transport";
import { eventsName, hasWails, WailsTransport, type WailsWindow } from "./wails";

function ev(seq: number, sessionId = "s"): Event {
  return { type: "text.delta", sessionId, seq, time: "2026-12-01T10:00:00Z" };
}

type Handler = (...args: unknown[]) => Promise<unknown>;

/**
 * FakeWails plays the globals Wails injects into the desktop window: bound
 * methods under go, and a runtime whose EventsOn listeners emit() calls, as
 * app.go's bridge does with EventsEmit.
 */
class FakeWails implements WailsWindow {
  readonly listeners = new Map<string, Set<(...data: unknown[]) => void>>();
  /** Each Events call, with a function to answer it. */
  readonly reads: { args: unknown[]; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  readonly service: Record<string, Handler> = {
    Events: (...args) => new Promise((resolve, reject) => this.reads.push({ args, resolve, reject })),
  };
  readonly app: Record<string, Handler> = {};
  foyaShellPainted?: number;
  readonly go = { api: { Service: this.service }, main: { App: this.app } };
  readonly runtime = {
    EventsOn: (name: string, cb: (...data: unknown[]) => void) => {
      const set = this.listeners.get(name) ?? new Set();
      set.add(cb);
      this.listeners.set(name, set);
      return () => set.delete(cb);
    },
  };

  emit(batch: Event[]): void {
    for (const cb of this.listeners.get(eventsName) ?? []) cb(batch);
  }

  /** answer resolves the oldest unanswered Events call. */
  async answer(stored: Event[] | null): Promise<void> {
    const r = this.reads.shift();
    if (r === undefined) throw new Error("no Events call to answer");
    r.resolve(stored);
    await settle();
  }
}

function settle(): Promise<void> {
  return new Promise((r) => setTimeout(r, 0));
}

function collect(): { seqs: number[]; onEvent: (e: Event) => void } {
  const seqs: number[] = [];
  return { seqs, onEvent: (e) => seqs.push(e.seq) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("WailsTransport.subscribe", () => {
  it("delivers each seq once, in order, across the stored and live overlap", async () => {
    const w = new FakeWails();
    const got = collect();
    new WailsTransport(w).subscribe("s", 0, got.onEvent);
    expect(w.reads.map((r) => r.args)).toEqual([["s", 0]]);

    // Live events arrive while the stored ones are read; the read ends up
    // holding some of them too, and another session's events pass by.
    w.emit([ev(3), ev(1, "other"), ev(4)]);
    w.emit([ev(5)]);
    expect(got.seqs).toEqual([]);
    await w.answer([ev(1), ev(2), ev(3), ev(4)]);
    expect(got.seqs).toEqual([1, 2, 3, 4, 5]);

    w.emit([ev(5), ev(6), ev(7, "other"), ev(7)]);
    expect(got.seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(w.reads).toHaveLength(0);
  });

  it("starts after afterSeq", async () => {
    const w = new FakeWails();
    const got = collect();
    new WailsTransport(w).subscribe("s", 3, got.onEvent);
    expect(w.reads[0]?.args).toEqual(["s", 3]);
    w.emit([ev(2), ev(3)]);
    await w.answer([ev(4)]);
    w.emit([ev(4), ev(5)]);
    expect(got.seqs).toEqual([4, 5]);
  });

  it("reads what it missed when live events skip a seq", async () => {
    const w = new FakeWails();
    const got = collect();
    new WailsTransport(w).subscribe("s", 0, got.onEvent);
    await w.answer([ev(1), ev(2)]);

    w.emit([ev(5)]); // 3 and 4 never came live
    expect(w.reads.map((r) => r.args)).toEqual([["s", 2]]);
    w.emit([ev(6)]); // held while reading
    expect(got.seqs).toEqual([1, 2]);
    await w.answer([ev(3), ev(4), ev(5)]);
    expect(got.seqs).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("does not read again and again for a gap the store has too", async () => {
    const w = new FakeWails();
    const got = collect();
    new WailsTransport(w).subscribe("s", 0, got.onEvent);
    await w.answer([ev(1)]);
    w.emit([ev(3)]);
    await w.answer([]);
    expect(got.seqs).toEqual([1, 3]);
    expect(w.reads).toHaveLength(0);
  });

  it("reads the stored events again after a failed read, keeping live ones", async () => {
    vi.useFakeTimers();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const w = new FakeWails();
    const got = collect();
    new WailsTransport(w, { retryMs: 500 }).subscribe("s", 0, got.onEvent);
    w.reads.shift()?.reject('{"code":"unavailable","message":"open kernel: database is locked"}');
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toHaveBeenCalledWith("foya: read the events of session s:", "open kernel: database is locked");
    w.emit([ev(2)]);
    await vi.advanceTimersByTimeAsync(499);
    expect(w.reads).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(w.reads.map((r) => r.args)).toEqual([["s", 0]]);
    w.reads.shift()?.resolve([ev(1)]);
    await vi.advanceTimersByTimeAsync(0);
    expect(got.seqs).toEqual([1, 2]);
  });

  it("stops at unsubscribe: no listener, no late delivery, no retry", async () => {
    vi.useFakeTimers();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const w = new FakeWails();
    const got = collect();
    const t = new WailsTransport(w, { retryMs: 10 });
    const stop = t.subscribe("s", 0, got.onEvent);
    w.emit([ev(1)]);
    stop();
    expect(w.listeners.get(eventsName)?.size).toBe(0);
    w.reads.shift()?.resolve([ev(1), ev(2)]);
    await vi.advanceTimersByTimeAsync(0);
    w.emit([ev(3)]);
    expect(got.seqs).toEqual([]);

    const stop2 = t.subscribe("s", 0, got.onEvent);
    w.reads.shift()?.reject("database is locked");
    await vi.advanceTimersByTimeAsync(0);
    stop2();
    await vi.advanceTimersByTimeAsync(100);
    expect(w.reads).toHaveLength(0);
  });

  it("ignores a batch that is not an array", async () => {
    const w = new FakeWails();
    const got = collect();
    new WailsTransport(w).subscribe("s", 0, got.onEvent);
    await w.answer(null);
    for (const cb of w.listeners.get(eventsName) ?? []) cb({ seq: 1 });
    w.emit([ev(1)]);
    expect(got.seqs).toEqual([1]);
  });
});

describe("WailsTransport.subscribeAll", () => {
  it("delivers every session's live events in the bridge's order, and stops at unsubscribe", () => {
    const w = new FakeWails();
    const got: string[] = [];
    const stop = new WailsTransport(w).subscribeAll((e) => got.push(`${e.sessionId}:${e.seq}`));
    w.emit([ev(3, "a"), ev(1, "b")]);
    w.emit([ev(4, "a")]);
    expect(got).toEqual(["a:3", "b:1", "a:4"]);
    expect(w.reads).toHaveLength(0); // live only: nothing read from the store
    stop();
    w.emit([ev(5, "a")]);
    expect(got).toEqual(["a:3", "b:1", "a:4"]);
    expect(w.listeners.get(eventsName)?.size).toBe(0);
  });

  it("ignores a batch that is not an array", () => {
    const w = new FakeWails();
    const got: number[] = [];
    new WailsTransport(w).subscribeAll((e) => got.push(e.seq));
    for (const cb of w.listeners.get(eventsName) ?? []) cb({ not: "a batch" });
    w.emit([ev(1)]);
    expect(got).toEqual([1]);
  });
});

describe("WailsTransport.call", () => {
  it("calls the bound api.Service method with the arguments in order", async () => {
    const w = new FakeWails();
    w.service["Sessions"] = (...args) => Promise.resolve({ args });
    await expect(new WailsTransport(w).call("Sessions", [1, "two", { three: 3 }])).resolves.toEqual({
      args: [1, "two", { three: 3 }],
    });
  });

  it.each<[string, unknown, string, string]>([
    ["the API's JSON error", '{"code":"not_found","message":"session ses_x: not found"}', "not_found", "session ses_x: not found"],
    ["a Wails error string", "error parsing arguments: json: cannot unmarshal string", "internal", "error parsing arguments: json: cannot unmarshal string"],
  ])("rejects with an ApiError from %s", async (_name, reason, code, message) => {
    const w = new FakeWails();
    w.service["Session"] = () => Promise.reject(reason);
    const e = await new WailsTransport(w).call("Session", ["ses_x"]).catch((e: unknown) => e);
    expect(e).toBeInstanceOf(ApiError);
    expect({ code: (e as ApiError).code, message: (e as ApiError).message }).toEqual({ code, message });
  });

  it("rejects a method the binary does not bind", async () => {
    const e = await new WailsTransport(new FakeWails()).call("NoSuchMethod", []).catch((e: unknown) => e);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toContain("no method NoSuchMethod");
  });
});

describe("WailsTransport.pickFolder", () => {
  it("returns the chosen folder, null when cancelled, an ApiError when it fails", async () => {
    const w = new FakeWails();
    const pick = new WailsTransport(w).pickFolder;
    if (pick === null) throw new Error("the desktop has no folder picker");
    w.app["PickFolder"] = () => Promise.resolve("/home/ada/project");
    await expect(pick()).resolves.toBe("/home/ada/project");
    w.app["PickFolder"] = () => Promise.resolve("");
    await expect(pick()).resolves.toBeNull();
    w.app["PickFolder"] = () => Promise.reject('{"code":"unavailable","message":"open the folder dialog: no display"}');
    await expect(pick()).rejects.toMatchObject({ code: "unavailable", message: "open the folder dialog: no display" });
  });
});

describe("hasWails", () => {
  it("detects the desktop by the injected runtime, not the URL", () => {
    expect(hasWails(new FakeWails())).toBe(true);
    expect(hasWails({})).toBe(false);
    expect(hasWails({ go: {} })).toBe(false);
    expect(hasWails()).toBe(false); // the test page has no Wails runtime
  });
});

describe("reportReady", () => {
  it("sends the report to App.UIReady when the window has it, and does nothing otherwise", async () => {
    const w = new FakeWails();
    const sent: unknown[] = [];
    w.app["UIReady"] = (r) => {
      sent.push(r);
      return Promise.resolve();
    };
    reportReady({ version: "1", sessions: 2, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false }, w);
    expect(sent).toEqual([{ version: "1", sessions: 2, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false, shellPainted: 0 }]);
    // With the shell's paint noted (boot-theme.js), the report carries it.
    w.foyaShellPainted = 1_764_000_000_000;
    reportReady({ version: "1", sessions: 2, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false }, w);
    expect(sent[1]).toMatchObject({ shellPainted: 1_764_000_000_000 });
    sent.pop();
    reportReady({ version: "1", sessions: 2, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false }, {});
    reportReady({ version: "1", sessions: 2, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false }); // the test page: no Wails
    expect(sent).toHaveLength(1);
  });
});
