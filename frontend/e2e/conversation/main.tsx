// A page with the conversation view of one session, fed by hand: the store
// and the transport are the real ones the shell uses (createSessionStore,
// follow), the transport is FakeTransport (no kernel: the checks measure the
// view). check.mjs drives it through window.convo.
import { createRoot } from "react-dom/client";
import { TransportProvider } from "../../src/backend";
import { FakeTransport, session } from "../../src/backend/fake";
import type { Event } from "../../src/backend/gen/event";
import { ConversationView } from "../../src/features/conversation";
import { SessionStoreProvider } from "../../src/features/session/hooks";
import { createSessionStore, follow, type Subscribe } from "../../src/features/session/store";
import "../../src/styles.css";

const SESSION = "ses_bench";
const WORKDIR = "/home/me/project";

/** Log is one session's event log with dense seqs, in the engine's shapes. */
class Log {
  readonly events: Event[] = [];
  private seq = 0;
  private clock = Date.parse("2026-12-01T11:00:00Z");
  add(type: string, data: unknown, runId = ""): void {
    this.seq++;
    this.clock += 7;
    const ev: Event = { type, sessionId: SESSION, seq: this.seq, time: new Date(this.clock).toISOString(), data };
    if (runId !== "") ev.runId = runId;
    this.events.push(ev);
  }
  next(): number {
    return this.seq + 1;
  }
}

