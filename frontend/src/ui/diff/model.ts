// The diff model: the backend's unified diff parsed into hunks, kept in
// the diff's order (so "hunk 2" is the kernel's hunk 2), and the unchanged
// lines between them.
import { parseDiff, textLinesToHunk, type ChangeData, type HunkData, type FileData } from "react-diff-view";

/**
 * withGitHeader gives a unified diff the `diff --git a/P b/P` line
 * react-diff-view's parser needs to keep the path. The backend writes
 * `--- a/P` / `+++ b/P` inside the workspace, the absolute path outside it,
 * and /dev/null for a side that does not exist.
 */
export function withGitHeader(diff: string): string {
  if (diff.startsWith("diff --git ")) return diff;
  const lines = diff.split("\n", 2);
  const [minus, plus] = lines;
  if (minus === undefined || plus === undefined || !minus.startsWith("--- ") || !plus.startsWith("+++ ")) {
    return diff;
  }
  const oldName = nameOf(minus.slice(4));
  const newName = nameOf(plus.slice(4));
  const name = newName === "/dev/null" ? oldName : newName;
  const rel = name.replace(/^[ab]\//, "");
  return `diff --git a/${rel.replace(/^\//, "")} b/${rel.replace(/^\//, "")}\n${diff}`;
}

// nameOf drops a tab-separated time stamp, as diff -u writes one.
function nameOf(s: string): string {
  const tab = s.indexOf("\t");
  return tab < 0 ? s : s.slice(0, tab);
}

/** ParsedDiff is a file's diff, or null when the text is no unified diff (a note such as "Binary files ... differ"). */
export function parse(diff: string): FileData | null {
  if (!diff.includes("\n@@ ") && !diff.startsWith("@@ ")) return null;
  try {
    const files = parseDiff(withGitHeader(diff));
    const f = files[0];
    if (f === undefined || f.hunks.length === 0) return null;
    return f;
  } catch {
    return null;
  }
}

/** hunkLines is the lines (of the after side, from 1, both included) a hunk's comment is on. */
export function hunkLines(h: HunkData): { start: number; end: number } {
  const start = Math.max(h.newStart, 1);
  return { start, end: Math.max(start, h.newStart + h.newLines - 1) };
}

/** hunkRange is hunkLines of hunk n (from 1) of a diff, or null when it has no such hunk. */
export function hunkRange(diff: string, n: number): { start: number; end: number } | null {
  const h = parse(diff)?.hunks[n - 1];
  return h === undefined ? null : hunkLines(h);
}

/**
 * grouped returns the hunk with each run of changed lines (between
 * unchanged ones) in reading order: its removed lines first, then its added
 * lines, each side in its own order. The unified view shows this, so a
 * block reads as "this went, this came" and not one line of each by turns.
 */
export function grouped(h: HunkData): HunkData {
  return { ...h, changes: rearrange(h.changes, (del, ins) => [...del, ...ins]) };
}

/**
 * zipped returns the hunk with the removed and added lines of each run in
 * turns (first removed, first added, second removed, ...): the split view
 * shows the lines of a turn side by side, and pairs only a removed line
 * directly followed by an added one.
 */
export function zipped(h: HunkData): HunkData {
  return {
    ...h,
    changes: rearrange(h.changes, (del, ins) => {
      const out: ChangeData[] = [];
      for (let i = 0; i < Math.max(del.length, ins.length); i++) {
        if (i < del.length) out.push(del[i]!);
        if (i < ins.length) out.push(ins[i]!);
      }
      return out;
    }),
  };
}

// rearrange orders each run of changed lines with order, given the run's
// removed and added lines; unchanged lines stay where they are.
function rearrange(changes: ChangeData[], order: (del: ChangeData[], ins: ChangeData[]) => ChangeData[]): ChangeData[] {
  const out: ChangeData[] = [];
  let del: ChangeData[] = [];
  let ins: ChangeData[] = [];
  const flush = () => {
    if (del.length + ins.length > 0) out.push(...order(del, ins));
    del = [];
    ins = [];
  };
  for (const c of changes) {
    if (c.type === "delete") del.push(c);
    else if (c.type === "insert") ins.push(c);
    else {
      flush();
      out.push(c);
    }
  }
  flush();
  return out;
}

/** Range is the lines a hunk covers on one side: first line and the line after it (1-based). */
interface Range {
  first: number;
  next: number;
}

function range(start: number, count: number): Range {
  // "@@ -5,0 +6,2 @@" inserts after line 5: no old line, the next is 6.
  return count === 0 ? { first: start + 1, next: start + 1 } : { first: start, next: start + count };
}

/** sides returns the old and new lines a hunk covers, counted from its changes. */
export function sides(h: HunkData): { old: Range; new: Range } {
  let olds = 0;
  let news = 0;
  for (const c of h.changes) {
    if (c.type !== "insert") olds++;
    if (c.type !== "delete") news++;
  }
  return { old: range(h.oldStart, olds), new: range(h.newStart, news) };
}

/**
 * Gap is the unchanged lines before hunk `before` (0-based index into the
 * hunks; hunks.length for the lines after the last one): old lines
 * [oldFirst, oldFirst+count), the new side starting at newFirst.
 */
export interface Gap {
  before: number;
  oldFirst: number;
  newFirst: number;
  count: number;
}

/** gaps returns the unchanged regions between, before and after the hunks; oldLines is the old source's line count, or -1. */
export function gaps(hunks: HunkData[], oldLines: number): Gap[] {
  const out: Gap[] = [];
  let oldNext = 1;
  let newNext = 1;
  hunks.forEach((h, i) => {
    const s = sides(h);
    const count = s.old.first - oldNext;
    if (count > 0) out.push({ before: i, oldFirst: oldNext, newFirst: newNext, count });
    oldNext = s.old.next;
    newNext = s.new.next;
  });
  // The lines after the last hunk are known only with the old content
  // (without it there may be none: nothing is said).
  if (hunks.length > 0 && oldLines >= 0) {
    const count = oldLines - oldNext + 1;
    if (count > 0) out.push({ before: hunks.length, oldFirst: oldNext, newFirst: newNext, count });
  }
  return out;
}

/** sourceLines splits a file's content into lines as a diff counts them (no empty line after a final newline). */
export function sourceLines(source: string): string[] {
  if (source === "") return [];
  const lines = source.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** gapHunk is a gap's lines as a hunk of unchanged lines, or null when the gap is empty. */
export function gapHunk(g: Gap, lines: string[]): HunkData | null {
  if (g.count <= 0) return null;
  return textLinesToHunk(lines.slice(g.oldFirst - 1, g.oldFirst - 1 + g.count), g.oldFirst, g.newFirst);
}
