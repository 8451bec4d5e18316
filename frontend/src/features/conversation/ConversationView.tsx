// The conversation of the open session: a virtualized transcript (a `log`
// region) that follows the stream unless the person scrolled up, and the
// composer with the stop button.
import {
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from "react";
import { Virtuoso, VirtuosoMockContext, type VirtuosoHandle } from "react-virtuoso";
import { useApi } from "../../backend";
import { ApprovalsProvider, useApprovals } from "../approvals";
import { Elicitations } from "../elicit";
import { useLoad } from "../useLoad";
import { useSession } from "../session/hooks";
import { runError, runModel } from "./format";
import { lastTurn, rowsOf, runningTurnId, type Row } from "./reducer";
import { EndRow, ModelRow, ModeRow, PromptRow, SteerRow, StepRow } from "./Rows";
import { ToolCardRow } from "./ToolCard";
import { CompactRow } from "./CompactRow";
import { ToolGroupRow } from "./ToolGroup";
import { refsOf } from "./AttachResources";
import { Composer, type Outgoing } from "./Composer";
import "./conversation.css";

/** discardedReason is what the composer says once an isolated session's copy is discarded. */
export const discardedReason = "This session’s isolated copy was discarded: it cannot run again. Its conversation stays to read.";

/** continueMessage is what "Continue" sends after the step-limit stop. */
export const continueMessage = "Continue where you stopped.";

/** ConversationView shows and drives one session's conversation; it reads the session's store. */
export function ConversationView(props: { sessionId: string }) {
  const api = useApi();
  const entries = useSession((s) => s.conversation.entries);
  const turns = useSession((s) => s.conversation.turns);
  const rows = useMemo(() => rowsOf(entries, turns), [entries, turns]);
  const running = useSession((s) => runningTurnId(s.conversation));
  const lastRunId = useSession((s) => lastTurn(s.conversation)?.id ?? "");
  const lastStatus = useSession((s) => lastTurn(s.conversation)?.status ?? "");

  const [sent, setSent] = useState("");
  const started = useSession((s) => sent !== "" && s.conversation.turns[sent] !== undefined);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const modelProblem = useNoModel(props.sessionId, running);
  // An isolated session: runs wait while its setup command runs (the kernel
  // refuses them busy), and none can start once its copy is discarded.
  const setupState = useSession((s) => s.isolation.setup.state);
  const setup = setupState === "running";
  const discarded = useSession((s) => s.isolation.discarded !== "");
  const noModel = discarded ? discardedReason : modelProblem;
  const busy = running !== "" || sending || (sent !== "" && !started) || setup;

  const send = useCallback(
    async ({ text: message, attached, files, images = [] }: Outgoing): Promise<boolean> => {
      setSending(true);
      setError("");
      try {
        const id =
          images.length > 0
            ? await api.RunWithImages(props.sessionId, message, refsOf(attached), files, images)
            : files.length > 0
            ? await api.RunWithMentions(props.sessionId, message, refsOf(attached), files)
            : attached.length === 0
              ? await api.Run(props.sessionId, message)
              : await api.RunWithResources(props.sessionId, message, refsOf(attached));
        setSent(id);
        return true;
      } catch (e) {
        setError(runError(e));
        return false;
      } finally {
        setSending(false);
      }
    },
    [api, props.sessionId],
  );
  const stop = useCallback(() => {
    setError("");
    api.Cancel(props.sessionId).then(
      () => undefined,
      (e: unknown) => setError(`The run was not stopped: ${e instanceof Error ? e.message : String(e)}. Try again.`),
    );
  }, [api, props.sessionId]);
  const canContinue = !busy && noModel === "";
  const continueRun = useCallback(() => void send({ text: continueMessage, attached: [], files: [] }), [send]);
  const onContinue = canContinue ? continueRun : null;
  const retryRun = useCallback((prompt: string) => void send({ text: prompt, attached: [], files: [] }), [send]);
  const onRetry = canContinue ? retryRun : null;

  // Escape stops the run from anywhere in the view (the message box, a card's button).
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Escape" && running !== "" && !e.defaultPrevented) {
      e.preventDefault();
      stop();
    }
  };
  // Approval requests show inline at their calls; answering the last one,
  // or Escape in one, gives focus back to the message box.
  const input = useRef<HTMLTextAreaElement>(null);
  const focusComposer = useCallback(() => input.current?.focus(), []);
  return (
    <ApprovalsProvider focusComposer={focusComposer}>
      <div className="convo" onKeyDown={onKey}>
        <Transcript rows={rows} lastRunId={lastRunId} onContinue={onContinue} onRetry={onRetry} />
        <Elicitations sessionId={props.sessionId} onDone={focusComposer} />
        <Composer
          sessionId={props.sessionId}
          busy={busy}
          sending={sending}
          running={running !== ""}
          setup={setup}
          // Messages queued while the setup ran go once it ended, as after a
          // completed turn (a failed setup does not stop the session).
          lastStatus={lastStatus === "" && (setupState === "succeeded" || setupState === "failed") ? "completed" : lastStatus}
          noModel={noModel}
          error={error}
          onSend={send}
          onStop={stop}
          input={input}
        />
      </div>
    </ApprovalsProvider>
  );
}

