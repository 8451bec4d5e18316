// The composer's token meter: how full the model's context was at the last
// request, out of the model's context window (ContextWindow: what the
// server says, else the profile's setting, else a guess, which the meter
// says it is), with the session's token counts and where the window comes
// from in its tooltip. Before any usage it shows the window alone; when the
// window cannot be asked (the kernel is not open), the tokens used alone.
// When the profile has prices (ContextWindow carries them), the session's
// cost at them follows: prompt tokens at the input price, completion
// tokens at the output price. Without prices no cost is shown. Clicked, it
// opens a popover with the same text and "Compact now", which has the model
// summarise the oldest messages (docs/ui.md, "Compaction"); Escape or a
// click outside closes it (Escape gives the focus back to the meter).
import { useEffect, useMemo, useRef, useState } from "react";
import { useApi } from "../../backend/context";
import type { ContextWindow } from "../../backend/gen/profiles";
import { useSession } from "../session/hooks";
import { useLoad } from "../useLoad";
import { Facts, type Fact } from "../../ui/Facts";
import { modelsUsed, tokens, usageOf, type SessionUsage } from "./usage";

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

/** priced says whether a window carries its profile's prices (both set: the kernel keeps them so). */
function priced(w: ContextWindow | undefined): w is ContextWindow & { inputPrice: number; outputPrice: number } {
  return w !== undefined && (w.inputPrice ?? 0) > 0 && (w.outputPrice ?? 0) > 0;
}

/** sessionCost is the session's cost in US dollars at the window's prices; null without prices or usage. */
export function sessionCost(u: SessionUsage, w: ContextWindow | undefined): number | null {
  if (!priced(w) || u.prompt + u.completion === 0) return null;
  return (u.prompt * w.inputPrice + u.completion * w.outputPrice) / 1_000_000;
}

/** dollars words a cost: "$0.042", "$0.0031", "$12.34", "<$0.0001". */
export function dollars(usd: number): string {
  if (usd >= 1) return `$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (usd >= 0.01) return `$${usd.toFixed(3)}`;
  if (usd >= 0.0001) return `$${usd.toFixed(4)}`;
  return "<$0.0001";
}

/** perMillion words a price: "$3/M", "$0.15/M". */
const perMillion = (p: number) => `$${p.toLocaleString("en-US", { maximumFractionDigits: 4 })}/M`;

/** costText is the tooltip's sentence on the cost; "" without prices or usage. used lists the session's "provider/model"s (modelsUsed). */
export function costText(u: SessionUsage, w: ContextWindow | undefined, used: string[] = []): string {
  const c = sessionCost(u, w);
  if (c === null || !priced(w)) return "";
  let s =
    `Cost at the profile's prices: ${dollars(c)} (input ${fmt(u.prompt)} tokens at ${perMillion(w.inputPrice)}, ` +
    `output ${fmt(u.completion)} at ${perMillion(w.outputPrice)}).`;
  const current = `${w.provider}/${w.model}`;
  const others = used.filter((m) => m !== current);
  if (others.length > 0) {
    s += ` The session also used ${others.join(", ")}; all its tokens are priced at the current profile's (${w.provider}, ${w.model}).`;
  }
  return s;
}

/** meterLabel is the meter's text: "12.3k / 32.8k", "~8.2k" for a guessed window, "12.3k tokens" without one; "" for nothing to show. */
export function meterLabel(u: SessionUsage, w: ContextWindow | undefined): string {
  let label: string;
  if (w === undefined || w.window <= 0) label = u.total > 0 ? `${tokens(u.total)} tokens` : "";
  else {
    const win = (w.source === "default" ? "~" : "") + tokens(w.window);
    label = u.context > 0 ? `${tokens(u.context)} / ${win}` : `${win} context`;
  }
  const c = sessionCost(u, w);
  return c === null || label === "" ? label : `${label} · ${dollars(c)}`;
}

/** meterTitle is the meter's tooltip: the window and where it comes from, then the session's token counts. */
export function meterTitle(u: SessionUsage, w: ContextWindow | undefined, used: string[] = []): string {
  const parts: string[] = [];
  if (w !== undefined && w.window > 0) {
    parts.push(`Context window of ${w.model !== "" ? w.model : "the model"}: ${windowText(w)}.`);
    if (w.outputLimit > 0) parts.push(`Answers up to ${fmt(w.outputLimit)} tokens.`);
    if (w.warning !== undefined && w.warning !== "") parts.push(`Note: ${w.warning}.`);
  }
  if (u.total > 0) parts.push(`Tokens used in this session: ${fmt(u.prompt)} prompt, ${fmt(u.completion)} completion, ${fmt(u.total)} in all.`);
  if (u.context > 0) parts.push(`The last model request held ${fmt(u.context)} prompt tokens.`);
  const cost = costText(u, w, used);
  if (cost !== "") parts.push(cost);
  return parts.join(" ");
}

