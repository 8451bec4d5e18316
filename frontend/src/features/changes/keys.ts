// Keyboard review: the keys the review panel answers while the focus is
// in it (and not in a text field), and their words for the keyboard map.
import type { KeyboardEvent } from "react";

export type ReviewKey = "nextChange" | "previousChange" | "nextHunk" | "previousHunk" | "revert" | "undo" | "toggleDiff";

/** reviewKeys lists the keys in the order the keyboard map shows them. */
export const reviewKeys: { key: ReviewKey; keys: string; does: string }[] = [
  { key: "nextChange", keys: "J", does: "next change" },
  { key: "previousChange", keys: "K", does: "previous change" },
  { key: "nextHunk", keys: "N", does: "next hunk (opens the change's diff)" },
  { key: "previousHunk", keys: "P", does: "previous hunk" },
  { key: "revert", keys: "R", does: "revert the hunk (or the change) the focus is on, at once" },
  { key: "undo", keys: "U", does: "undo the last revert" },
  { key: "toggleDiff", keys: "O", does: "show or hide the change's diff" },
];

const byLetter: Record<string, ReviewKey> = { j: "nextChange", k: "previousChange", n: "nextHunk", p: "previousHunk", r: "revert", u: "undo", o: "toggleDiff" };

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

/** typing is true for a target that takes text: the key is the person's writing. */
export function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (target as HTMLInputElement).type;
  return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(type);
}
