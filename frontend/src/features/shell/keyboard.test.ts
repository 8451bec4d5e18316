import { describe, expect, it } from "vitest";
import { shortcutOf } from "./keyboard";

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe("shortcutOf", () => {
  it.each([
    [key("n", { ctrlKey: true }), "newSession"],
    [key("N", { metaKey: true }), "newSession"],
    [key("n", { ctrlKey: true, altKey: true }), "newSession"],
    [key("k", { ctrlKey: true }), "focusSearch"],
    [key("k", { metaKey: true }), "focusSearch"],
    [key(",", { ctrlKey: true }), "openSettings"],
    [key("n"), null],
    [key("k", { altKey: true }), null],
    [key("k", { ctrlKey: true, altKey: true }), null],
    [key("n", { ctrlKey: true, shiftKey: true }), null],
    [key("x", { ctrlKey: true }), null],
    [key("M", { ctrlKey: true, shiftKey: true }), "modeMenu"],
    [key("m", { metaKey: true, shiftKey: true }), "modeMenu"],
    [key("m", { ctrlKey: true }), null],
    [key("M", { shiftKey: true }), null],
    [key("m", { ctrlKey: true, shiftKey: true, altKey: true }), null],
  ])("%j is %s", (e, want) => {
    expect(shortcutOf(e)).toBe(want);
  });
});
