import { describe, expect, it } from "vitest";
import { formatTime } from "./format";

describe("formatTime", () => {
  it.each([
    ["", ""],
    ["yesterday", "yesterday"],
    ["2026-13-45T99:00:00Z", "2026-13-45T99:00:00Z"],
  ])("shows %j as it came when it does not parse", (input, want) => {
    expect(formatTime(input)).toBe(want);
  });

  it("formats a valid time without leaking the raw form", () => {
    const got = formatTime("2026-03-04T05:06:07Z");
    expect(got).not.toBe("2026-03-04T05:06:07Z");
    expect(got).toMatch(/2026/);
  });
});
