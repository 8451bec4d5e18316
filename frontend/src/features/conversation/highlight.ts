// Syntax highlighting for code blocks: refractor's core, with each language
// loaded on first use by a dynamic import, so the initial bundle carries no
// grammar (the initial JavaScript stays under 500 KB gzipped).
import { refractor } from "refractor/core";
import type { Root } from "hast";

type Grammar = Parameters<typeof refractor.register>[0];

// The languages a coding agent's answers use most, by the names and
// aliases a fenced block gives. Each is a separate chunk.
const loaders: Record<string, () => Promise<{ default: Grammar }>> = {
  bash: () => import("refractor/bash"),
  c: () => import("refractor/c"),
  cpp: () => import("refractor/cpp"),
  css: () => import("refractor/css"),
  diff: () => import("refractor/diff"),
  go: () => import("refractor/go"),
  java: () => import("refractor/java"),
  javascript: () => import("refractor/javascript"),
  json: () => import("refractor/json"),
  jsx: () => import("refractor/jsx"),
  markdown: () => import("refractor/markdown"),
  markup: () => import("refractor/markup"),
  python: () => import("refractor/python"),
  rust: () => import("refractor/rust"),
  sql: () => import("refractor/sql"),
  tsx: () => import("refractor/tsx"),
  typescript: () => import("refractor/typescript"),
  yaml: () => import("refractor/yaml"),
};

const aliases: Record<string, string> = {
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  "c++": "cpp",
  golang: "go",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  md: "markdown",
  html: "markup",
  xml: "markup",
  svg: "markup",
  py: "python",
  rs: "rust",
  ts: "typescript",
  yml: "yaml",
  patch: "diff",
};

/** languageOf returns the grammar name for a fenced block's language, or "" when none is known. */
export function languageOf(lang: string): string {
  const l = lang.trim().toLowerCase();
  const name = aliases[l] ?? l;
  return name in loaders ? name : "";
}

const loading = new Map<string, Promise<void>>();

/** loadLanguage registers a grammar (once); it resolves when highlight can use it. */
export function loadLanguage(name: string): Promise<void> {
  let p = loading.get(name);
  if (p === undefined) {
    const load = loaders[name];
    if (load === undefined) return Promise.reject(new Error(`no grammar for ${name}`));
    p = load().then((m) => {
      refractor.register(m.default);
    });
    // A failed load (a chunk missing after an update) may be tried again.
    p.catch(() => loading.delete(name));
    loading.set(name, p);
  }
  return p;
}

/** highlighted returns code as refractor's tree, or null while its grammar is not loaded. */
export function highlighted(code: string, name: string): Root | null {
  if (name === "" || !refractor.registered(name)) return null;
  return refractor.highlight(code, name);
}
