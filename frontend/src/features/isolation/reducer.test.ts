import { describe, expect, it } from "vitest";
import { Log, reduceAll } from "../eventstest";
import { applyIsolation, initialIsolation, maxSetupOutput } from "./reducer";

describe("applyIsolation (issue 29: an isolated session's copy)", () => {
  it("follows the setup command: running, its output as it prints, then how it ended", () => {
    const log = new Log();
    log.add("isolation.setup", { command: "npm ci", state: "running", sandbox: "landlock" });
    log.add("isolation.setup", { command: "npm ci", state: "output", output: "added 3 packages\n" });
    let s = reduceAll(applyIsolation, initialIsolation, log.events);
    expect(s.setup).toMatchObject({ state: "running", command: "npm ci", output: "added 3 packages\n", sandbox: "landlock" });
    log.add("isolation.setup", { command: "npm ci", state: "output", output: "done\n" });
    log.add("isolation.setup", { command: "npm ci", state: "succeeded", output: "added 3 packages\ndone\n", exitCode: 0, durationMs: 1500 });
    s = reduceAll(applyIsolation, initialIsolation, log.events);
    // The end's output is the end of what came already: not shown twice.
    expect(s.setup).toMatchObject({ state: "succeeded", output: "added 3 packages\ndone\n", exitCode: 0, durationMs: 1500, error: "" });
  });

  it("takes the end event's output when no output event came, and keeps why it failed", () => {
    const log = new Log();
    log.add("isolation.setup", { command: "make deps", state: "running" });
    log.add("isolation.setup", { command: "make deps", state: "failed", output: "make: *** no rule\n", exitCode: 2, error: "exit status 2" });
    const s = reduceAll(applyIsolation, initialIsolation, log.events);
    expect(s.setup).toMatchObject({ state: "failed", output: "make: *** no rule\n", exitCode: 2, error: "exit status 2" });
  });

  it("keeps only the end of a long output, and says it was cut", () => {
    const log = new Log();
    log.add("isolation.setup", { command: "yes", state: "running" });
    log.add("isolation.setup", { command: "yes", state: "output", output: "a".repeat(maxSetupOutput) });
    log.add("isolation.setup", { command: "yes", state: "output", output: "THE END" });
    const s = reduceAll(applyIsolation, initialIsolation, log.events);
    expect(s.setup.output.length).toBe(maxSetupOutput);
    expect(s.setup.output.endsWith("THE END")).toBe(true);
    expect(s.setup.cut).toBe(true);
  });

  it("records the last apply and the discard; other events change nothing", () => {
    const log = new Log();
    log.runStart("r1", "hi");
    const before = reduceAll(applyIsolation, initialIsolation, log.events);
    expect(before).toBe(initialIsolation);
    log.add("isolation.applied", { folder: "/p", applied: ["a.txt"], conflicts: ["b.txt"] });
    const d = log.add("isolation.discarded", { kind: "worktree", dir: "/copies/s", branch: "foya/s" });
    const s = reduceAll(applyIsolation, initialIsolation, log.events);
    expect(s.applied).toMatchObject({ applied: ["a.txt"], conflicts: ["b.txt"] });
    expect(s.discarded).toBe(d.time);
  });
});
