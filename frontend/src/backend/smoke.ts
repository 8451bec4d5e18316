import type { UIReport as Report } from "./gen/app";
import type { WailsWindow } from "./wails";

/**
 * UIReport is what the window first rendered (the Go App's UIReport, less
 * the shell's paint time, which reportReady adds).
 */
export type UIReport = Omit<Report, "shellPainted">;

/**
 * reportReady sends the desktop smoke test's report to the Go App
 * (App.UIReady, which prints it in smoke mode and ignores it otherwise).
 * It is not part of any Transport: in a browser, or a window without the
 * hook, it does nothing.
 */
export function reportReady(report: UIReport, w: WailsWindow = window as WailsWindow): void {
  const uiReady = w.go?.main?.App?.UIReady;
  if (typeof uiReady !== "function") {
    return;
  }
  // When index.html's shell was painted (boot-theme.js), if it was.
  const painted = (w as { foyaShellPainted?: unknown }).foyaShellPainted;
  uiReady({ ...report, shellPainted: typeof painted === "number" ? painted : 0 }).catch((e: unknown) => {
    console.error("foya: report ui ready:", e);
  });
}

/**
 * smokeSession asks the desktop app which session a smoke run opens
 * (App.SmokeSession: FOYA_SMOKE_OPEN in smoke mode, "" otherwise). In a
 * browser, or when the call fails, it is "": the window opens what the
 * address names, as always.
 */
export async function smokeSession(w: WailsWindow = window as WailsWindow): Promise<string> {
  const f = w.go?.main?.App?.SmokeSession;
  if (typeof f !== "function") return "";
  try {
    const id = await f();
    return typeof id === "string" ? id : "";
  } catch {
    return "";
  }
}

/**
 * What the conversation view shows: the prompts (turns), the tool cards,
 * the images of artifacts decoded, and those still being read or decoded.
 */
export function countConversation(root: ParentNode = document): { turns: number; cards: number; images: number; pending: number } | null {
  const log = root.querySelector('[role="log"][aria-label="Conversation"]');
  if (log === null) return null;
  const imgs = Array.from(log.querySelectorAll("img"));
  return {
    turns: log.querySelectorAll('section[aria-label="Your message"]').length,
    cards: log.querySelectorAll("article").length,
    images: imgs.filter((i) => i.complete && i.naturalWidth > 0).length,
    pending: imgs.filter((i) => !i.complete).length + log.querySelectorAll('[data-artifact="loading"]').length,
  };
}

/**
 * reportConversation is reportReady for a smoke run that opened session
 * open: it waits until the conversation view shows at least one turn, no
 * image is still loading and the counts hold for a few frames (the stored
 * run is replayed in batches),
 * then reports them with the shell's report. After waitMs it reports what
 * is there, so that a view that renders nothing fails the test instead of
 * hanging it.
 */
export function reportConversation(open: string, report: UIReport, w: WailsWindow = window as WailsWindow, waitMs = 20_000): void {
  const until = performance.now() + waitMs;
  let last = "";
  let same = 0;
  const tick = () => {
    const c = countConversation();
    const key = c === null ? "" : `${c.turns}/${c.cards}/${c.images}/${c.pending}`;
    same = key === last ? same + 1 : 0;
    last = key;
    const settled = c !== null && c.turns > 0 && c.pending === 0 && same >= 10;
    if (settled || performance.now() > until) {
      reportReady({ ...report, open, turns: c?.turns ?? 0, cards: c?.cards ?? 0, images: c?.images ?? 0 }, w);
      return;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
