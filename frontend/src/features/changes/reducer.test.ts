import { describe, expect, it } from "vitest";
import { EventTypes } from "../seq";
import { Log, WORKDIR, everything, fileChange, itKeepsSeqOrder, reduceAll, typesOf } from "../eventstest";
import { applyChanges, initialChanges } from "./reducer";

const reduce = (log: Log) => reduceAll(applyChanges, initialChanges, log.events);
const notes = WORKDIR + "/notes.txt";

describe("applyChanges", () => {
  it("takes every event type of docs/events.md", () => {
    const log = everything();
    for (const t of EventTypes) expect(typesOf(log.events)).toContain(t);
    const s = reduce(log);
    expect(s.groups).toEqual([
      { runId: "run_1", changes: ["chg_1", "chg_bg"] },
      { runId: "", changes: ["chg_2"] },
    ]);
    // A background command's change joins its turn (file.captured).
    expect(s.byId["chg_bg"]).toMatchObject({ runId: "run_1", callId: "call_1", op: "create", full: true });
    expect(s.byId["chg_1"]).toMatchObject({ runId: "run_1", callId: "call_w", path: notes, op: "create", full: true });
    expect(s.byId["chg_1"]!.record!.diff).toContain("+hello");
    expect(s.byId["chg_2"]).toMatchObject({ path: notes, op: "revert", revertOf: "chg_1", full: false, record: null });
    expect(s.revertedBy).toEqual({ chg_1: "chg_2" });
    // The outside change came after the revert: it stays marked.
    expect(s.outside[notes]).toMatchObject({ path: notes, exists: true });
    expect(s.watchDegraded).toMatch(/polling/);
  });

  it("groups a multi-file turn and keeps turns apart", () => {
    const log = new Log();
    log.runStart("run_1", "two files");
    log.end("run_1", 1, 0, "call_a", "write", "done", "ok", {
      fileChanges: [fileChange("chg_a", "run_1", "call_a", WORKDIR + "/a", "create"), fileChange("chg_b", "run_1", "call_a", WORKDIR + "/b", "create")],
    });
    log.runStart("run_2", "delete");
    log.end("run_2", 1, 0, "call_d", "delete", "done", "moved to the trash", {
      fileChanges: [{ ...fileChange("chg_d", "run_2", "call_d", WORKDIR + "/a", "delete"), trashPath: "/home/me/.local/share/Trash/files/a" }],
    });
    const s = reduce(log);
    expect(s.groups).toEqual([
      { runId: "run_1", changes: ["chg_a", "chg_b"] },
      { runId: "run_2", changes: ["chg_d"] },
    ]);
    expect(s.byId["chg_d"]!.record!.trashPath).toBe("/home/me/.local/share/Trash/files/a");
  });

  it("adds no group for a call that failed without changing anything", () => {
    // A denied or failed write changed nothing: the kernel sends no change,
    // and the panel shows no empty turn for it.
    const log = new Log();
    log.runStart("run_1", "p");
    log.end("run_1", 1, 0, "call_a", "write", "error", "denied by the user: no");
    log.end("run_1", 1, 1, "call_b", "bash", "cancelled", "cancelled: the run was cancelled");
    expect(reduce(log).groups).toEqual([]);
  });

  it("takes a cancelled or failed command's changes, with their turn and how the call ended", () => {
    // The kernel stores what a command changed before it was cancelled, or
    // before it failed, and can revert it: the panel shows those changes.
    const log = new Log();
    log.runStart("run_1", "p");
    log.end("run_1", 1, 0, "call_w", "write", "done", "ok", {
      fileChanges: [fileChange("chg_w", "run_1", "call_w", WORKDIR + "/w", "create")],
    });
    log.end("run_1", 2, 0, "call_c", "bash", "cancelled", "cancelled: the run was cancelled", {
      fileChanges: [{ ...fileChange("chg_c", "run_1", "call_c", WORKDIR + "/half", "create"), tool: "bash" }],
    });
    log.end("run_1", 3, 0, "call_e", "bash", "error", "exit status 1", {
      fileChanges: [{ ...fileChange("chg_e", "run_1", "call_e", WORKDIR + "/c", "delete"), tool: "bash" }],
    });
    const s = reduce(log);
    expect(s.groups).toEqual([{ runId: "run_1", changes: ["chg_w", "chg_c", "chg_e"] }]);
    expect(s.byId["chg_w"]).toMatchObject({ callStatus: "done" });
    expect(s.byId["chg_c"]).toMatchObject({ callId: "call_c", callStatus: "cancelled", full: true });
    expect(s.byId["chg_e"]).toMatchObject({ callId: "call_e", callStatus: "error", op: "delete" });
  });

  it("marks an undo: the revert of a revert", () => {
    const log = new Log();
    log.add("file.reverted", { changeId: "chg_2", revertOf: "chg_1", path: notes, op: "revert" });
    log.add("file.reverted", { changeId: "chg_3", revertOf: "chg_2", path: notes, op: "revert" });
    expect(reduce(log).revertedBy).toEqual({ chg_1: "chg_2", chg_2: "chg_3" });
  });

  it("clears an outside mark when Foya changes the path again", () => {
    const log = new Log();
    log.add("file.changed_outside", { path: notes, exists: false });
    expect(reduce(log).outside[notes]).toMatchObject({ exists: false });
    log.add("file.reverted", { changeId: "chg_2", revertOf: "chg_1", path: notes, op: "revert" });
    expect(reduce(log).outside).toEqual({});
  });

  it("marks a file changed outside Foya after a revert of it, and after an undo of that", () => {
    // The kernel's order: the change, its revert, the editor's change the
    // watcher reports after the revert, the undo, another editor's change.
    const log = new Log();
    log.runStart("run_1", "write");
    log.end("run_1", 1, 0, "call_w", "write", "done", "wrote", { fileChanges: [fileChange("chg_1", "run_1", "call_w", notes, "create")] });
    log.add("file.reverted", { changeId: "chg_2", revertOf: "chg_1", path: notes, op: "revert" });
    expect(reduce(log).outside).toEqual({});
    log.add("file.changed_outside", { path: notes, exists: true });
    expect(reduce(log).outside[notes]).toMatchObject({ path: notes, exists: true, seq: log.events.length });
    log.add("file.reverted", { changeId: "chg_3", revertOf: "chg_2", path: notes, op: "revert" });
    expect(reduce(log).outside).toEqual({});
    log.add("file.changed_outside", { path: notes, exists: false });
    expect(reduce(log).outside[notes]).toMatchObject({ exists: false });
  });

  itKeepsSeqOrder("changes", everything);
});
