import { describe, expect, it } from "vitest";
import type { BackgroundCommand } from "../../backend/gen/kernel";
import { durationText, sizeText, statusKind, statusText } from "./format";

const c = (f: Partial<BackgroundCommand>): BackgroundCommand => ({
  id: "bg1",
  sessionId: "s",
  command: "x",
  pid: 7,
  startedAt: "2026-12-01T11:00:00Z",
  running: false,
  exitCode: 0,
  sandbox: "none",
  outputBytes: 0,
  ...f,
});

describe("background format", () => {
  it("words every way a command is or ended", () => {
    const cases: [Partial<BackgroundCommand>, string, string][] = [
      [{ running: true }, "Running (PID 7)", "running"],
      [{ exitCode: 0, durationNs: 1.2e9 }, "Exited with code 0 after 1.2 s", "ok"],
      [{ exitCode: 3 }, "Exited with code 3", "failed"],
      [{ killed: true, signal: "terminated", durationNs: 61e9 }, "Stopped on request after 1 min 1 s", "failed"],
      [{ timedOut: true, durationNs: 5e8 }, "Timed out after 500 ms", "failed"],
      [{ signal: "killed", exitCode: -1 }, "Killed by signal killed", "failed"],
    ];
    for (const [f, text, kind] of cases) {
      expect(statusText(c(f))).toBe(text);
      expect(statusKind(c(f))).toBe(kind);
    }
  });

  it("sizes and durations", () => {
    expect(sizeText(1)).toBe("1 byte");
    expect(sizeText(1023)).toBe("1023 bytes");
    expect(sizeText(1536)).toBe("1.5 KiB");
    expect(sizeText(3 << 20)).toBe("3.0 MiB");
    expect(durationText(7_300e9)).toBe("2 h 1 min");
  });
});
