// The conversation view's selectors and words: the rows
// of the virtualized transcript, the running turn, the prompt Up recalls,
// the model a Run would ask, a card's target.
import { describe, expect, it } from "vitest";
import { session } from "../../backend/fake";
import { Log, journey, reduceAll } from "../eventstest";
import { bytes, duration, runModel, target } from "./format";
import { applyConversation, initialConversation, lastPrompt, rowsOf, runningTurnId, type ToolCard } from "./reducer";
import type { FileChange } from "../../backend/gen/event";

describe("rowsOf", () => {
  it("lists prompt, steps with their cards, and the end of each turn, with mode switches between turns", () => {
    const s = reduceAll(applyConversation, initialConversation, journey().events);
    expect(rowsOf(s.entries, s.turns).map((r) => r.key)).toEqual([
      "prompt:run_1",
      "step:run_1:1",
      "card:run_1:call_w",
      "step:run_1:2",
      "end:run_1",
      `mode:${s.entries[1]?.kind === "mode" ? s.entries[1].seq : -1}`,
      "prompt:run_2",
      "step:run_2:1",
      "card:run_2:call_b",
      "end:run_2",
    ]);
  });

  it("keeps its inputs when a token streams or a card updates, so the rows need not be made again", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "bash", '{"command":"ls"}');
    const before = reduceAll(applyConversation, initialConversation, log.events);
    log.text("run_1", 1, "token");
    log.add("tool.update", { step: 1, id: "c1", progress: { tail: "a\n" } }, "run_1");
    const after = reduceAll(applyConversation, before, log.events.slice(-2));
    expect(after.entries).toBe(before.entries);
    expect(after.turns).toBe(before.turns);
  });
});

describe("runningTurnId and lastPrompt", () => {
  it("name the running turn and the latest prompt", () => {
    const log = new Log();
    expect(runningTurnId(initialConversation)).toBe("");
    expect(lastPrompt(initialConversation)).toBe("");
    log.runStart("run_1", "first");
    log.runEnd("run_1", "completed");
    log.add("session.mode", { from: "manual", to: "auto" });
    let s = reduceAll(applyConversation, initialConversation, log.events);
    expect(runningTurnId(s)).toBe("");
    expect(lastPrompt(s)).toBe("first");
    log.runStart("run_2", "second");
    s = reduceAll(applyConversation, initialConversation, log.events);
    expect(runningTurnId(s)).toBe("run_2");
    expect(lastPrompt(s)).toBe("second");
  });
});

describe("runModel", () => {
  const profiles = [
    { name: "a", baseUrl: "u", model: "ma" },
    { name: "b", baseUrl: "u", model: "mb", default: true },
  ];
  it.each([
    ["the session's model with its profile", session({ provider: "a", model: "own" }), profiles, "own"],
    ["the profile's model when the session has none", session({ provider: "a", model: "" }), profiles, "ma"],
    ["the default profile's when the session's profile is gone", session({ provider: "gone", model: "x" }), profiles, "mb"],
    ["none without profiles", session({ provider: "", model: "" }), [], ""],
    ["none without a default", session({ provider: "", model: "" }), [profiles[0]!], ""],
  ])("%s", (_, s, p, want) => {
    expect(runModel(s, p)).toBe(want);
  });
});

describe("words", () => {
  const card = (name: string, args: string): ToolCard => ({
    id: "c",
    runId: "r",
    step: 1,
    index: 0,
    name,
    status: "queued",
    argsBytes: args.length,
    argsPreview: args,
    tail: "",
    approval: null,
    beganAt: "",
    startedAt: "",
    endedAt: "",
    durationMs: null,
    result: null,
    endedWithRun: false,
    childRunId: "",
    hooks: [],
  });

  it("a target from complete or streaming arguments, workspace paths relative", () => {
    expect(target(card("read", '{"path":"/w/a/b.go"}'), "/w")).toBe("a/b.go");
    expect(target(card("read", '{"path":"/w/a/b.go","off'), "/w")).toBe("a/b.go");
    expect(target(card("bash", '{"command":"ls /w\\nrm x"}'), "/w")).toBe("ls /w");
    expect(target(card("grep", '{"path":".","pattern":"TODO"}'), "/w")).toBe("TODO");
    expect(target(card("glob", '{"pattern":"**/*.go"}'), "/w")).toBe("**/*.go");
    expect(target(card("bash", '{"comm'), "/w")).toBe("");
  });

  it("names a command by itself, not by a file it changed; a write by its file", () => {
    const changed = (name: string, args: string): ToolCard => ({
      ...card(name, args),
      status: "done",
      result: { text: "", isError: false, artifacts: [], fileChanges: [{ path: "/w/out.txt" } as FileChange], displayDiff: "", truncation: [], exitCode: 0, background: "", denials: [] },
    });
    expect(target(changed("bash", '{"command":"echo hi > out.txt"}'), "/w")).toBe("echo hi > out.txt");
    expect(target(changed("write", '{"path":"/w/other.txt"}'), "/w")).toBe("out.txt");
  });

  it("durations and sizes", () => {
    expect([duration(3), duration(2220), duration(65_000), duration(120_000)]).toEqual(["3 ms", "2.2 s", "1 min 5 s", "2 min"]);
    expect([bytes(1), bytes(40), bytes(3400), bytes(2_500_000)]).toEqual(["1 byte", "40 bytes", "3.4 KB", "2.5 MB"]);
  });
});
