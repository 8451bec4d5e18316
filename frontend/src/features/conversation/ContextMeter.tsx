// The composer's token meter: how full the model's context was at the last
// request, out of the model's context window (ContextWindow: what the
// server says, else the profile's setting, else a guess, which the meter
// says it is), with the session's token counts and where the window comes
// from in its tooltip. Before any usage it shows the window alone; when the
// window cannot be asked (the kernel is not open), the tokens used alone.
import { useMemo } from "react";
import { useApi } from "../../backend/context";
import type { ContextWindow } from "../../backend/gen/profiles";
import { useSession } from "../session/hooks";
import { useLoad } from "../useLoad";
import { tokens, usageOf, type SessionUsage } from "./usage";

const fmt = (n: number) => n.toLocaleString("en-US");

/** windowText says a window and where it comes from: "32,768 tokens, from Ollama's /api/show (…)", "8,192 tokens (a guess: …)". */
export function windowText(w: ContextWindow): string {
  const n = `${fmt(w.window)} tokens`;
  switch (w.source) {
    case "default":
      return `${n} (${w.detail})`;
    case "setting":
      return `${n}, from ${w.detail}`;
    default:
      return `${n}, ${w.detail}`;
  }
}

/** meterLabel is the meter's text: "12.3k / 32.8k", "~8.2k" for a guessed window, "12.3k tokens" without one; "" for nothing to show. */
export function meterLabel(u: SessionUsage, w: ContextWindow | undefined): string {
  if (w === undefined || w.window <= 0) return u.total > 0 ? `${tokens(u.total)} tokens` : "";
  const win = (w.source === "default" ? "~" : "") + tokens(w.window);
  return u.context > 0 ? `${tokens(u.context)} / ${win}` : `${win} context`;
}

/** meterTitle is the meter's tooltip: the window and where it comes from, then the session's token counts. */
export function meterTitle(u: SessionUsage, w: ContextWindow | undefined): string {
  const parts: string[] = [];
  if (w !== undefined && w.window > 0) {
    parts.push(`Context window of ${w.model !== "" ? w.model : "the model"}: ${windowText(w)}.`);
    if (w.outputLimit > 0) parts.push(`Answers up to ${fmt(w.outputLimit)} tokens.`);
    if (w.warning !== undefined && w.warning !== "") parts.push(`Note: ${w.warning}.`);
  }
  if (u.total > 0) parts.push(`Tokens used in this session: ${fmt(u.prompt)} prompt, ${fmt(u.completion)} completion, ${fmt(u.total)} in all.`);
  if (u.context > 0) parts.push(`The last model request held ${fmt(u.context)} prompt tokens.`);
  return parts.join(" ");
}

/** ContextMeter shows the open session's context use against its model's window (see the file's comment). */
export function ContextMeter({ sessionId, running }: { sessionId: string; running: boolean }) {
  const api = useApi();
  const turns = useSession((s) => s.conversation.turns);
  const entries = useSession((s) => s.conversation.entries);
  const u = useMemo(() => usageOf(turns), [turns]);
  // The window is asked again when the session's model changes and after
  // each run (a session's first run gives it the default profile).
  const chosen = useMemo(() => {
    let chosen = "";
    for (const e of entries) if (e.kind === "model") chosen = `${e.provider}/${e.model}`;
    return chosen;
  }, [entries]);
  const loaded = useLoad(() => api.ContextWindow(sessionId), [api, sessionId, running, chosen], { keep: true });
  const w = loaded.state.value;
  const label = meterLabel(u, w);
  if (label === "") return null;
  const full = w !== undefined && w.window > 0 && u.context > 0 ? Math.min(u.context / w.window, 1) : 0;
  return (
    <span className={full >= 0.9 ? "convo-meter convo-meter-full" : "convo-meter"} title={meterTitle(u, w)} aria-label={`Context: ${meterTitle(u, w)}`}>
      {label}
    </span>
  );
}
