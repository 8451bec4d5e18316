import { describe, expect, it } from "vitest";
import { toError } from "./errors";

describe("toError", () => {
  it.each<[string, unknown, string]>([
    ["an Error as it is", new Error("boom"), "boom"],
    ["a Go error string from Wails", "list sessions: database is locked", "list sessions: database is locked"],
    ["an empty string", "", "unexpected error from the backend: "],
    ["undefined", undefined, "unexpected error from the backend: undefined"],
    ["an object", { code: 1 }, "unexpected error from the backend: [object Object]"],
  ])("turns %s into an Error", (_name, reason, want) => {
    const e = toError(reason);
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe(want);
  });
});
