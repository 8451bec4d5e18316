// The colour pairs the diff view and the review panel draw, checked for
// WCAG AA (4.5:1) against the theme tokens of styles.css, light and dark:
// a token the theme does not define yet is taken at the fallback our CSS
// gives it.
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Read from disk: vitest hands CSS imports over empty, ?raw included.
const read = (rel: string) => readFileSync(new URL(rel, import.meta.url), "utf8");
const styles = read("../../styles.css");
const diffCss = read("./diff.css");
const reviewCss = read("../../features/changes/review.css");

// block returns the custom properties of the first rule whose selector list contains sel.
function block(text: string, sel: string): Record<string, string> | null {
  const css = text.replace(/\/\*[\s\S]*?\*\//g, "");
  const re = /([^{}]+)\{([^{}]*)\}/g;
  for (let m = re.exec(css); m !== null; m = re.exec(css)) {
    const sels = m[1]!.split(",").map((s) => s.trim());
    if (!sels.includes(sel)) continue;
    const out: Record<string, string> = {};
    for (const d of m[2]!.split(";")) {
      const [k, ...v] = d.split(":");
      if (k !== undefined && k.trim().startsWith("--")) out[k.trim()] = v.join(":").trim();
    }
    return out;
  }
  return null;
}

// fallbacks are the values our CSS gives tokens in var(--x, value).
function fallbacks(css: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of css.matchAll(/var\((--[a-z0-9-]+),\s*(#[0-9a-fA-F]{6})\)/g)) out[m[1]!] ??= m[2]!;
  return out;
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  ) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function ratio(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

// Text colours and the backgrounds they are drawn on, as the two CSS files use them.
const pairs: [string, string[]][] = [
  ["--text", ["--surface", "--code-bg", "--add-bg", "--del-bg", "--surface-2", "--bg"]],
  ["--muted", ["--surface", "--code-bg", "--add-bg", "--del-bg", "--surface-2", "--bg"]],
  ["--accent", ["--surface", "--code-bg", "--add-bg", "--del-bg"]],
  ["--success", ["--surface", "--code-bg", "--add-bg", "--del-bg"]],
  ["--warning", ["--surface", "--code-bg", "--add-bg", "--del-bg"]],
  ["--danger", ["--surface", "--danger-bg"]],
  ["--accent-text", ["--accent", "--danger"]],
];

const fb = { ...fallbacks(diffCss), ...fallbacks(reviewCss), "--code-bg": "", "--surface-2": "" };
const light = block(styles, '[data-theme="light"]') ?? block(styles, ":root") ?? {};
const dark = block(styles, '[data-theme="dark"]');
const themes: [string, Record<string, string>][] = [["light", light]];
if (dark !== null) themes.push(["dark", dark]);

describe("colour contrast of the diff view and the review panel", () => {
  for (const [name, tokens] of themes) {
    it(`meets AA in the ${name} theme`, () => {
      // Tokens our CSS falls back from: --code-bg to --surface, --surface-2 to --bg.
      const value = (t: string): string => {
        const v = tokens[t] ?? fb[t as keyof typeof fb];
        if (v !== undefined && /^#[0-9a-fA-F]{6}$/.test(v)) return v;
        if (t === "--code-bg") return value("--surface");
        if (t === "--surface-2") return value("--bg");
        throw new Error(`token ${t} has no colour in the ${name} theme`);
      };
      const low: string[] = [];
      for (const [fg, bgs] of pairs) {
        for (const bg of bgs) {
          const r = ratio(value(fg), value(bg));
          if (r < 4.5) low.push(`${fg} on ${bg}: ${r.toFixed(2)}`);
        }
      }
      expect(low).toEqual([]);
    });
  }
});
