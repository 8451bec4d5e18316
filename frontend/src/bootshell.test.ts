// index.html's static shell, the window's first paint before the script
// bundle runs, is drawn in the app's own colours (styles.css) in each
// theme, shows structure and a status only, and holds no inline script
// (foya serve's Content Security Policy would refuse it).
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Read from disk: vitest runs in frontend/ and hands CSS imports over empty.
const html = readFileSync("index.html", "utf8");
const css = readFileSync("src/styles.css", "utf8");

function vars(text: string, selector: string, prefix: string): Record<string, string> {
  const start = text.indexOf(selector);
  if (start < 0) throw new Error(`no ${selector}`);
  const body = text.slice(text.indexOf("{", start) + 1, text.indexOf("}", start));
  const out: Record<string, string> = {};
  for (const m of body.matchAll(new RegExp(`--${prefix}([a-z0-9-]+):\\s*([^;]+);`, "g"))) out[m[1]!] = m[2]!.trim();
  return out;
}

const tokens = ["bg", "surface", "surface-2", "text", "muted", "border"];

describe("the static shell in index.html", () => {
  it.each([
    ["light", ":root {", ":root,\n[data-theme=\"light\"]"],
    ["dark (chosen)", ':root[data-theme="dark"]', '[data-theme="dark"] {'],
    ["dark (system)", ':root:not([data-theme="light"])', ":root:not([data-theme])"],
  ])("uses the app's %s colours", (_, shellSel, appSel) => {
    const shell = vars(html, shellSel, "boot-");
    const app = vars(css, appSel, "");
    for (const t of tokens) {
      expect(shell[t], `--boot-${t}`).toBeDefined();
      expect(shell[t], `--boot-${t} vs --${t}`).toBe(app[t]);
    }
  });

  it("shows structure and a status, no data, and no inline script", () => {
    const doc = new DOMParser().parseFromString(html, "text/html");
    const root = doc.getElementById("root");
    expect(root?.querySelector('[role="status"]')?.textContent).toBe("Loading…");
    expect(root?.querySelector("h1")?.textContent).toBe("Foya");
    expect(root?.querySelector('[aria-busy="true"]')).not.toBeNull();
    for (const s of Array.from(doc.querySelectorAll("script"))) {
      expect(s.getAttribute("src"), "an inline script").not.toBeNull();
    }
  });
});
