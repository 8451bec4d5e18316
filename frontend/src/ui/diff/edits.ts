// Word marks within changed lines. A removed line and an added line are
// paired only when they are alike (most of their text in common); only a
// pair gets marks, and only on the words that differ. A line rewritten
// from scratch gets none: underlining every word of it says nothing the
// line's colour does not already say.
import { pickRanges, type ChangeData, type HunkData, type RangeTokenNode, type TokenizeEnhancer } from "react-diff-view";

/**
 * SIMILAR is the least similarity (see similarity) at which a removed and
 * an added line count as one line changed a little.
 */
export const SIMILAR = 0.5;

// Past this many tokens a line is compared whole (no marks): the token
// LCS is quadratic, and a line that long is no "little change" to read.
const MAX_TOKENS = 400;

/** words splits a line into words, runs of spaces and single other characters; their concatenation is the line. */
export function words(line: string): string[] {
  return line.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? [];
}

/** Comparison is two lines' token alignment: which tokens of each side are common to both. */
interface Comparison {
  a: string[];
  b: string[];
  commonA: boolean[];
  commonB: boolean[];
  similarity: number;
}

// compare aligns two lines by their longest common subsequence of tokens.
function compare(x: string, y: string): Comparison {
  const a = words(x);
  const b = words(y);
  const commonA = a.map(() => false);
  const commonB = b.map(() => false);
  if (a.length === 0 || b.length === 0 || a.length > MAX_TOKENS || b.length > MAX_TOKENS) {
    return { a, b, commonA, commonB, similarity: x === y ? 1 : 0 };
  }
  // table[i][j] is the LCS length of a[i:] and b[j:], in characters of
  // non-space tokens (so a shared run of spaces makes no pair alike).
  const weight = (t: string) => (/^\s+$/.test(t) ? 0 : t.length);
  const w = b.length + 1;
  const table = new Float64Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * w + j] =
        a[i] === b[j]
          ? table[(i + 1) * w + j + 1]! + weight(a[i]!) + 1e-6
          : Math.max(table[(i + 1) * w + j]!, table[i * w + j + 1]!);
    }
  }
  let common = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      commonA[i] = true;
      commonB[j] = true;
      common += weight(a[i]!);
      i++;
      j++;
    } else if (table[(i + 1) * w + j]! >= table[i * w + j + 1]!) i++;
    else j++;
  }
  const total = a.reduce((n, t) => n + weight(t), 0) + b.reduce((n, t) => n + weight(t), 0);
  return { a, b, commonA, commonB, similarity: total === 0 ? (x === y ? 1 : 0) : (2 * common) / total };
}

/**
 * similarity is how much two lines have in common, from 0 (nothing) to 1
 * (the same words): twice the characters of the words common to both, in
 * order, over the characters of both; spaces do not count.
 */
export function similarity(x: string, y: string): number {
  return compare(x, y).similarity;
}

/** Span is a run of characters of a line: its start and length. */
export interface Span {
  start: number;
  length: number;
}

/**
 * lineEdits returns the spans that differ between a removed line x and an
 * added line y, or null when the lines are not alike enough to pair (no
 * marks at all then).
 */
export function lineEdits(x: string, y: string): { old: Span[]; new: Span[] } | null {
  const c = compare(x, y);
  if (c.similarity < SIMILAR) return null;
  return { old: spans(c.a, c.commonA), new: spans(c.b, c.commonB) };
}

// spans turns the tokens not in common into character spans: a run of
// spaces between two changed words joins them into one mark.
function spans(tokens: string[], common: boolean[]): Span[] {
  const space = tokens.map((t) => /^\s+$/.test(t));
  const changed = tokens.map((_, i) => !space[i] && !common[i]);
  const marked = tokens.map((_, i) => {
    if (!space[i]) return changed[i]!;
    let l = i - 1;
    while (l >= 0 && space[l]) l--;
    let r = i + 1;
    while (r < tokens.length && space[r]) r++;
    return l >= 0 && r < tokens.length && changed[l]! && changed[r]!;
  });
  const out: Span[] = [];
  let at = 0;
  tokens.forEach((t, i) => {
    if (marked[i]) {
      const last = out[out.length - 1];
      if (last !== undefined && last.start + last.length === at) last.length += t.length;
      else out.push({ start: at, length: t.length });
    }
    at += t.length;
  });
  return out;
}

/** Pair is a removed line and the added line it became, as changes of one block. */
export interface Pair {
  removed: ChangeData;
  added: ChangeData;
}

// MAX_PAIRINGS bounds the line comparisons of one block (removed times
// added lines): a larger block is a rewrite, shown without word marks.
const MAX_PAIRINGS = 2500;

/**
 * pairLines pairs removed lines of a block with the added lines they
 * became: the pairs never cross (a later removed line pairs with a later
 * added line), each pair is alike (similarity at least SIMILAR), and of
 * all such pairings the one with the most similarity in sum is taken, so
 * a line pairs with its closest match and not with the first one alike.
 */
export function pairLines(removed: ChangeData[], added: ChangeData[]): Pair[] {
  const n = removed.length;
  const m = added.length;
  if (n === 0 || m === 0 || n * m > MAX_PAIRINGS) return [];
  const sim = removed.map((r) => added.map((a) => similarity(r.content, a.content)));
  // best[i][j] is the most similarity pairing removed[i:] with added[j:].
  const w = m + 1;
  const best = new Float64Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const s = sim[i]![j]!;
      const pair = s >= SIMILAR ? s + best[(i + 1) * w + j + 1]! : -1;
      best[i * w + j] = Math.max(pair, best[(i + 1) * w + j]!, best[i * w + j + 1]!);
    }
  }
  const out: Pair[] = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    const s = sim[i]![j]!;
    if (s >= SIMILAR && best[i * w + j] === s + best[(i + 1) * w + j + 1]!) {
      out.push({ removed: removed[i]!, added: added[j]! });
      i++;
      j++;
    } else if (best[i * w + j] === best[(i + 1) * w + j]) i++;
    else j++;
  }
  return out;
}

/** blocks returns a hunk's runs of changed lines (removed and added, between unchanged lines). */
export function blocks(h: HunkData): ChangeData[][] {
  const out: ChangeData[][] = [];
  let cur: ChangeData[] = [];
  for (const c of h.changes) {
    if (c.type === "normal") {
      if (cur.length > 0) out.push(cur);
      cur = [];
    } else cur.push(c);
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/**
 * markSimilarEdits is a tokenize enhancer marking, with type "edit", the
 * differing words of each pair of alike lines in the hunks.
 */
export function markSimilarEdits(hunks: HunkData[]): TokenizeEnhancer {
  const olds: RangeTokenNode[] = [];
  const news: RangeTokenNode[] = [];
  for (const h of hunks) {
    for (const b of blocks(h)) {
      const removed = b.filter((c) => c.type === "delete");
      const added = b.filter((c) => c.type === "insert");
      for (const p of pairLines(removed, added)) {
        const e = lineEdits(p.removed.content, p.added.content);
        if (e === null || p.removed.type !== "delete" || p.added.type !== "insert") continue;
        const oldLine = p.removed.lineNumber;
        const newLine = p.added.lineNumber;
        for (const s of e.old) olds.push({ type: "edit", lineNumber: oldLine, start: s.start, length: s.length });
        for (const s of e.new) news.push({ type: "edit", lineNumber: newLine, start: s.start, length: s.length });
      }
    }
  }
  return pickRanges(olds, news);
}
