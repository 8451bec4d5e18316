// Where a request shows: its own call, or its sub-agent's task call.
import { describe, expect, it } from "vitest";
import type { Turn } from "../conversation/reducer";
import { anchorOf } from "./anchor";

const turn = (id: string, parentRunId = "", parentCallId = "") => ({ id, parentRunId, parentCallId }) as Turn;

describe("anchorOf", () => {
  const turns = { run_1: turn("run_1"), child: turn("child", "run_1", "task_1"), grandchild: turn("grandchild", "child", "task_2") };
  it.each([
    ["the session's own call", "run_1", "c1", { runId: "run_1", callId: "c1" }],
    ["a sub-agent's call: its task call", "child", "c2", { runId: "run_1", callId: "task_1" }],
    ["a nested sub-agent's call: the top task call", "grandchild", "c3", { runId: "run_1", callId: "task_1" }],
    ["a run not known", "gone", "c4", null],
  ])("%s", (_, runId, callId, want) => {
    expect(anchorOf(turns, runId, callId)).toEqual(want);
  });
  it("stops at a cycle in malformed events", () => {
    expect(anchorOf({ a: turn("a", "b", "x"), b: turn("b", "a", "y") }, "a", "c")).toBeNull();
  });
});
