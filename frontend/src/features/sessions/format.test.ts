import { describe, expect, it } from "vitest";
import { formatShort, formatTime } from "./format";

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

describe("formatShort", () => {
  const now = new Date(2026, 11, 1, 15, 0);
  it("shows the time today, the day this year, the date before", () => {
    expect(formatShort(new Date(2026, 11, 1, 9, 5).toISOString(), now)).toBe(
      new Intl.DateTimeFormat(undefined, { timeStyle: "short" }).format(new Date(2026, 11, 1, 9, 5)),
    );
    const thisYear = formatShort(new Date(2026, 2, 4).toISOString(), now);
    expect(thisYear).not.toMatch(/2026/);
    expect(formatShort(new Date(2024, 2, 4).toISOString(), now)).toMatch(/2024/);
    expect(formatShort("soon", now)).toBe("soon");
  });
});