/** ContextMeter shows the open session's context use against its model's window (see the file's comment). */
export function ContextMeter({ sessionId, running }: { sessionId: string; running: boolean }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const turns = useSession((s) => s.conversation.turns);
  const entries = useSession((s) => s.conversation.entries);
  const u = useMemo(() => usageOf(turns), [turns]);
  const used = useMemo(() => modelsUsed(turns), [turns]);
  // The window is asked again when the session's model changes and after
  // each run (a session's first run gives it the default profile).
  const chosen = useMemo(() => {
    let chosen = "";
    for (const e of entries) if (e.kind === "model") chosen = `${e.provider}/${e.model}`;
    return chosen;
  }, [entries]);
  const loaded = useLoad(() => api.ContextWindow(sessionId), [api, sessionId, running, chosen], { keep: true });
  const w = loaded.state.value;
  const box = useRef<HTMLSpanElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node | null)) setOpen(false);
    };
    // Wherever the focus is (Compact now, disabled while it works, drops
    // it): Escape closes the popover only, and a run goes on.
    const escape = (e: globalThis.KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("pointerdown", outside);
    window.addEventListener("keydown", escape, true);
    return () => {
      document.removeEventListener("pointerdown", outside);
      window.removeEventListener("keydown", escape, true);
    };
  }, [open]);
  const label = meterLabel(u, w);
  if (label === "") return null;
  const title = meterTitle(u, w, used);
  const full = w !== undefined && w.window > 0 && u.context > 0 ? Math.min(u.context / w.window, 1) : 0;
  return (
    <span className="convo-meter-box" ref={box}>
      <button
        ref={button}
        type="button"
        className={full >= 0.9 ? "convo-meter convo-meter-full" : "convo-meter"}
        title={title}
        aria-label={`Context: ${title}`}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {label}
      </button>
      {open ? <CompactPopover sessionId={sessionId} running={running} u={u} w={w} used={used} /> : null}
    </span>
  );
}

/** popoverFacts lists what the meter knows, one labelled value each, for its popover. */
export function popoverFacts(u: SessionUsage, w: ContextWindow | undefined, used: string[] = []): Fact[] {
  const facts: Fact[] = [];
  const win = w !== undefined && w.window > 0 ? w : undefined;
  if (win !== undefined) {
    facts.push({ label: "Window", value: `${win.model !== "" ? `${win.model}: ` : ""}${windowText(win)}` });
    if (win.outputLimit > 0) facts.push({ label: "Answers", value: `up to ${fmt(win.outputLimit)} tokens` });
  }
  if (u.context > 0) {
    const share = win !== undefined ? ` (${Math.round((100 * u.context) / win.window)}% of the window)` : "";
    facts.push({ label: "Last request", value: `${fmt(u.context)} tokens${share}` });
  }
  if (u.total > 0) facts.push({ label: "This session", value: `${fmt(u.prompt)} prompt, ${fmt(u.completion)} completion tokens` });
  const cost = costText(u, w, used);
  if (cost !== "") facts.push({ label: "Cost", value: cost });
  return facts;
}

/** CompactPopover is the meter's popover: what the meter knows, as labelled values, and Compact now. */
function CompactPopover(props: { sessionId: string; running: boolean; u: SessionUsage; w: ContextWindow | undefined; used: string[] }) {
  const { sessionId, running, u, w } = props;
  const api = useApi();
  const hasTurns = useSession((s) => s.conversation.entries.some((e) => e.kind === "turn"));
  const [state, setState] = useState<{ busy: boolean; msg: string; bad: boolean }>({ busy: false, msg: "", bad: false });
  const compact = () => {
    setState({ busy: true, msg: "Summarising the oldest messages…", bad: false });
    api
      .Compact(sessionId)
      .then((d) => setState({ busy: false, msg: `Compacted: messages 1 to ${d.upto} are summarised.`, bad: false }))
      .catch((e: unknown) => setState({ busy: false, msg: e instanceof Error ? e.message : String(e), bad: true }));
  };
  const full = w !== undefined && w.window > 0 && u.context > 0 ? Math.min(u.context / w.window, 1) : -1;
  return (
    <div className="convo-meter-pop" role="dialog" aria-label="Context">
      <Facts label="Context use" facts={popoverFacts(u, w, props.used)} />
      {full >= 0 ? (
        <div className={full >= 0.9 ? "convo-meter-bar convo-meter-full" : "convo-meter-bar"} aria-hidden="true">
          <span style={{ width: `${(full * 100).toFixed(1)}%` }} />
        </div>
      ) : null}
      {w?.warning !== undefined && w.warning !== "" ? <p className="convo-status-bad">Note: {w.warning}.</p> : null}
      <p className="convo-meter-pop-note">
        Foya compacts the context by itself when a request would pass the share of the window set in Settings (context.compactAt): the model summarises the oldest
        messages; the file changes, the task list and the newest messages stay exact, and the full history stays stored.
      </p>
      <div className="convo-meter-pop-actions">
        <button type="button" className="button" disabled={running || state.busy || !hasTurns} onClick={compact}>
          Compact now
        </button>
        {state.msg !== "" ? (
          <p className={state.bad ? "convo-status-bad" : undefined} role={state.bad ? "alert" : "status"}>
            {state.msg}
          </p>
        ) : null}
      </div>
    </div>
  );
}
