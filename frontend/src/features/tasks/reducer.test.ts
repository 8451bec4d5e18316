import { describe, expect, it } from "vitest";
import { itKeepsSeqOrder, Log, reduceAll } from "../eventstest";
import { applyTasks, initialTasks } from "./reducer";

function log(): Log {
  const l = new Log();
  l.runStart("run_1", "plan and fix");
  l.add("todo.updated", { todos: [{ content: "read main.go", status: "in_progress" }, { content: "fix the bug", status: "pending" }] }, "run_1");
  l.text("run_1", 1, "Read it.");
  l.add("todo.updated", { todos: [{ content: "read main.go", status: "completed" }, { content: "fix the bug", status: "in_progress" }] }, "run_1");
  return l;
}

describe("tasks reducer", () => {
  it("keeps the latest todo.updated's whole list, in order", () => {
    const s = reduceAll(applyTasks, initialTasks, log().events);
    expect(s.todos).toEqual([
      { content: "read main.go", status: "completed" },
      { content: "fix the bug", status: "in_progress" },
    ]);
    expect(s.updatedAt).toBe(4);
  });

  it("replaces the list, an empty one clears it", () => {
    const l = log();
    l.add("todo.updated", { todos: [] }, "run_1");
    const s = reduceAll(applyTasks, initialTasks, l.events);
    expect(s.todos).toEqual([]);
    expect(s.updatedAt).toBe(5);
  });

  it("leaves the list for other events and skips a malformed todo.updated", () => {
    const l = log();
    const before = reduceAll(applyTasks, initialTasks, l.events);
    l.text("run_1", 2, "more");
    l.add("todo.updated", { todos: "not a list" }, "run_1");
    l.add("todo.updated", { todos: [{ content: 3, status: "pending" }, null, { content: "ok", status: "pending" }] }, "run_1");
    const after = reduceAll(applyTasks, initialTasks, l.events.slice(0, 6));
    expect(after.todos).toBe(after.todos);
    expect(after.todos).toEqual(before.todos);
    const last = reduceAll(applyTasks, initialTasks, l.events);
    expect(last.todos).toEqual([{ content: "ok", status: "pending" }]);
  });

  itKeepsSeqOrder("tasks", log);
});
