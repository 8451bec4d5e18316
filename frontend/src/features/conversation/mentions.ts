// The composer's @-mentions, as pure functions: where a mention is being
// typed, which workspace entries match it (fuzzy), what picking one does
// to the text, and which picked mentions the text still holds.
import type { WorkspaceEntry } from "../../backend/gen/kernel";

/** MAX_SHOWN is the most matches the mention list shows. */
export const MAX_SHOWN = 50;

/** Typing is a mention being typed: "@" at start, the query after it up to the caret. */
export interface Typing {
  /** Index of the "@". */
  start: number;
  query: string;
}

/**
 * mentionAt finds the mention being typed at caret: an "@" at the start of
 * the text or after white space, followed by no white space up to the
 * caret. null when the caret is not in one (so "a@b.c" is no mention).
 */
export function mentionAt(text: string, caret: number): Typing | null {
  for (let i = caret - 1; i >= 0; i--) {
    const c = text[i]!;
    if (/\s/.test(c)) return null;
    if (c === "@") {
      if (i > 0 && !/\s/.test(text[i - 1]!)) return null;
      return { start: i, query: text.slice(i + 1, caret) };
    }
  }
  return null;
}

/**
 * fuzzyScore scores path against query (case-insensitive): null when the
 * query's characters are not all in the path in order, else a score, higher
 * for a better match: characters in a row, at the start of a name, in the
 * last name (the file's own), and shorter paths.
 */
export function fuzzyScore(query: string, path: string): number | null {
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  if (q === "") return -path.length;
  const base = p.lastIndexOf("/", p.length - 2) + 1;
  let score = 0;
  let at = -1;
  let run = 0;
  for (const ch of q) {
    const i = p.indexOf(ch, at + 1);
    if (i < 0) return null;
    run = i === at + 1 ? run + 1 : 0;
    score += 1 + run * 2;
    if (i === 0 || "/._-".includes(p[i - 1]!)) score += 3;
    if (i >= base) score += 2;
    at = i;
  }
  if (p.slice(base).startsWith(q)) score += 10;
  return score * 100 - path.length;
}

/** matchEntries returns the entries matching query, best first, at most MAX_SHOWN. */
export function matchEntries(entries: readonly WorkspaceEntry[], query: string): WorkspaceEntry[] {
  const scored: { e: WorkspaceEntry; s: number }[] = [];
  for (const e of entries) {
    const s = fuzzyScore(query, e.path);
    if (s !== null) scored.push({ e, s });
  }
  scored.sort((a, b) => b.s - a.s || (a.e.path < b.e.path ? -1 : 1));
  return scored.slice(0, MAX_SHOWN).map((x) => x.e);
}

/** token is how a picked entry stands in the text: "@" and its path ("/" after a folder's). */
export function token(e: WorkspaceEntry): string {
  return "@" + e.path + (e.dir === true ? "/" : "");
}

/**
 * pick replaces the mention being typed (from its "@" to the caret) with
 * the entry's token and a space; it returns the new text and caret.
 */
export function pick(text: string, typing: Typing, caret: number, e: WorkspaceEntry): { text: string; caret: number } {
  const t = token(e) + " ";
  const rest = text.slice(caret).replace(/^\S*/, ""); // what was typed after the caret, in the same word, goes
  const next = text.slice(0, typing.start) + t + rest.replace(/^ /, "");
  return { text: next, caret: typing.start + t.length };
}

/** holds says whether text still holds the token of e, as a word of its own. */
export function holds(text: string, e: WorkspaceEntry): boolean {
  const t = token(e);
  for (let i = text.indexOf(t); i >= 0; i = text.indexOf(t, i + 1)) {
    const before = i === 0 ? " " : text[i - 1]!;
    const after = text[i + t.length] ?? " ";
    if (/\s/.test(before) && /[\s.,;:!?)]/.test(after)) return true;
  }
  return false;
}

/** removeToken removes e's token (and a space after it) from text wherever it stands as a word. */
export function removeToken(text: string, e: WorkspaceEntry): string {
  const t = token(e).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(^|\\s)${t}(?=[\\s.,;:!?)]|$) ?`, "g"), "$1");
}

/** mentioned returns the paths of the picked entries the text still holds, each once, in pick order. */
export function mentioned(text: string, picked: readonly WorkspaceEntry[]): string[] {
  const out: string[] = [];
  for (const e of picked) if (holds(text, e) && !out.includes(e.path)) out.push(e.path);
  return out;
}
