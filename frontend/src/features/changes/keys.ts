// Keyboard review: the keys the review panel answers while the focus is
// in it (and not in a text field), and their words for the keyboard map.
import type { KeyboardEvent } from "react";
import { typing } from "../../ui/typing";

export type ReviewKey =
  | "nextChange"
  | "previousChange"
  | "nextHunk"
  | "previousHunk"
  | "revert"
  | "undo"
  | "comment"
  | "markReviewed"
  | "toggleDiff";

/** reviewKeys lists the keys in the order the keyboard map shows them. */
export const reviewKeys: { key: ReviewKey; keys: string; does: string }[] = [
  { key: "nextChange", keys: "J", does: "next change" },
  { key: "previousChange", keys: "K", does: "previous change" },
  { key: "nextHunk", keys: "N", does: "next hunk (opens the change's diff)" },
  { key: "previousHunk", keys: "P", does: "previous hunk" },
  { key: "revert", keys: "R", does: "revert the hunk (or the change) the focus is on, at once" },
  { key: "undo", keys: "U", does: "undo the last revert" },
  { key: "comment", keys: "C", does: "comment on the hunk the focus is on (the first hunk of a change)" },
  { key: "markReviewed", keys: "M", does: "mark the change as reviewed (again: as not reviewed)" },
  { key: "toggleDiff", keys: "O", does: "show or hide the change's diff" },
];

const byLetter: Record<string, ReviewKey> = {
  j: "nextChange",
  k: "previousChange",
  n: "nextHunk",
  p: "previousHunk",
  r: "revert",
  u: "undo",
  c: "comment",
  m: "markReviewed",
  o: "toggleDiff",
};

/**
 * reviewKeyOf names the review command a key press asks for, or null: a
 * plain letter, never while the person types in a field or holds a
 * modifier (those keys belong to the window's shortcuts).
 */
export function reviewKeyOf(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "target">): ReviewKey | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (typing(e.target)) return null;
  return byLetter[e.key] ?? null;
}