type Retry = ((prompt: string) => void) | null;

function Transcript(props: { rows: Row[]; lastRunId: string; onContinue: (() => void) | null; onRetry: Retry }) {
  const ref = useRef<VirtuosoHandle>(null);
  const mocked = useContext(VirtuosoMockContext) !== undefined;
  const { following, scrollerRef, toEnd, jump } = useFollowing();
  const { rows, lastRunId, onContinue, onRetry } = props;
  // A waiting request's card is scrolled to when it is to take focus.
  const setRevealer = useApprovals()?.setRevealer;
  const rowsNow = useRef(rows);
  rowsNow.current = rows;
  useEffect(() => {
    if (setRevealer === undefined) return;
    setRevealer((at) => {
      const index = rowsNow.current.findIndex(
        (r) => (r.kind === "card" && r.runId === at.runId && r.callId === at.callId) || (r.kind === "group" && r.runId === at.runId && r.callIds.includes(at.callId)),
      );
      if (index >= 0) ref.current?.scrollToIndex({ index, align: "start" });
    });
    return () => setRevealer(null);
  }, [setRevealer]);
  const item = useCallback(
    (_: number, row: Row) => (
      <div className="convo-row">
        <RowView row={row} latest={row.kind === "end" && row.runId === lastRunId} onContinue={onContinue} onRetry={onRetry} />
      </div>
    ),
    [lastRunId, onContinue, onRetry],
  );
  // Until react-virtuoso has measured the viewport and shows the latest
  // rows (its third to fifth frame), Latest shows them from the first
  // frame; the list lies hidden under it meanwhile. Not under
  // VirtuosoMockContext (tests without layout: the list shows at once).
  const [settled, setSettled] = useState(mocked);
  if (rows.length === 0 && settled && !mocked) setSettled(false);
  const settle = useCallback(() => setSettled(true), []);
  const last = rows.length - 1;
  return (
    <div className="convo-transcript" role="log" aria-label="Conversation">
      {rows.length === 0 ? (
        <p className="convo-empty">No messages yet. Say what to do in the box below.</p>
      ) : (
        <Virtuoso
          ref={ref}
          scrollerRef={scrollerRef}
          className={settled ? "convo-scroller" : "convo-scroller convo-unsettled"}
          rangeChanged={(r) => {
            if (!settled && r.endIndex >= last) settle();
          }}
          data={rows}
          computeItemKey={(_, row) => row.key}
          itemContent={item}
          // Opens at the latest rows: an offset past the end, which the
          // browser clamps to the bottom. initialTopMostItemIndex would do
          // it too, but waits 4 frames and hides the rows until it is there
          // (about twice as slow to open 2,000 cards: docs/benchmarks.md).
          // Not under VirtuosoMockContext (tests without layout).
          {...(mocked ? {} : { initialScrollTop: rows.length * 1000 })}
          // Following is the person's choice (useFollowing), not Virtuoso's
          // at-bottom state: a row that grows past the threshold makes that
          // false for a moment, and a new row arriving then would not be
          // followed, nor anything after it. So no followOutput: given one,
          // Virtuoso also scrolls to the end by itself for 100 ms after the
          // rows change when its at-bottom state says "size increased",
          // which takes back a person's scrolling up while text streams in.
          // A new row changes the list's height too (below).
          atBottomThreshold={48}
          defaultItemHeight={72}
          // A new row, or a row that grows at the end (streamed text, a live
          // tail, a card that ended), keeps a following view at the bottom
          // (toEnd, not scrollToIndex: that one scrolls again by itself
          // whenever the list changes in the next 150 ms, the same trouble).
          totalListHeightChanged={toEnd}
        />
      )}
      {!settled && rows.length > 0 && <Latest rows={rows} item={item} onLeave={settle} />}
      {!following && rows.length > 0 && (
        <button type="button" className="button convo-jump" onClick={jump}>
          Jump to latest
        </button>
      )}
    </div>
  );
}

