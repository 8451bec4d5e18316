import { describe, expect, it } from "vitest";
import type { BackgroundChangedData } from "../../backend/gen/event";
import type { BackgroundCommand } from "../../backend/gen/kernel";
import { applyChange, initialBackground, listing, withCommand, withList } from "./reducer";

const server: BackgroundCommand = {
  id: "bg1",
  sessionId: "ses_1",
  command: "npm run dev",
  pid: 42,
  startedAt: "2026-12-01T11:00:00Z",
  running: true,
  exitCode: 0,
  sandbox: "landlock",
  outputBytes: 10,
};

const change = (change: string, fields: Partial<BackgroundCommand> = {}): BackgroundChangedData => ({ change, ...server, ...fields });

describe("background reducer", () => {
  it("applies background.changed notices to the list, by command ID", () => {
    let s = withList(initialBackground, [server]);
    s = applyChange(s, change("output", { outputBytes: 99 }));
    s = applyChange(s, change("started", { id: "bg2", command: "make watch", outputBytes: 0 }));
    expect(s.commands.map((c) => [c.id, c.outputBytes])).toEqual([
      ["bg1", 99],
      ["bg2", 0],
    ]);
    s = applyChange(s, change("ended", { running: false, killed: true }));
    expect(s.commands[0]).toEqual({ ...server, running: false, killed: true });
    expect("change" in s.commands[0]!).toBe(false);
  });

  it("holds the notices that come while it lists, and applies them after the list", () => {
    let s = listing(withList(initialBackground, []));
    s = applyChange(s, change("started", { outputBytes: 0 }));
    s = applyChange(s, change("ended", { running: false, exitCode: 3, outputBytes: 20 }));
    expect(s.commands).toEqual([]);
    // The list was read between the two notices: the last notice wins.
    s = withList(s, [{ ...server, outputBytes: 5 }]);
    expect(s.listed).toBe(true);
    expect(s.commands).toEqual([{ ...server, running: false, exitCode: 3, outputBytes: 20 }]);
  });

  it("takes a kill's answer", () => {
    const s = withCommand(withList(initialBackground, [server]), { ...server, running: false, killed: true });
    expect(s.commands).toEqual([{ ...server, running: false, killed: true }]);
  });
});
