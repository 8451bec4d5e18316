import { describe, expect, it } from "vitest";
import type { BackgroundCommand } from "../../backend/gen/kernel";
import { EventTypes } from "../seq";
import { Log, everything, itKeepsSeqOrder, reduceAll, typesOf } from "../eventstest";
import { applyBackground, initialBackground, stale, withCommands } from "./reducer";

const reduce = (log: Log, s = initialBackground) => reduceAll(applyBackground, s, log.events);

const server: BackgroundCommand = {
  id: "bg1",
  sessionId: "ses_01",
  command: "npm run dev",
  pid: 4242,
  startedAt: "2026-12-01T11:00:03Z",
  running: true,
  exitCode: 0,
  sandbox: "landlock",
  outputBytes: 120,
};

describe("applyBackground", () => {
  it("takes every event type of docs/events.md and asks for a first list", () => {
    const log = everything();
    for (const t of EventTypes) expect(typesOf(log.events)).toContain(t);
    const s = reduce(log);
    expect(s.commands).toEqual([]);
    expect(stale(s)).toBe(true);
  });

  it("is stale after a shell call ends, fresh once listed, and while a command runs", () => {
    const log = new Log();
    log.runStart("run_1", "start the server");
    log.end("run_1", 1, 0, "call_1", "bash", "done", "Started in the background with id bg1 (PID 4242).");
    let s = reduce(log);
    expect(stale(s)).toBe(true);
    s = withCommands(s, [{ ...server, running: false, exitCode: 1 }], log.events.length);
    expect(s.listedAt).toBe(log.events.length);
    expect(stale(s)).toBe(false);
    expect(stale(withCommands(s, [server], log.events.length))).toBe(true);

    const more = new Log();
    more.runStart("run_1", "start the server");
    more.end("run_1", 1, 0, "call_1", "bash", "done", "Started in the background with id bg1 (PID 4242).");
    more.end("run_1", 1, 1, "call_2", "read", "done", "x");
    expect(stale(reduce(more, withCommands(reduce(log), [], log.events.length)))).toBe(false);
    more.end("run_1", 2, 0, "call_3", "bash_kill", "done", "ended");
    expect(stale(reduce(more, withCommands(reduce(log), [], log.events.length)))).toBe(true);
  });

  itKeepsSeqOrder("background", everything);
});