/** latestRow is the least height (px) a row is guessed to take when Latest picks how many to show. */
const latestRow = 64;

/**
 * Latest shows the latest rows at the bottom of the transcript in the first
 * frame, while react-virtuoso measures the viewport and rows before it
 * scrolls to the end. It renders as many rows as fill its height, found
 * before the paint (layout effects): a guess from the height, doubled until
 * the first row reaches the top. Rows that do not fill it are shown from
 * the top, as the list shows them. Scrolling or pointing at it hands over
 * to the list at once (onLeave).
 */
function Latest(props: { rows: Row[]; item: (index: number, row: Row) => ReactNode; onLeave: () => void }) {
  const { rows, item, onLeave } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [count, setCount] = useState(0);
  const [short, setShort] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el === null) return;
    if (count === 0) {
      setCount(Math.min(rows.length, Math.ceil(el.clientHeight / latestRow) + 1));
      return;
    }
    const first = el.firstElementChild;
    const filled = first instanceof HTMLElement && first.offsetTop <= 0;
    if (!filled && count < rows.length) setCount(Math.min(rows.length, count * 2));
    else setShort(!filled);
  }, [count, rows.length]);
  const from = Math.max(0, rows.length - count);
  return (
    <div
      ref={ref}
      className={short ? "convo-latest convo-latest-short" : "convo-latest"}
      onWheel={onLeave}
      onPointerDown={onLeave}
      onTouchStart={onLeave}
    >
      {rows.slice(from).map((row, i) => (
        <div key={row.key}>{item(from + i, row)}</div>
      ))}
    </div>
  );
}

/** nearBottom is how close to the end (px) scrolling down turns following back on. */
const nearBottom = 48;

/** upKeys are the keys that scroll a focused list up (and Shift+Space). */
const upKeys = new Set(["ArrowUp", "PageUp", "Home"]);

/**
 * useFollowing says whether the transcript follows the stream: it does
 * until the person scrolls up, and again once they scroll back down to the
 * end (or press "Jump to latest"). Scrolling up is the person's input that
 * scrolls up (the wheel, a key, a touch: at once, even as rows arrive in
 * the same frame), or the scroll offset going up while the scrollable range
 * stayed the same, or while the scroll bar is dragged. Not the person:
 * content that shrinks at the end or a viewport that grows (the browser
 * clamps the offset: the range shrinks), and Virtuoso keeping the rows in
 * view in place when a row above them changes height, which can come in
 * the same frame as a new row below (the range grows, with no input).
 * Following never uses Virtuoso's scrollToIndex: it scrolls again by
 * itself whenever the list changes within 150 ms, for as long as it keeps
 * changing (streamed text), which takes back the person's scrolling up.
 * `following` renders the button.
 */
