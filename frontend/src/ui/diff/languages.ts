// Highlighting languages, loaded on demand: refractor/core holds no
// grammar, and each language is its own chunk, fetched the first time a
// file of that language is shown.
import { refractor } from "refractor/core";
import type { Syntax } from "refractor/core";

type Loader = () => Promise<{ default: Syntax }>;

// Literal import() calls, so the bundler makes one chunk per language.
const loaders: Record<string, Loader> = {
  bash: () => import("refractor/bash"),
  c: () => import("refractor/c"),
  cpp: () => import("refractor/cpp"),
  csharp: () => import("refractor/csharp"),
  css: () => import("refractor/css"),
  docker: () => import("refractor/docker"),
  go: () => import("refractor/go"),
  ini: () => import("refractor/ini"),
  java: () => import("refractor/java"),
  javascript: () => import("refractor/javascript"),
  json: () => import("refractor/json"),
  jsx: () => import("refractor/jsx"),
  kotlin: () => import("refractor/kotlin"),
  makefile: () => import("refractor/makefile"),
  markdown: () => import("refractor/markdown"),
  markup: () => import("refractor/markup"),
  php: () => import("refractor/php"),
  python: () => import("refractor/python"),
  ruby: () => import("refractor/ruby"),
  rust: () => import("refractor/rust"),
  scss: () => import("refractor/scss"),
  sql: () => import("refractor/sql"),
  swift: () => import("refractor/swift"),
  toml: () => import("refractor/toml"),
  tsx: () => import("refractor/tsx"),
  typescript: () => import("refractor/typescript"),
  yaml: () => import("refractor/yaml"),
};

const byExtension: Record<string, string> = {
  sh: "bash", bash: "bash", zsh: "bash",
  c: "c", h: "c",
  cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp",
  cs: "csharp",
  css: "css",
  go: "go",
  ini: "ini", cfg: "ini",
  java: "java",
  js: "javascript", mjs: "javascript", cjs: "javascript",
  json: "json",
  jsx: "jsx",
  kt: "kotlin", kts: "kotlin",
  md: "markdown", markdown: "markdown",
  html: "markup", htm: "markup", xml: "markup", svg: "markup",
  php: "php",
  py: "python",
  rb: "ruby",
  rs: "rust",
  scss: "scss",
  sql: "sql",
  swift: "swift",
  toml: "toml",
  tsx: "tsx",
  ts: "typescript", mts: "typescript", cts: "typescript",
  yaml: "yaml", yml: "yaml",
};

const byName: Record<string, string> = {
  dockerfile: "docker",
  makefile: "makefile",
  gnumakefile: "makefile",
};

/** languageOf returns the highlighting language of a path, or "" when none is known. */
export function languageOf(path: string): string {
  const base = (path.split(/[\\/]/).pop() ?? "").toLowerCase();
  const named = byName[base];
  if (named !== undefined) return named;
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return "";
  return byExtension[base.slice(dot + 1)] ?? "";
}

const loading = new Map<string, Promise<boolean>>();

/**
 * loadLanguage registers a language with refractor, fetching its grammar
 * the first time; it resolves true when the language can be highlighted,
 * false when it is unknown or could not be fetched (the code is then shown
 * plain).
 */
export function loadLanguage(lang: string): Promise<boolean> {
  if (lang === "") return Promise.resolve(false);
  if (refractor.registered(lang)) return Promise.resolve(true);
  const load = loaders[lang];
  if (load === undefined) return Promise.resolve(false);
  let p = loading.get(lang);
  if (p === undefined) {
    p = load().then(
      (m) => {
        refractor.register(m.default);
        return true;
      },
      () => {
        loading.delete(lang);
        return false;
      },
    );
    loading.set(lang, p);
  }
  return p;
}

/** isLoaded says whether lang is registered (so highlighting needs no fetch). */
export function isLoaded(lang: string): boolean {
  return lang !== "" && refractor.registered(lang);
}

/**
 * highlighter is react-diff-view's refractor, adapted to refractor 5: its
 * highlight returns a root node, and react-diff-view wants the children.
 */
export const highlighter = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  highlight: (code: string, lang: string) => refractor.highlight(code, lang).children as any,
};
