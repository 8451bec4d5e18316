// Splitting `git diff` output into its files, for the "Compare with git
// HEAD" view that shows each file's diff on its own.

/** GitFile is one file's part of a git diff: its path and its diff, from its `diff --git` line. */
export interface GitFile {
  path: string;
  diff: string;
  /** binary: git says only that the contents differ. */
  binary: boolean;
}

/** splitGitDiff returns the files of a `git diff` output, in its order. */
export function splitGitDiff(text: string): GitFile[] {
  if (text === "") return [];
  const parts = text.split(/^(?=diff --git )/m).filter((p) => p.startsWith("diff --git "));
  return parts.map((diff) => ({ path: pathOf(diff), diff, binary: /^Binary files .* differ$/m.test(diff) }));
}

// pathOf reads the file's path from the ---/+++ lines where there are
// some (a deleted file's from ---), else from the diff --git line, whose
// two names are the same but for their a/ and b/.
function pathOf(diff: string): string {
  const lines = diff.split("\n");
  const plus = lines.find((l) => l.startsWith("+++ "));
  if (plus !== undefined && plus !== "+++ /dev/null") return plus.slice(4).replace(/^b\//, "");
  const minus = lines.find((l) => l.startsWith("--- "));
  if (minus !== undefined && minus !== "--- /dev/null") return minus.slice(4).replace(/^a\//, "");
  for (const l of lines) {
    const m = /^(?:rename|copy) to (.*)$/.exec(l);
    if (m?.[1] !== undefined) return m[1];
  }
  const head = (lines[0] ?? "").slice("diff --git ".length);
  // "a/P b/P": both halves are the same length.
  const half = (head.length - 1) / 2;
  if (Number.isInteger(half) && head.startsWith("a/") && head.slice(half + 1).startsWith("b/")) return head.slice(2, half);
  return head;
}
