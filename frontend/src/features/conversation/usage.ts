// The session's token use, from the usage its runs and steps recorded
// (run.end, step.end): what the composer's meter shows.
import type { Turn } from "./reducer";

/** SessionUsage sums a session's recorded token counts. */
export interface SessionUsage {
  prompt: number;
  completion: number;
  total: number;
  /** The prompt tokens of the latest step that recorded any: how full the model's context was last. */
  context: number;
}

/**
 * usageOf sums the usage of every turn (sub-agents' too: their tokens are
 * spent as well): an ended turn's run.end usage, a running one's steps'.
 * Turns come in the order they started (seq).
 */
export function usageOf(turns: Record<string, Turn>): SessionUsage {
  const u: SessionUsage = { prompt: 0, completion: 0, total: 0, context: 0 };
  let lastSeq = -1;
  for (const t of Object.values(turns)) {
    const steps = t.steps.filter((s) => s.usage !== null);
    const sum = t.usage ?? steps.reduce((a, s) => ({ promptTokens: a.promptTokens + s.usage!.promptTokens, completionTokens: a.completionTokens + s.usage!.completionTokens, totalTokens: a.totalTokens + s.usage!.totalTokens }), { promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    u.prompt += sum.promptTokens;
    u.completion += sum.completionTokens;
    u.total += sum.totalTokens || sum.promptTokens + sum.completionTokens;
    const last = steps[steps.length - 1];
    if (t.parentCallId === "" && last !== undefined && last.usage!.promptTokens > 0 && t.seq > lastSeq) {
      lastSeq = t.seq;
      u.context = last.usage!.promptTokens;
    }
  }
  return u;
}

/**
 * modelsUsed lists the "provider/model" of every turn that recorded usage
 * (sub-agents' too), in the order first used: the meter says when the
 * session's tokens were spent on other models than the one it prices.
 */
export function modelsUsed(turns: Record<string, Turn>): string[] {
  const seen: { key: string; seq: number }[] = [];
  for (const t of Object.values(turns)) {
    const used = t.usage !== null ? t.usage.promptTokens + t.usage.completionTokens > 0 : t.steps.some((s) => s.usage !== null && s.usage.promptTokens + s.usage.completionTokens > 0);
    if (!used) continue;
    const key = `${t.provider}/${t.model}`;
    const at = seen.find((m) => m.key === key);
    if (at === undefined) seen.push({ key, seq: t.seq });
    else at.seq = Math.min(at.seq, t.seq);
  }
  return seen.sort((a, b) => a.seq - b.seq).map((m) => m.key);
}

/** tokens words a token count short: 950, 12.3k, 1.2M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}
