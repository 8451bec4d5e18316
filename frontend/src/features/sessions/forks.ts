// Forks in the session list: each shown as a branch of the session it was
// forked from (Session.forkedFrom), with where it was forked.
import type { Session } from "../../backend";
import { titleOf } from "./search";

/** Branch is a session as the list shows it: how deep a fork it is, and its parent when listed. */
export interface Branch {
  session: Session;
  /** depth is 0 for a session shown at the top level, 1 for a fork of it, and so on. */
  depth: number;
  /** parent is the listed session it was forked from; null when it is no fork or its parent is not listed. */
  parent: Session | null;
}

/**
 * branches orders sessions as a tree of forks: each session in the given
 * order (most recently updated first), each followed by its forks (in the
 * same order, each followed by its own). A fork whose parent is not in
 * the list (deleted, or left out by a search) stands at the top level.
 */
export function branches(list: readonly Session[]): Branch[] {
  const listed = new Map(list.map((s) => [s.id, s]));
  const children = new Map<string, Session[]>();
  for (const s of list) {
    const p = s.forkedFrom ?? "";
    if (p !== "" && p !== s.id && listed.has(p)) children.set(p, [...(children.get(p) ?? []), s]);
  }
  const out: Branch[] = [];
  const seen = new Set<string>();
  const walk = (s: Session, depth: number, parent: Session | null) => {
    if (seen.has(s.id)) return;
    seen.add(s.id);
    out.push({ session: s, depth, parent });
    for (const c of children.get(s.id) ?? []) walk(c, depth + 1, s);
  };
  for (const s of list) {
    const p = s.forkedFrom ?? "";
    if (p === "" || p === s.id || !listed.has(p)) walk(s, 0, null);
  }
  // A loop of forks (which the kernel never makes) is still listed.
  for (const s of list) walk(s, 0, null);
  return out;
}

/**
 * forkLabel says where a fork came from ("" for a session that is no
 * fork): "forked from “Title” at prompt 2", "forked from “Title” (whole)",
 * or from a deleted session when its parent is not known.
 */
export function forkLabel(s: Session, parent: Session | null | undefined): string {
  const from = s.forkedFrom ?? "";
  if (from === "") return "";
  const name = parent != null ? `“${titleOf(parent)}”` : "a deleted session";
  return (s.forkedAt ?? 0) > 0 ? `forked from ${name} at prompt ${s.forkedAt}` : `forked from ${name} (its whole conversation)`;
}
