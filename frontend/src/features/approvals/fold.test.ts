// An MCP call's arguments, folded for reading and whole on demand.
import { describe, expect, it } from "vitest";
import { isGoToKey } from "./context";
import { maxItems, maxRaw, maxString, showArguments } from "./fold";

describe("showArguments", () => {
  it("pretty-prints short JSON, nothing folded", () => {
    const s = showArguments('{"title":"Bug","n":2,"ok":true,"tags":["a"]}');
    expect(s).toEqual({ folded: s.whole, whole: '{\n  "title": "Bug",\n  "n": 2,\n  "ok": true,\n  "tags": [\n    "a"\n  ]\n}', json: true });
  });
  it("folds long strings, long arrays and objects with many keys, at any depth", () => {
    const long = "é".repeat(maxString + 5);
    const many = Object.fromEntries(Array.from({ length: maxItems + 2 }, (_, i) => [`k${i}`, i]));
    const s = showArguments(JSON.stringify({ a: { b: long }, list: Array.from({ length: maxItems + 3 }, () => 1), many }));
    const folded = JSON.parse(s.folded);
    expect(folded.a.b).toBe("é".repeat(maxString) + "… (5 more characters)");
    expect(folded.list).toHaveLength(maxItems + 1);
    expect(folded.list[maxItems]).toBe("… (3 more items)");
    expect(folded.many["…"]).toBe("2 more keys");
    expect(JSON.parse(s.whole).a.b).toBe(long);
  });
  it("shows text that is not JSON as it is, folded when long", () => {
    const raw = '{"body":"' + "x".repeat(maxRaw) + "…";
    const s = showArguments(raw);
    expect(s.json).toBe(false);
    expect(s.whole).toBe(raw);
    expect(s.folded).toBe(raw.slice(0, maxRaw) + `… (${raw.length - maxRaw} more characters)`);
  });
});

describe("isGoToKey", () => {
  const k = (o: Partial<KeyboardEvent>) => ({ altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, code: "KeyA", ...o });
  it("is Alt+A by the key's place (Option+A types å on macOS), nothing else", () => {
    expect(isGoToKey(k({ altKey: true }))).toBe(true);
    expect(isGoToKey(k({ altKey: true, code: "KeyB" }))).toBe(false);
    expect(isGoToKey(k({}))).toBe(false);
    expect(isGoToKey(k({ altKey: true, ctrlKey: true }))).toBe(false);
  });
});
