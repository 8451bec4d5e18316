import type { Session } from "../../backend";

/**
 * matchSessions keeps the sessions whose title, folder (its own or its
 * project's) or isolated branch holds every word of
 * query, ignoring case; an empty query keeps all. The order is kept.
 */
export function matchSessions(sessions: readonly Session[], query: string): Session[] {
  const words = query.toLocaleLowerCase().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return [...sessions];
  return sessions.filter((s) => {
    const hay = `${s.title}\n${s.workdir}\n${s.projectId}\n${s.isolation?.branch ?? ""}`.toLocaleLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** titleOf is a session's title as shown: "Untitled" for a blank one. */
export function titleOf(s: Session): string {
  return s.title.trim() === "" ? "Untitled" : s.title;
}

/** folderName is the last element of a folder path, for a short label. */
export function folderName(path: string): string {
  const parts = path.split(/[/\\]+/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}
