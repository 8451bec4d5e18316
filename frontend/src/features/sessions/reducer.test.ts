import { describe, expect, it } from "vitest";
import type { Session } from "../../backend";
import { EventTypes } from "../seq";
import { Log, everything, reduceAll, typesOf } from "../eventstest";
import { applySessions, initialSessions, statusOf, withSessions } from "./reducer";

const row = (id: string, updatedAt: string, runs = 0): Session => ({
  id,
  title: "Session " + id,
  titleByUser: true,
  projectId: "p1",
  workdir: "/home/me/" + id,
  provider: "local",
  model: "scripted-model",
  approvalMode: "manual",
  createdAt: "2026-12-01T10:00:00Z",
  updatedAt,
  runs,
  lastSeq: 0,
  toReview: 0,
});

const listed = () => withSessions(initialSessions, [row("ses_b", "2026-12-01T10:30:00Z", 2), row("ses_01", "2026-12-01T10:00:00Z")]);

describe("applySessions", () => {
  it("takes every event type of docs/events.md", () => {
    const log = everything();
    for (const t of EventTypes) expect(typesOf(log.events)).toContain(t);
    const s = reduceAll(applySessions, listed(), log.events);
    expect(s.lastSeq).toEqual({ ses_01: log.events.length });
    expect(s.sessions.map((x) => [x.id, x.runs, x.approvalMode])).toEqual([
      ["ses_01", 4, "auto"],
      ["ses_b", 2, "manual"],
    ]);
    expect(statusOf(s, "ses_01")).toEqual({ running: false, runId: "", lastEnd: "failed", waiting: [] });
  });

  it("shows a running session and its waiting approvals, live", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.ask("run_1", "apr_1", "call_1", { kind: "shell", tool: "bash", command: "make" });
    log.ask("run_1", "apr_2", "call_2", { kind: "shell", tool: "bash", command: "make test" });
    let s = reduceAll(applySessions, listed(), log.events);
    expect(statusOf(s, "ses_01")).toEqual({ running: true, runId: "run_1", lastEnd: "", waiting: ["apr_1", "apr_2"] });
    expect(s.sessions[0]!.id).toBe("ses_01");
    log.answer("run_1", "apr_1", "call_1", "denied", "deny");
    s = reduceAll(applySessions, listed(), log.events);
    expect(statusOf(s, "ses_01").waiting).toEqual(["apr_2"]);
    expect(statusOf(s, "ses_b")).toEqual({ running: false, runId: "", lastEnd: "", waiting: [] });
  });

  it("ignores a duplicate or late seq per session, and accepts a gap", () => {
    const a = new Log("ses_01");
    a.runStart("run_1", "p");
    a.runEnd("run_1", "completed");
    const b = new Log("ses_b");
    b.runStart("run_b", "q");
    const first = reduceAll(applySessions, listed(), [a.events[0]!, b.events[0]!]);
    expect(applySessions(first, a.events[0]!)).toBe(first);
    const ended = applySessions(first, a.events[1]!);
    expect(statusOf(ended, "ses_01").running).toBe(false);
    // The stream starts mid-log: seq 40 is taken, then 39 is late.
    const mid = { ...a.events[0]!, seq: 40 };
    const late = { ...a.events[1]!, seq: 39 };
    const s = applySessions(applySessions(listed(), mid), late);
    expect(statusOf(s, "ses_01").running).toBe(true);
  });

  it("takes the title a first run gave the session, live, and keeps it otherwise", () => {
    const log = new Log();
    log.add("run.start", { prompt: "Fix the failing test", workdir: "/w", model: "m", provider: "p", approvalMode: "manual",
      instructions: { status: "used", file: "AGENTS.md", size: 120, bytes: 120 }, title: "Fix the failing test" }, "run_1");
    log.runEnd("run_1", "completed");
    log.runStart("run_2", "Something else");
    const s = reduceAll(applySessions, listed(), log.events);
    expect(s.sessions.find((x) => x.id === "ses_01")!.title).toBe("Fix the failing test");
    expect(s.sessions.find((x) => x.id === "ses_b")!.title).toBe("Session ses_b");
  });

  it("takes the model's title after a first run, live, unless the user named the session", () => {
    const untitled = { ...row("ses_01", "2026-12-01T10:00:00Z", 1), title: "Fix the failing test", titleByUser: false };
    const start = withSessions(initialSessions, [row("ses_b", "2026-12-01T10:30:00Z", 2), untitled]);
    const log = new Log();
    const ev = log.add("session.title", { from: "Fix the failing test", title: "Flaky store test" });
    const s = applySessions(start, ev);
    const got = s.sessions[0]!;
    expect(got.id).toBe("ses_01");
    expect(got.title).toBe("Flaky store test");
    expect(got.titleByUser).toBe(false);
    expect(got.updatedAt).toBe(ev.time);
    // The same event again (a replay) changes nothing.
    expect(applySessions(s, ev)).toBe(s);
    // A session this window saw renamed keeps the user's title.
    const renamed = withSessions(initialSessions, [{ ...untitled, title: "Mine", titleByUser: true }]);
    expect(applySessions(renamed, ev).sessions[0]!.title).toBe("Mine");
    // A session not listed is left for the next listing.
    expect(applySessions(withSessions(initialSessions, [row("ses_b", "2026-12-01T10:30:00Z")]), ev).sessions[0]!.title).toBe("Session ses_b");
  });

  it("keeps live status across a new listing, and forgets deleted sessions", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    const s = reduceAll(applySessions, listed(), log.events);
    const relisted = withSessions(s, [row("ses_01", "2026-12-01T11:00:00Z", 1)]);
    expect(statusOf(relisted, "ses_01").running).toBe(true);
    const gone = withSessions(relisted, [row("ses_b", "2026-12-01T10:30:00Z")]);
    expect(gone.status).toEqual({});
  });
});
