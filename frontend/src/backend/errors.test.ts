import { describe, expect, it } from "vitest";
import { ApiError, toApiError } from "./errors";

describe("toApiError", () => {
  it.each<[string, unknown, string, string]>([
    ["the kernel API's JSON text from Wails", '{"code":"not_found","message":"session ses_x: not found"}', "not_found", "session ses_x: not found"],
    ["a plain Go error string from Wails", "error parsing arguments: json: cannot unmarshal", "internal", "error parsing arguments: json: cannot unmarshal"],
    ["JSON that is not an error", '{"hello":"world"}', "internal", '{"hello":"world"}'],
    ["a JSON error without a code", '{"code":"","message":"x"}', "internal", '{"code":"","message":"x"}'],
    ["malformed JSON", '{"code":"busy",', "internal", '{"code":"busy",'],
    ["a JSON string", '"busy"', "internal", '"busy"'],
    ["an empty string", "", "internal", "unexpected error from the backend: an empty message"],
    ["an object with code and message", { code: "busy", message: "a run is going" }, "busy", "a run is going"],
    ["an object with a numeric code", { code: 1, message: "x" }, "internal", "unexpected error from the backend: [object Object]"],
    ["an Error", new Error("boom"), "internal", "boom"],
    ["undefined", undefined, "internal", "unexpected error from the backend: undefined"],
  ])("turns %s into an ApiError", (_name, reason, code, message) => {
    const e = toApiError(reason);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toBeInstanceOf(Error);
    expect({ code: e.code, message: e.message }).toEqual({ code, message });
  });

  it("keeps an ApiError as it is", () => {
    const e = new ApiError("conflict", "changed since");
    expect(toApiError(e)).toBe(e);
  });
});