function useFollowing() {
  const follow = useRef(true);
  const [following, setFollowing] = useState(true);
  const detach = useRef<(() => void) | null>(null);
  const scroller = useRef<HTMLElement | null>(null);
  const frame = useRef(0);
  // toEnd scrolls to the end in the next frame, once the list has its new
  // height, if the view still follows then.
  const toEnd = useCallback(() => {
    if (!follow.current || frame.current !== 0) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const el = scroller.current;
      if (el !== null && follow.current) el.scrollTop = el.scrollHeight;
    });
  }, []);
  const scrollerRef = useCallback(
    (el: HTMLElement | Window | null) => {
      detach.current?.();
      detach.current = null;
      scroller.current = el instanceof HTMLElement ? el : null;
      if (!(el instanceof HTMLElement)) return;
      let top = el.scrollTop;
      let range = el.scrollHeight - el.clientHeight;
      // dragging: the pointer is down on the scroll bar.
      let dragging = false;
      let touchY = 0;
      const leave = () => {
        if (el.scrollTop <= 0 || !follow.current) return;
        follow.current = false;
        setFollowing(false);
      };
      const onScroll = () => {
        const now = el.scrollHeight - el.clientHeight;
        const gap = now - el.scrollTop;
        const up = el.scrollTop < top - 1;
        if (gap <= 1 || (gap <= nearBottom && el.scrollTop > top)) follow.current = true;
        else if (up && (now === range || dragging)) follow.current = false;
        top = el.scrollTop;
        range = now;
        setFollowing(follow.current);
      };
      const onWheel = (e: WheelEvent) => {
        if (e.deltaY < 0) leave();
      };
      const onKey = (e: globalThis.KeyboardEvent) => {
        if (upKeys.has(e.key) || (e.key === " " && e.shiftKey)) leave();
      };
      const onTouchStart = (e: TouchEvent) => {
        touchY = e.touches[0]?.clientY ?? 0;
      };
      const onTouchMove = (e: TouchEvent) => {
        const y = e.touches[0]?.clientY ?? touchY;
        if (y > touchY) leave(); // the finger moves down: the rows go down, the view up
        touchY = y;
      };
      const onPointerDown = (e: PointerEvent) => {
        if (e.target === el) dragging = true; // on the scroll bar: the rows are its children
      };
      const onPointerUp = () => {
        dragging = false;
      };
      const passive = { passive: true };
      el.addEventListener("scroll", onScroll, passive);
      el.addEventListener("wheel", onWheel, passive);
      el.addEventListener("keydown", onKey);
      el.addEventListener("touchstart", onTouchStart, passive);
      el.addEventListener("touchmove", onTouchMove, passive);
      el.addEventListener("pointerdown", onPointerDown);
      window.addEventListener("pointerup", onPointerUp);
      // A viewport that gets shorter (the message box grows) keeps a
      // following view at the bottom (no ResizeObserver: tests without layout).
      const resized = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(toEnd);
      resized?.observe(el);
      detach.current = () => {
        resized?.disconnect();
        el.removeEventListener("scroll", onScroll);
        el.removeEventListener("wheel", onWheel);
        el.removeEventListener("keydown", onKey);
        el.removeEventListener("touchstart", onTouchStart);
        el.removeEventListener("touchmove", onTouchMove);
        el.removeEventListener("pointerdown", onPointerDown);
        window.removeEventListener("pointerup", onPointerUp);
      };
    },
    [toEnd],
  );
  // jump follows again (Jump to latest): the view goes to the end, and
  // stays there as the rows below it are drawn and measured (toEnd).
  const jump = useCallback(() => {
    follow.current = true;
    setFollowing(true);
    const el = scroller.current;
    if (el !== null) el.scrollTop = el.scrollHeight;
  }, []);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  return { following, scrollerRef, toEnd, jump };
}

function RowView({ row, latest, onContinue, onRetry }: { row: Row; latest: boolean; onContinue: (() => void) | null; onRetry: Retry }) {
  switch (row.kind) {
    case "mode":
      return <ModeRow note={row.note} />;
    case "model":
      return <ModelRow note={row.note} />;
    case "steer":
      return <SteerRow note={row.note} />;
    case "compact":
      return <CompactRow id={row.id} />;
    case "prompt":
      return <PromptRow runId={row.runId} />;
    case "step":
      return <StepRow runId={row.runId} step={row.step} />;
    case "card":
      return <ToolCardRow runId={row.runId} callId={row.callId} approvals />;
    case "group":
      return <ToolGroupRow runId={row.runId} callIds={row.callIds} approvals />;
    case "end":
      return <EndRow runId={row.runId} latest={latest} onContinue={onContinue} onRetry={onRetry} />;
  }
}

/**
 * useNoModel says why the session cannot run ("" when it can or it is not
 * known): it asks the kernel for the session and the provider profiles when
 * the view opens, after each run, and when the window comes back to the front
 * (the settings may have changed meanwhile).
 */
function useNoModel(sessionId: string, running: string): string {
  const api = useApi();
  const { state, reload } = useLoad(() => Promise.all([api.Session(sessionId), api.Providers()]), [api, sessionId, running], { keep: true });
  useEffect(() => {
    window.addEventListener("focus", reload);
    return () => window.removeEventListener("focus", reload);
  }, [reload]);
  // Not known (not read yet, or the read failed): sending says why if it
  // fails. While it is read again, what was known stays.
  if (state.status === "error" || state.value === undefined) return "";
  const [s, providers] = state.value;
  return runModel(s, providers) === ""
    ? "This session has no model: add a provider profile with a model in Settings, or choose one for this session."
    : "";
}