// history: runs of 4 steps, each with a line of markdown and 5 calls
// (write with a file change for the first 500, then read and bash).
function history(cards: number): Log {
  const log = new Log();
  let made = 0;
  for (let r = 0; made < cards; r++) {
    const run = `run_${r}`;
    log.add("run.start", { prompt: `Prompt number ${r}: fix the tests`, workdir: WORKDIR, model: "m", provider: "p", approvalMode: "auto" }, run);
    for (let st = 1; st <= 4 && made < cards; st++) {
      log.add("step.start", { step: st, tools: ["bash", "read", "write"] }, run);
      log.add("text.delta", { step: st, text: `Step **${st}**: looking at \`file${st}.go\` and running the tests.` }, run);
      for (let c = 0; c < 5 && made < cards; c++, made++) {
        const id = `call_${st}_${c}`;
        const name = made < 500 ? "write" : c % 2 === 0 ? "bash" : "read";
        const args = name === "bash" ? { command: `go test ./pkg${c}/...` } : { path: `f${made}.txt`, content: "x\n" };
        log.add("tool.begin", { step: st, index: c, id, name }, run);
        log.add("tool.update", { step: st, id, argsBytes: JSON.stringify(args).length, argsDelta: JSON.stringify(args) }, run);
        log.add("tool.update", { step: st, id, status: "running" }, run);
        const fileChanges =
          name === "write"
            ? [{ id: `chg_${made}`, sessionId: SESSION, runId: run, callId: id, tool: "write", path: `${WORKDIR}/f${made}.txt`, op: "create", existedBefore: false, existsAfter: true, added: 1, removed: 0, createdAt: "2026-12-01T11:00:02Z" }]
            : undefined;
        log.add("tool.end", { step: st, index: c, id, name, status: "done", isError: false, text: name === "bash" ? "ok\n\nExit code 0 after 0.10s." : "     1\tx\n", durationMs: 100 + c, fileChanges }, run);
      }
      log.add("step.end", { step: st, finishReason: "tool_calls", toolCalls: 5, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, run);
    }
    log.add("run.end", { status: "completed", error: "", steps: 4, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, run);
  }
  return log;
}

const transport = new FakeTransport({
  Session: session({ id: SESSION, provider: "p", model: "m" }),
  Providers: [{ name: "p", baseUrl: "http://127.0.0.1:9/v1", model: "m", default: true }],
  Run: "run_new",
  // Every "Show diff" of the page gets this one (FakeTransport answers by method).
  Diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n",
  Cancel: true,
});
const store = createSessionStore(SESSION);
let log = new Log();

declare global {
  interface Window {
    convo: {
      show(events: Event[]): Promise<void>;
      open(cards: number): Promise<{ t0: number; ms: number; list: number; listFrames: number; md: number; folded: number; inDom: number; frames: number; events: number; articles: number }>;
      startRun(runId: string): void;
      addCard(runId: string, step: number, index: number): void;
      runCard(runId: string, step: number, index: number): void;
      cancelRun(runId: string, step: number, index: number, lines: number, apart: number, slowMs: number): void;
      stream(runId: string, step: number, perSecond: number, seconds: number): Promise<number>;
      /** longTasks are the durations of the long tasks that started at or after since (all of them by default), those that ended so far included. */
      longTasks(since?: number): number[];
    };
  }
}

const longTasks: { start: number; duration: number }[] = [];
const keep = (entries: PerformanceEntryList) => {
  for (const e of entries) longTasks.push({ start: e.startTime, duration: e.duration });
};
const longTaskObserver = new PerformanceObserver((list) => keep(list.getEntries()));
longTaskObserver.observe({ type: "longtask", buffered: true });

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

window.convo = {
  // show renders the view over a given log (its session must be SESSION).
  async show(events) {
    follow(store, ((sid, after, onEvent) => transport.subscribe(sid, after, onEvent as never)) as Subscribe);
    for (const ev of events) transport.push({ ...ev, sessionId: SESSION });
    await Promise.resolve();
    createRoot(document.getElementById("root")!).render(
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <div style={{ height: "100vh" }}>
            <ConversationView sessionId={SESSION} />
          </div>
        </SessionStoreProvider>
      </TransportProvider>,
    );
    await frame();
  },
  // open folds a stored history of `cards` tool cards and renders the view,
  // as opening a session does; it resolves once the latest cards are painted.
  async open(cards) {
    log = history(cards);
    const events = log.events;
    // The stored history exists before the session opens: making it is not
    // part of opening, so it gets a task of its own, before the clock starts.
    await new Promise((r) => setTimeout(r, 0));
    const t0 = performance.now();
    follow(store, ((sid, after, onEvent) => transport.subscribe(sid, after, onEvent as never)) as Subscribe);
    for (const ev of events) transport.push(ev);
    // Folded: the store has the last event (the fold may take a few tasks).
    const last = events[events.length - 1]!.seq;
    await new Promise<void>((r) => {
      if (store.getState().order.seq >= last) return r();
      const stop = store.subscribe((st) => st.order.seq >= last && (stop(), r()));
    });
    const folded = performance.now() - t0;
    createRoot(document.getElementById("root")!).render(
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <div style={{ height: "100vh" }}>
            <ConversationView sessionId={SESSION} />
          </div>
        </SessionStoreProvider>
      </TransportProvider>,
    );
    // Shown: the latest cards on screen, either in the view's Latest (the
    // latest rows, bottom-aligned, filling the transcript: its first frame)
    // or in the list scrolled to its end; then painted (the next frame).
    const latestShown = () => {
      const tail = document.querySelector<HTMLElement>(".convo-latest");
      if (tail === null) return listShown();
      const first = tail.firstElementChild;
      return tail.querySelector("article") !== null && first instanceof HTMLElement && first.offsetTop <= 0;
    };
    // The list: cards in the page and shown, scrolled to the end of the
    // list (the latest rows), Latest gone.
    const listShown = () => {
      const list = document.querySelector<HTMLElement>("[data-testid=virtuoso-item-list]");
      const scroller = document.querySelector<HTMLElement>("[data-virtuoso-scroller]");
      if (document.querySelector(".convo-latest") !== null) return false;
      if (list === null || scroller === null || list.style.visibility === "hidden" || list.querySelector("article") === null) return false;
      return scroller.scrollTop > 0 && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 2;
    };
    let n = 0;
    let inDom = -1;
    // Each wait gives up after 30 s, saying what it waited for (a hang
    // guard for check.mjs, not a time limit on the view).
    const giveUp = t0 + 30_000;
    const tick = async (what: string) => {
      if (performance.now() > giveUp) throw new Error(`opening ${cards} cards: gave up after 30 s waiting for ${what}`);
      await frame();
      n++;
      if (inDom < 0 && document.querySelector("article") !== null) inDom = performance.now() - t0;
    };
    while (!latestShown()) await tick("the latest cards to show");
    const frames = n;
    await tick("a frame");
    const ms = performance.now() - t0;
    while (!listShown()) await tick("the list to be scrolled to its end, Latest gone");
    const listFrames = n;
    await frame();
    const list = performance.now() - t0;
    // Markdown: every step text in the page parsed (a step's markdown is a
    // deferred render: its first frame shows the plain text), then painted.
    const parsed = () => [...document.querySelectorAll(".convo-md")].every((el) => el.querySelector("strong") !== null);
    while (!parsed()) await tick("every step's markdown to be parsed");
    await frame();
    const md = performance.now() - t0;
    return { t0, ms, list, listFrames, md, folded, inDom, frames, events: events.length, articles: document.querySelectorAll("article").length };
  },
  startRun(runId) {
    log.add("run.start", { prompt: "Go on", workdir: WORKDIR, model: "m", provider: "p", approvalMode: "auto" }, runId);
    log.add("step.start", { step: 1, tools: ["bash"] }, runId);
    transport.push(log.events[log.events.length - 2]!);
    transport.push(log.events[log.events.length - 1]!);
  },
  addCard(runId, step, index) {
    const at = log.events.length;
    const id = `live_${step}_${index}`;
    log.add("tool.begin", { step, index, id, name: "bash" }, runId);
    log.add("tool.update", { step, id, argsBytes: 20, argsDelta: '{"command":"ls -la"}' }, runId);
    for (const ev of log.events.slice(at)) transport.push(ev);
  },
  // runCard makes a card running, with a line of live tail.
  runCard(runId, step, index) {
    const id = `live_${step}_${index}`;
    const at = log.events.length;
    log.add("tool.update", { step, id, status: "running" }, runId);
    log.add("tool.update", { step, id, progress: { tail: "started\n" } }, runId);
    for (const ev of log.events.slice(at)) transport.push(ev);
  },
  // cancelRun ends a running bash card as the kernel does when the person
  // stops the run: in one batch, the card grows (cancelled, with its error
  // of `lines` lines) and the turn's end row is added.
  cancelRun(runId, step, index, lines, apart, slowMs) {
    const id = `live_${step}_${index}`;
    const at = log.events.length;
    const text = Array.from({ length: lines }, (_, i) => `output line ${i}`).join("\n") + `\n\nThe command was cancelled (${runId}).`;
    log.add("tool.end", { step, index, id, name: "bash", status: "cancelled", isError: true, text, durationMs: 300 }, runId);
    log.add("step.end", { step, finishReason: "tool_calls", toolCalls: 1, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, runId);
    log.add("run.end", { status: "cancelled", error: "", steps: step, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }, runId);
    const evs = log.events.slice(at);
    // A long task after the frame that lays the grown card out, as on a
    // busy machine: longer than Virtuoso's 50 ms wait before it reports
    // that the view left the bottom.
    if (slowMs > 0) requestAnimationFrame(() => setTimeout(() => busy(slowMs), 0));
    if (apart <= 0) for (const ev of evs) transport.push(ev);
    else {
      transport.push(evs[0]!);
      setTimeout(() => evs.slice(1).forEach((ev) => transport.push(ev)), apart);
    }
  },
  // stream sends text deltas at perSecond for seconds, a batch each
  // millisecond tick as a busy stream would; resolves with the count sent.
  stream(runId, step, perSecond, seconds) {
    return new Promise((resolve) => {
      const total = perSecond * seconds;
      let sent = 0;
      const t0 = performance.now();
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * perSecond));
        while (sent < due) {
          log.add("text.delta", { step, text: sent % 50 === 49 ? "word.\n\n" : "word " }, runId);
          transport.push(log.events[log.events.length - 1]!);
          sent++;
        }
        if (sent < total) setTimeout(tick, 1);
        else resolve(sent);
      };
      tick();
    });
  },
  longTasks(since = -Infinity) {
    // The entries of tasks that ended but whose callback has not run yet
    // (it comes in a task of its own, later): no need to wait for it.
    keep(longTaskObserver.takeRecords());
    return longTasks.filter((t) => t.start >= since).map((t) => t.duration);
  },
};
