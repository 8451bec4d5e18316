// Review scopes and "reviewed" marks: which of the session's changes a view
// lists ("This turn", "Session", "To review") and how many wait for review.
// Pure functions of the changes state (./reducer.ts), which learns the marks
// from change.reviewed events, so every window shows the same and a reload
// folds them back; and the hooks the panel uses.
import { useMemo } from "react";
import type { ChangesState, Group } from "./reducer";
import { useSession } from "../session/hooks";
import { useStoredText } from "../../ui/stored";

/** Scope is which changes the review panel lists. */
export type Scope = "turn" | "session" | "review";

/** scopes are the views in the order the panel offers them, with their names. */
export const scopes: readonly { scope: Scope; label: string }[] = [
  { scope: "turn", label: "This turn" },
  { scope: "session", label: "Session" },
  { scope: "review", label: "To review" },
];

/** scopeKey is the localStorage key the chosen view is kept under. */
export const scopeKey = "foya.review.scope";

/**
 * waits says whether change id waits for review: it is a change the
 * session knows, not a revert (a person made those), and not marked as
 * reviewed. The kernel counts the same (Session.toReview).
 */
export function waits(s: ChangesState, id: string): boolean {
  const c = s.byId[id];
  return c !== undefined && c.revertOf === "" && c.op !== "revert" && s.reviewed[id] !== true;
}

/**
 * toReviewCount is how many of the session's changes wait for review,
 * worked out once per state of the changes (a view's selector asks at
 * every update of the session's store, a streamed token's too).
 */
export function toReviewCount(s: ChangesState): number {
  const known = counted.get(s);
  if (known !== undefined) return known;
  let n = 0;
  for (const id of Object.keys(s.byId)) if (waits(s, id)) n++;
  counted.set(s, n);
  return n;
}

const counted = new WeakMap<ChangesState, number>();

/**
 * scopedGroups returns the groups a view lists, newest first: every group
 * ("session"), the latest turn's ("turn"; none before the first turn or
 * when it changed no file), or the changes that wait for review, a group
 * left out when none of its changes does ("review").
 */
export function scopedGroups(s: ChangesState, scope: Scope): Group[] {
  const newest = [...s.groups].reverse();
  switch (scope) {
    case "session":
      return newest;
    case "turn":
      return newest.filter((g) => g.runId !== "" && g.runId === s.lastTurn);
    case "review": {
      const out: Group[] = [];
      for (const g of newest) {
        const changes = g.changes.filter((id) => waits(s, id));
        if (changes.length > 0) out.push(changes.length === g.changes.length ? g : { ...g, changes });
      }
      return out;
    }
  }
}

/** shownToReview lists the changes of groups that wait for review: what "Mark all shown as reviewed" marks. */
export function shownToReview(s: ChangesState, groups: readonly Group[]): string[] {
  return groups.flatMap((g) => g.changes.filter((id) => waits(s, id)));
}

/** pathChanges counts, by path, the session's changes that are not reverts, and those of them that wait for review. */
export function pathChanges(s: ChangesState): Map<string, { changes: number; waiting: number }> {
  const out = new Map<string, { changes: number; waiting: number }>();
  for (const c of Object.values(s.byId)) {
    if (c.revertOf !== "" || c.op === "revert") continue;
    const n = out.get(c.path) ?? { changes: 0, waiting: 0 };
    out.set(c.path, { changes: n.changes + 1, waiting: n.waiting + (s.reviewed[c.id] === true ? 0 : 1) });
  }
  return out;
}

/** parseScope reads a kept view; anything else is the default, "session". */
export function parseScope(raw: string | null): Scope {
  return raw === "turn" || raw === "review" || raw === "session" ? raw : "session";
}

/** useScope is the chosen view, kept in localStorage so it holds across reloads. */
export function useScope(): [Scope, (s: Scope) => void] {
  const [raw, set] = useStoredText(scopeKey);
  return [parseScope(raw), set];
}

/** useToReview is how many of the open session's changes wait for review. */
export function useToReview(): number {
  return useSession((s) => toReviewCount(s.changes));
}

/** useScopedGroups is the groups view scope lists, newest first. */
export function useScopedGroups(scope: Scope): Group[] {
  const changes = useSession((s) => s.changes);
  return useMemo(() => scopedGroups(changes, scope), [changes, scope]);
}
