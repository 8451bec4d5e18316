// The themes' tokens (styles.css) meet WCAG AA: 4.5:1 for text, in both
// themes, for every pair of text and background colours the UI uses.
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Read from disk: vitest hands CSS imports over empty, ?raw included.
const css = readFileSync("src/styles.css", "utf8"); // vitest runs in frontend/

function block(selector: string): Record<string, string> {
  const start = css.indexOf(selector);
  if (start < 0) throw new Error(`styles.css has no ${selector}`);
  const body = css.slice(css.indexOf("{", start) + 1, css.indexOf("}", start));
  const vars: Record<string, string> = {};
  for (const m of body.matchAll(/--([a-z0-9-]+):\s*([^;]+);/g)) vars[m[1]!] = m[2]!.trim();
  return vars;
}

function luminance(hex: string): number {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (m === null) throw new Error(`${hex} is not #rrggbb`);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(m[1]!.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x! + 0.05) / (y! + 0.05);
}

// [text, background] pairs the UI draws.
const pairs: [string, string][] = [
  ...["bg", "surface", "surface-2", "code-bg", "add-bg", "del-bg", "danger-bg"].map((bg): [string, string] => ["text", bg]),
  ...["bg", "surface", "surface-2"].map((bg): [string, string] => ["muted", bg]),
  ["accent", "surface"],
  ["accent", "surface-2"],
  ["accent-text", "accent"],
  ["danger", "surface"],
  ["danger", "danger-bg"],
  ["surface", "danger"], // the danger button's text
  ["warning", "surface"],
  ["warning", "surface-2"],
  ["success", "surface"],
];

describe("theme contrast", () => {
  const light = block(':root,\n[data-theme="light"]');
  const dark = block('[data-theme="dark"]');
  it.each(pairs)("--%s on --%s is at least 4.5:1 in both themes", (fg, bg) => {
    for (const [name, t] of [
      ["light", light],
      ["dark", dark],
    ] as const) {
      const ratio = contrast(t[fg]!, t[bg]!);
      expect(ratio, `${name}: --${fg} ${t[fg]} on --${bg} ${t[bg]}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("the system's dark preference uses the dark theme's very tokens", () => {
    expect(block(":root:not([data-theme])")).toEqual(dark);
  });
});
