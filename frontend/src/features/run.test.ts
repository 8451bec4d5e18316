// A real session's stored events (testdata/run.jsonl): a scripted model
// (providertest) driving a real kernel on a temp database and folder, a
// subscriber answering its approvals, then Kernel.Events; the temp folder
// is written as /home/me. Three runs: in Manual, a write and an edit allowed
// and a bash denied with a message; a switch to Auto; a bash printing three
// lines slowly (its live tail); a bash cancelled mid-run; then the first
// turn reverted. And testdata/crash.jsonl: a run in Auto whose process was
// killed (kill -9) while its bash call slept, with a write waiting behind
// it, as the next kernel start recovered it.
import { describe, expect, it } from "vitest";
import crashLog from "./testdata/crash.jsonl?raw";
import log from "./testdata/run.jsonl?raw";
import type { Event } from "../backend/gen/event";
import { applyApprovals, initialApprovals } from "./approvals/reducer";
import { applyChanges, countsOf, initialChanges } from "./changes/reducer";
import { applyConversation, cardOf, initialConversation } from "./conversation/reducer";
import { itKeepsSeqOrder, reduceAll } from "./eventstest";

const parse = (text: string): Event[] =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Event);
const events = parse(log);
const crash = parse(crashLog);
const runIds = [...new Set(events.filter((e) => e.type === "run.start").map((e) => e.runId!))];
const [r1, r2, r3] = runIds as [string, string, string];

describe("a real session", () => {
  it("folds into turns, cards and their ends", () => {
    const s = reduceAll(applyConversation, initialConversation, events);
    expect(s.entries.map((e) => (e.kind === "turn" ? e.id : e.kind === "mode" ? `${e.from}->${e.to}` : e.kind === "model" ? e.model : e.id))).toEqual([r1, "manual->auto", r2, r3]);
    const t1 = s.turns[r1]!;
    expect(t1).toMatchObject({ status: "completed", approvalMode: "manual", prompt: "Create notes.txt saying hello, then make it say bye" });
    expect(t1.steps.map((st) => st.cards)).toEqual([["call_w"], ["call_e", "call_b"], []]);
    expect(s.streams[r1]![3]!.text).toBe("Done: notes.txt says bye.");

    const write = cardOf(s, r1, "call_w")!;
    expect(write).toMatchObject({ status: "done", approval: { state: "allowed" } });
    expect(write.result!.fileChanges.map((f) => [f.op, f.path, f.added])).toEqual([["create", "/home/me/project/notes.txt", 1]]);
    const edit = cardOf(s, r1, "call_e")!;
    expect(edit.result!.fileChanges.map((f) => [f.op, f.added, f.removed])).toEqual([["edit", 1, 1]]);
    const bash = cardOf(s, r1, "call_b")!;
    expect(bash).toMatchObject({ status: "error", approval: { state: "denied", message: "do not delete anything" } });
    expect(bash.result!.text).toMatch(/^bash: denied by the user: do not delete anything/);
    expect(bash.result!.fileChanges).toEqual([]);

    const tail = cardOf(s, r2, "call_t")!;
    expect(tail).toMatchObject({ status: "done", tail: "line 1\nline 2\nline 3\n", approval: null });
    expect(tail.durationMs).toBeGreaterThan(0);

    expect(s.turns[r3]).toMatchObject({ status: "cancelled", error: "cancelled", stepLimit: false });
    expect(cardOf(s, r3, "call_s")).toMatchObject({ status: "cancelled", endedWithRun: false });
  });

  it("queues the bash approval until it is denied, and follows the mode", () => {
    const ask = events.findIndex((e) => e.type === "approval.request" && (e.data as { request: { callId: string } }).request.callId === "call_b");
    const waiting = reduceAll(applyApprovals, initialApprovals("manual"), events.slice(0, ask + 1));
    expect(waiting.pending.map((p) => [p.request.action.kind, p.request.action.command, p.scopes?.length])).toEqual([
      ["shell", "echo cleaned >> log.txt", 2],
    ]);
    expect(cardOf(reduceAll(applyConversation, initialConversation, events.slice(0, ask + 1)), r1, "call_b")!.status).toBe("waiting");
    const end = reduceAll(applyApprovals, initialApprovals("manual"), events);
    expect(end).toMatchObject({ pending: [], mode: "auto" });
  });

  it("groups the first turn's changes and marks both reverted", () => {
    const s = reduceAll(applyChanges, initialChanges, events);
    expect(s.groups.map((g) => [g.runId, g.changes.length])).toEqual([
      [r1, 2],
      ["", 2],
    ]);
    for (const id of s.groups[0]!.changes) expect(s.revertedBy[id]).toBeTruthy();
    expect(countsOf(s, s.groups[0]!)).toEqual({ changes: 2, added: 2, removed: 1 });
    expect(countsOf(s, s.groups[1]!)).toEqual({ changes: 2, added: 0, removed: 0 });
  });

  describe("conversation", () => itKeepsSeqOrder("conversation", () => ({ events })));
  describe("approvals", () => itKeepsSeqOrder("approvals", () => ({ events })));
  describe("changes", () => itKeepsSeqOrder("changes", () => ({ events })));
});

describe("a run a crash interrupted", () => {
  it("is restored from history as interrupted, each unfinished call marked", () => {
    const s = reduceAll(applyConversation, initialConversation, crash);
    const runId = crash[0]!.runId!;
    expect(s.turns[runId]).toMatchObject({ status: "interrupted", interruptedCalls: 2, stepLimit: false });
    expect(s.turns[runId]!.error).toMatch(/^interrupted: Foya stopped during this run/);
    expect(s.turns[runId]!.steps[0]!.cards).toEqual(["call_r", "call_z", "call_q"]);
    expect(cardOf(s, runId, "call_r")).toMatchObject({ status: "done", endedWithRun: false });
    const z = cardOf(s, runId, "call_z")!;
    expect(z).toMatchObject({ status: "interrupted", durationMs: null, endedWithRun: false });
    expect(z.startedAt).not.toBe("");
    expect(z.result!.text).toMatch(/^interrupted, not replayed: Foya stopped while this call was running/);
    const q = cardOf(s, runId, "call_q")!;
    expect(q).toMatchObject({ status: "interrupted", startedAt: "" });
    expect(q.result!.text).toMatch(/while this call was waiting to run/);
  });

  it("shows the same after a reload as to a window open through the crash", () => {
    // The window saw the events up to the crash live; after the restart it
    // resumes after the last seq it had.
    const seen = crash.findIndex((e) => e.type === "tool.end" && (e.data as { status: string }).status === "interrupted");
    const live = reduceAll(applyConversation, initialConversation, crash.slice(0, seen));
    expect(live.turns[crash[0]!.runId!]!.status).toBe("running");
    expect(reduceAll(applyConversation, live, crash.slice(seen - 2))).toEqual(reduceAll(applyConversation, initialConversation, crash));
  });

  itKeepsSeqOrder("conversation", () => ({ events: crash }));
});
