// The golden event bytes of backend/event (testdata/golden/events.jsonl on
// the events branch, copied unchanged): every type, every field set, the
// variants of tool.update and step.end, text that JSON escapes. Not a real
// run's order (a call ends before its approval is asked), so this checks
// that every reducer reads the exact wire shapes, nulls included.
import { describe, expect, it } from "vitest";
import golden from "./testdata/golden-events.jsonl?raw";
import { applyApprovals, initialApprovals } from "./approvals/reducer";
import { applyChanges, initialChanges } from "./changes/reducer";
import { applyConversation, cardOf, initialConversation } from "./conversation/reducer";
import type { Event } from "../backend/gen/event";
import { reduceAll } from "./eventstest";
import { createSessionStore, lastSeq } from "./session/store";
import { EventTypes } from "./seq";
import { applySessions, initialSessions } from "./sessions/reducer";
import { applyTasks, initialTasks } from "./tasks/reducer";

const PENDING = [
  ["apr_3", "mcp", "github", ""],
  ["apr_4", "write", "", "count go files & report"],
];

const events: Event[] = golden
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as Event);

describe("golden events", () => {
  it("hold every type", () => {
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(EventTypes));
  });

  it("fold into the task list", () => {
    const s = reduceAll(applyTasks, initialTasks, events);
    expect(s.todos.map((t) => `${t.status}:${t.content}`)).toEqual(["completed:read <main.go>", "in_progress:fix the bug & test", "pending:write docs"]);
  });

  it("fold into every area", () => {
    const c = reduceAll(applyConversation, initialConversation, events);
    const t = c.turns["run_1"]!;
    expect(t.prompt).toBe('fix <the> "bug" & go');
    expect(t.instructions).toMatchObject({ truncated: true, invalidUtf8: true });
    expect(t.steps.map((s) => [s.step, s.tools, s.finishReason, s.error])).toEqual([
      [1, ["bash", "read"], "tool_calls", ""],
      [2, [], "stop", ""],
      [3, [], "", "the model's stream ended before it was complete"],
    ]);
    expect(c.streams["run_1"]![1]).toEqual({ text: "héllo <world>\n", reasoning: "think & plan" });
    expect(t.modes.map((m) => m.to)).toEqual(["full_access"]);
    expect(t.activated).toEqual(["web_fetch"]);
    expect(t.interruptedCalls).toBe(2);
    const card = cardOf(c, "run_1", "call_1")!;
    expect(card).toMatchObject({ status: "done", argsBytes: 5 << 20, argsPreview: '{"command":"ls >', tail: "line 1\nline <2>\n", durationMs: 42 });
    expect(card.result).toMatchObject({ artifacts: ["art_1"], displayDiff: "-x\n+y" });
    expect(card.result!.fileChanges.map((f) => f.id)).toEqual(["chg_1"]);
    expect(cardOf(c, "run_1", "call_2")).toMatchObject({ status: "error", result: { text: "unknown tool" } });
    expect(cardOf(c, "run_1", "call_2")!.result).toMatchObject({ exitCode: null, background: "" });
    expect(cardOf(c, "run_1", "call_6")!.result).toMatchObject({ exitCode: 3, background: "" });
    expect(cardOf(c, "run_1", "call_7")!.result).toMatchObject({ exitCode: null, background: "bg1" });

    const a = reduceAll(applyApprovals, initialApprovals("manual"), events);
    // The last run.start (a sub-agent's, in Manual) sets the mode; the MCP
    // call's and the sub-agent's requests (one ID) still wait.
    expect(a).toMatchObject({ mode: "manual" });
    expect(a.pending.map((p) => [p.id, p.request.action.kind, p.request.action.mcpServer ?? "", p.subAgent ?? ""])).toEqual(PENDING);

    const ch = reduceAll(applyChanges, initialChanges, events);
    // chg_3 and chg_4: a background command's changes (file.captured).
    expect(ch.groups).toEqual([{ runId: "run_1", changes: ["chg_1", "chg_2", "chg_3", "chg_4"] }]);
    expect(ch.byId["chg_4"]!.record!.notRestorable).toContain("maxFileBytes");
    expect(ch.revertedBy).toEqual({ chg_1: "chg_2" });
    expect(ch.outside["/w/a.go"]).toMatchObject({ exists: false });
    expect(ch.watchDegraded).toBe("too many folders: polling the session's files");

    expect(reduceAll(applySessions, initialSessions, events).lastSeq).toEqual({ ses_1: events.length });
  });
});

// wrongTypes replaces every field of a payload, one level down too, with a
// value of another type.
function wrongTypes(v: unknown, depth = 0): unknown {
  if (Array.isArray(v)) return depth > 1 ? 7 : v.map((x) => wrongTypes(x, depth + 1));
  if (typeof v === "object" && v !== null) {
    if (depth > 1) return "object";
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrongTypes(x, depth + 1)]));
  }
  if (typeof v === "string") return 42;
  if (typeof v === "number") return { n: v };
  if (typeof v === "boolean") return "yes";
  return [v];
}

describe("events of the wrong shape", () => {
  it("are skipped in their place, and the events after them apply", () => {
    const bad = events.map((e) => ({ ...e, data: wrongTypes(e.data) }));
    const last = events.length;
    // The session store orders events and guards each area's reducer.
    const store = createSessionStore(events[0]!.sessionId);
    store.getState().apply(bad);
    expect(lastSeq(store.getState())).toBe(last);
    // A good event after them still applies.
    store.getState().apply([{ ...events[0]!, seq: last + 1, runId: "run_9" }]);
    expect(lastSeq(store.getState())).toBe(last + 1);
    expect(store.getState().conversation.turns["run_9"]!.prompt).toBe('fix <the> "bug" & go');
    expect(reduceAll(applySessions, initialSessions, bad).lastSeq).toEqual({ ses_1: last });
  });
});
