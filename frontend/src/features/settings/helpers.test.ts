import { describe, expect, it } from "vitest";
import { formatHeaders, parseHeaders } from "./headers";
import { bytesText } from "./keys";
import { isMode, modeLabel, modes } from "./modes";

describe("settings helpers", () => {
  it("reads and writes headers one per line", () => {
    expect(parseHeaders("X-Org: 42\n\n  X-Team :  core  \n")).toEqual({ headers: { "X-Org": "42", "X-Team": "core" } });
    expect(parseHeaders("Authorization: Bearer a:b")).toEqual({ headers: { Authorization: "Bearer a:b" } });
    expect(parseHeaders("X-Org 42")).toEqual({ error: 'Header line 1 ("X-Org 42") is not "Name: value": write one header per line, such as X-Org-Id: 42.' });
    expect(parseHeaders(": v")).toHaveProperty("error");
    expect(parseHeaders("A: 1\nA: 2")).toEqual({ error: "Header A is given twice (line 2): keep one." });
    expect(formatHeaders({ b: "2", a: "1" })).toBe("a: 1\nb: 2");
    expect(formatHeaders(undefined)).toBe("");
  });

  it("names the modes as stored and shows bytes in words", () => {
    expect(modes.map((m) => m.value)).toEqual(["manual", "auto", "full_access"]);
    expect(modeLabel("full_access")).toBe("Full Access");
    expect(modeLabel("weird")).toBe("weird");
    expect(isMode("auto")).toBe(true);
    expect(isMode("full-access")).toBe(false);
    expect(bytesText("67108864")).toBe("67108864 bytes (64 MiB)");
    expect(bytesText("1536")).toBe("1536 bytes (1.5 KiB)");
    expect(bytesText("12")).toBe("12 bytes");
    expect(bytesText("junk")).toBe("junk");
  });
});
