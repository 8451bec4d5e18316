import { describe, expect, it } from "vitest";
import { EventTypes } from "../seq";
import {
  Log,
  SESSION,
  WORKDIR,
  everything,
  interruptedText,
  itKeepsSeqOrder,
  journey,
  reduceAll,
  typesOf,
} from "../eventstest";
import { applyConversation, cardOf, compactionInForce, initialConversation, rowsOf, type ConversationState } from "./reducer";

const reduce = (log: Log, s: ConversationState = initialConversation) => reduceAll(applyConversation, s, log.events);

describe("applyConversation", () => {
  it("takes every event type of docs/events.md", () => {
    const log = everything();
    for (const t of EventTypes) expect(typesOf(log.events)).toContain(t);
    const s = reduce(log);
    const mode = log.events.find((e) => e.type === "session.mode")!;
    const model = log.events.find((e) => e.type === "session.model")!;
    expect(s.entries).toEqual([
      { kind: "turn", id: "run_1" },
      { kind: "mode", seq: mode.seq, time: mode.time, from: "manual", to: "auto" },
      { kind: "turn", id: "run_2" },
      { kind: "turn", id: "run_3" },
      { kind: "turn", id: "run_4" },
      { kind: "model", seq: model.seq, time: model.time, provider: "work", model: "big-model" },
      { kind: "compact", id: "cmp_1", seq: model.seq + 2 },
      { kind: "compact", id: `failed:${model.seq + 3}`, seq: model.seq + 3 },
    ]);
    // spec: O5 — the person's compaction, undone, and the failure.
    expect(s.compactions["cmp_1"]).toMatchObject({ by: "user", upto: 12, turns: 3, files: 1, undone: true, error: "" });
    expect(s.compactions[`failed:${model.seq + 3}`]).toMatchObject({ error: "the model's summary was empty", stopped: false });
    expect(compactionInForce(s.compactions)).toBe("");
  });

  it("shows a message sent during a run before the step that read it, and a chosen model after the turns", () => {
    const log = everything();
    const s = reduce(log);
    const steer = log.events.find((e) => e.type === "run.steer")!;
    expect(s.turns["run_4"]!.steers).toEqual([{ seq: steer.seq, step: 2, text: "the file is missing.txt" }]);
    const keys = rowsOf(s.entries, s.turns).map((r) => r.key);
    const at = keys.indexOf(`steer:${steer.seq}`);
    expect(keys[at - 1]).toBe("card:run_4:call_s");
    expect(keys[at + 1]).toBe("step:run_4:2");
    expect(keys.at(-3)).toMatch(/^model:/);
    expect(keys.slice(-2)).toEqual(["compact:cmp_1", expect.stringMatching(/^compact:failed:/)]);
  });

  it("builds a turn with its prompt, streamed text and reasoning per step, and a done write", () => {
    const s = reduce(journey());
    const t = s.turns["run_1"]!;
    expect(t).toMatchObject({
      prompt: "Create notes.txt saying hello",
      model: "scripted-model",
      provider: "openai-compatible",
      workdir: WORKDIR,
      approvalMode: "manual",
      instructions: { status: "used", file: "AGENTS.md" },
      status: "completed",
      error: "",
      stepLimit: false,
      interruptedCalls: null,
      usage: { totalTokens: 1880 },
    });
    expect(t.steps.map((st) => [st.step, st.finishReason, st.toolCalls, st.cards])).toEqual([
      [1, "tool_calls", 1, ["call_w"]],
      [2, "stop", 0, []],
    ]);
    expect(s.streams["run_1"]).toEqual({
      1: { text: "I'll create the file.", reasoning: "The user wants a file. I will write it." },
      2: { text: "Done.", reasoning: "" },
    });
    const card = cardOf(s, "run_1", "call_w")!;
    expect(card).toMatchObject({
      name: "write",
      status: "done",
      argsPreview: JSON.stringify({ path: "notes.txt", content: "hello\n" }),
      durationMs: 12,
      approval: { id: "apr_1", state: "allowed", message: "" },
      endedWithRun: false,
    });
    expect(card.result!.fileChanges.map((fc) => [fc.id, fc.path, fc.op, fc.added])).toEqual([
      ["chg_1", WORKDIR + "/notes.txt", "create", 1],
    ]);
    expect(card.startedAt).not.toBe("");
    expect(card.endedAt).not.toBe("");
  });

  it("moves a card through queued, streaming arguments, running, waiting, running, done", () => {
    const log = journey();
    const seen: unknown[] = [];
    let s = initialConversation;
    const last = log.events.findIndex((e) => e.type === "step.end");
    for (const ev of log.events.slice(0, last + 1)) {
      s = applyConversation(s, ev);
      const c = cardOf(s, "run_1", "call_w");
      if (c) seen.push([ev.type, c.status, c.argsBytes, c.approval?.state ?? null]);
    }
    const args = JSON.stringify({ path: "notes.txt", content: "hello\n" }).length;
    expect(seen).toEqual([
      ["tool.begin", "queued", 0, null],
      ["tool.update", "queued", Math.floor(args / 2), null],
      ["tool.update", "queued", args, null],
      ["tool.update", "running", args, null],
      ["approval.request", "waiting", args, "pending"],
      ["approval.answer", "running", args, "allowed"],
      ["tool.end", "done", args, "allowed"],
      ["step.end", "done", args, "allowed"],
    ]);
  });

  it("shows bash's live tail and a cancelled call and run", () => {
    const log = journey();
    const key = "call_b";
    const upToTail = log.events.filter((e) => e.runId !== "run_2" || e.type !== "tool.end" && e.type !== "run.end");
    const live = reduceAll(applyConversation, initialConversation, upToTail);
    expect(cardOf(live, "run_2", key)).toMatchObject({ status: "running", tail: "=== RUN TestA\n=== RUN TestB\n" });
    expect(live.turns["run_2"]!.status).toBe("running");

    const s = reduce(log);
    expect(cardOf(s, "run_2", key)).toMatchObject({ status: "cancelled", endedWithRun: false, tail: "=== RUN TestA\n=== RUN TestB\n" });
    expect(s.turns["run_2"]).toMatchObject({ status: "cancelled", error: "cancelled", stepLimit: false, approvalMode: "auto" });
  });

  it("restores a run a crash interrupted from history", () => {
    const s = reduce(everything());
    const t = s.turns["run_3"]!;
    expect(t).toMatchObject({ status: "interrupted", interruptedCalls: 1 });
    expect(t.error).toMatch(/^interrupted: Foya stopped during this run/);
    expect(cardOf(s, "run_3", "call_e")).toMatchObject({
      status: "interrupted",
      durationMs: null,
      endedWithRun: false,
      result: { isError: true, text: interruptedText("running"), fileChanges: [] },
    });
  });

  it("ends the cards a run left unended with the run's outcome", () => {
    const log = new Log();
    log.runStart("run_1", "two calls");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "call_a", "bash", "{}");
    log.call("run_1", 1, 1, "call_b", "bash", "{}");
    log.running("run_1", 1, "call_a");
    log.ask("run_1", "apr_1", "call_a", { kind: "shell", tool: "bash", command: "make" });
    log.runEnd("run_1", "cancelled", "cancelled");
    const s = reduce(log);
    expect(cardOf(s, "run_1", "call_a")).toMatchObject({ status: "cancelled", endedWithRun: true });
    expect(cardOf(s, "run_1", "call_b")).toMatchObject({ status: "cancelled", endedWithRun: true });
  });

  it("tells the step-limit stop from other failures", () => {
    const s = reduce(everything());
    expect(s.turns["run_4"]).toMatchObject({ status: "failed", stepLimit: true, activated: ["web_fetch"] });

    const log = new Log();
    log.runStart("run_1", "hi");
    log.stepStart("run_1", 1);
    log.add("step.end", { step: 1, error: "provider: stream cut", usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } }, "run_1");
    log.runEnd("run_1", "failed", "provider: stream cut");
    const failed = reduce(log);
    expect(failed.turns["run_1"]).toMatchObject({ status: "failed", stepLimit: false, error: "provider: stream cut" });
    expect(failed.turns["run_1"]!.steps[0]).toMatchObject({ ended: true, error: "provider: stream cut" });
  });

  it("keeps a failed call's full error and no file changes", () => {
    const s = reduce(everything());
    expect(cardOf(s, "run_4", "call_x")).toMatchObject({
      status: "error",
      result: { isError: true, text: "missing.txt does not exist (check the path with ls or glob)", fileChanges: [] },
    });
  });

  it("orders a step's cards by the model's index, whatever order they began in", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 5, "call_late", "read", "{}");
    log.call("run_1", 1, 2, "call_early", "read", "{}");
    // An ended call of a step that never streamed (recovery) still gets a card.
    log.end("run_1", 3, 0, "call_lost", "ls", "interrupted", interruptedText("waiting to run"));
    const t = reduce(log).turns["run_1"]!;
    expect(t.steps.map((st) => [st.step, st.cards])).toEqual([
      [1, ["call_early", "call_late"]],
      [3, ["call_lost"]],
    ]);
  });

  it("lists truncation notices of a result", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "call_1", "bash", "{}");
    const text =
      "[1,200 lines (52,000 bytes) of 2,000 lines (84,768 bytes) left out before this] Narrow the output.\nok\nexit status 0";
    log.end("run_1", 1, 0, "call_1", "bash", "done", text);
    const c = cardOf(reduce(log), "run_1", "call_1")!;
    expect(c.result!.truncation).toEqual([
      "[1,200 lines (52,000 bytes) of 2,000 lines (84,768 bytes) left out before this] Narrow the output.",
    ]);
    expect(c.result!.text).toBe(text);
  });

  it("puts a mode switch inside a running turn, and between turns on its own", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.add("session.mode", { from: "manual", to: "full_access" }, "run_1");
    log.runEnd("run_1", "completed");
    log.add("session.mode", { from: "full_access", to: "auto" });
    const s = reduce(log);
    expect(s.turns["run_1"]!.modes.map((m) => [m.from, m.to])).toEqual([["manual", "full_access"]]);
    expect(s.entries.map((e) => e.kind)).toEqual(["turn", "mode"]);
  });

  it("skips unknown types, malformed payloads and events of unknown runs, in seq order", () => {
    const log = new Log();
    log.add("message.user", { text: "hi" }, "run_0");
    log.add("run.start", null, "run_0");
    log.add("text.delta", { step: 1, text: "orphan" }, "run_9");
    log.add("tool.update", { step: 1, id: "nobody", argsBytes: 3 }, "run_9");
    log.runStart("run_1", "p");
    const s = reduce(log);
    expect(s.entries).toEqual([{ kind: "turn", id: "run_1" }]);
    expect(s.streams).toEqual({});
    expect(s.cards).toEqual({});
    expect(log.events[0]!.sessionId).toBe(SESSION);
  });

  it("leaves turns and cards the same objects when a token streams", () => {
    const log = journey();
    const before = reduceAll(applyConversation, initialConversation, log.events.slice(0, 5));
    const after = applyConversation(before, log.events[5]!);
    expect(log.events[5]!.type).toBe("text.delta");
    expect(after.entries).toBe(before.entries);
    expect(after.turns).toBe(before.turns);
    expect(after.cards).toBe(before.cards);
    expect(after.streams).not.toBe(before.streams);
  });

  itKeepsSeqOrder("conversation", everything);
});
