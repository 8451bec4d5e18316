// A group of consecutive file lookups (read, ls, glob, grep) of one step,
// shown as one card: what they did in words and how many failed.
import { lookupTools, type ToolCard } from "./reducer";

export { lookupTools };

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** groupLabel says what a group's calls do: "Read 3 files", "Read 2 files, searched once". */
export function groupLabel(cards: ToolCard[]): string {
  const n = (names: string[]) => cards.filter((c) => names.includes(c.name)).length;
  const read = n(["read"]);
  const searched = n(["glob", "grep"]);
  const listed = n(["ls"]);
  const parts: string[] = [];
  if (read > 0) parts.push(`read ${plural(read, "file", "files")}`);
  if (searched > 0) parts.push(`searched ${searched === 1 ? "once" : `${searched} times`}`);
  if (listed > 0) parts.push(`listed ${plural(listed, "folder", "folders")}`);
  const s = parts.join(", ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** failed says whether a call ended without doing what it was asked. */
export function failed(c: ToolCard): boolean {
  return c.status === "error" || c.status === "cancelled" || c.status === "interrupted" || c.result?.isError === true;
}

/** GroupState counts a group's calls that have not ended, that wait for a person, and that failed. */
export interface GroupState {
  going: number;
  waiting: number;
  failed: number;
}

export function groupState(cards: ToolCard[]): GroupState {
  let going = 0;
  let waiting = 0;
  let bad = 0;
  for (const c of cards) {
    if (c.status === "queued" || c.status === "running" || c.status === "waiting") going++;
    if (c.status === "waiting") waiting++;
    if (failed(c)) bad++;
  }
  return { going, waiting, failed: bad };
}
