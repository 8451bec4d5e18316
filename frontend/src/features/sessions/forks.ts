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

/** Grouped is a branch of the list with the project folder it is listed under. */
export interface Grouped extends Branch {
  /** project is the folder the session was made for (Session.projectId; its workdir when that is empty). */
  project: string;
  /** first says the session is the first listed of its project: the project's heading goes above it. */
  first: boolean;
}

/** projectOf is the folder a session belongs to: its projectId (an isolated session's folder), else its workdir. */
export function projectOf(s: Session): string {
  return s.projectId !== "" ? s.projectId : s.workdir;
}

/**
 * byProject groups sessions by their project folder, the project with the
 * most recently updated session first (list is newest first), and orders
 * each group as a tree of forks (branches).
 */
export function byProject(list: readonly Session[]): Grouped[] {
  const groups = new Map<string, Session[]>();
  for (const s of list) {
    const p = projectOf(s);
    groups.set(p, [...(groups.get(p) ?? []), s]);
  }
  const out: Grouped[] = [];
  for (const [project, sessions] of groups) {
    branches(sessions).forEach((b, i) => out.push({ ...b, project, first: i === 0 }));
  }
  return out;
}

/**
 * isolationLabel says where an isolated session works, short, for the
 * list: its branch, "copy", or with "(discarded)" once its copy is gone;
 * "" for a session that works in its folder.
 */
export function isolationLabel(s: Session): string {
  const i = s.isolation;
  if (i === undefined || i === null) return "";
  const what = i.kind === "worktree" && (i.branch ?? "") !== "" ? i.branch! : "isolated copy";
  return (i.discardedAt ?? "") !== "" ? `${what} (discarded)` : what;
}
