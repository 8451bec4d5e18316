import { describe, expect, it } from "vitest";
import { formatBytes, formatDuration, parseBytes, parseDuration } from "./units";

describe("settings units", () => {
  it.each([
    ["67108864", "64 MB"],
    ["1536", "1.5 KB"],
    ["4294967296", "4 GB"],
    ["12", "12 bytes"],
    ["1", "1 byte"],
    ["junk", "junk"],
  ])("formatBytes(%s) = %s", (v, want) => expect(formatBytes(v)).toBe(want));

  it.each([
    ["64 MB", "67108864"],
    ["64MB", "67108864"],
    ["64 MiB", "67108864"],
    ["64m", "67108864"],
    ["1.5 KB", "1536"],
    ["1 GB", "1073741824"],
    ["4096", "4096"],
    ["4,096 bytes", "4096"],
  ])("parseBytes(%s) = %s", (text, want) => expect(parseBytes(text)).toEqual({ ok: true, value: want }));

  it.each(["", "lots", "64 parsecs", "0 MB", "-1 MB"])("parseBytes(%j) is an error that says how to write a size", (text) => {
    const got = parseBytes(text);
    expect(got.ok).toBe(false);
    if (!got.ok) expect(got.error).toMatch(/such as 64 MB/);
  });

  it("reads back what it shows", () => {
    for (const v of ["67108864", "1536", "4294967296", "12"]) expect(parseBytes(formatBytes(v))).toEqual({ ok: true, value: v });
  });

  it.each([
    ["2m0s", "120 s"],
    ["5m0s", "300 s"],
    ["1h30m", "5400 s"],
    ["500ms", "0.5 s"],
    ["1m30.5s", "90.5 s"],
    ["soon", "soon"],
  ])("formatDuration(%s) = %s", (v, want) => expect(formatDuration(v)).toBe(want));

  it.each([
    ["120", "120s"],
    ["120 s", "120s"],
    ["120 seconds", "120s"],
    ["2 min", "120s"],
    ["1.5 min", "90s"],
    ["500 ms", "500ms"],
    ["1 h", "3600s"],
    ["1m30s", "90s"],
    ["0.5 s", "500ms"],
  ])("parseDuration(%s) = %s", (text, want) => expect(parseDuration(text)).toEqual({ ok: true, value: want }));

  it.each(["", "soon", "0", "0 s", "2 fortnights"])("parseDuration(%j) is an error that says how to write one", (text) => {
    const got = parseDuration(text);
    expect(got.ok).toBe(false);
    if (!got.ok) expect(got.error).toMatch(/120 s/);
  });
});
