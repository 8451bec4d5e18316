import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { applyChanges, initialChanges } from "../changes/reducer";
import { applyConversation, cardOf, initialConversation } from "../conversation/reducer";
import type { Event } from "../../backend/gen/event";
import { Log, WORKDIR, everything, fileChange, journey, reduceAll } from "../eventstest";
import { SessionStoreProvider, useCard, useEntries, useFollow, useMode, usePendingApprovals, useStepText, useTurn } from "./hooks";
import { createSessionStore, follow, lastSeq, type SessionStore, type Subscribe } from "./store";

afterEach(cleanup);

// A transport as Subscribe describes it: stored events after afterSeq, then
// live ones, each seq once, in order.
class FakeTransport {
  stored: Event[] = [];
  listeners = new Set<(ev: Event) => void>();
  subscribedAfter: number[] = [];

  subscribe: Subscribe = (sessionId, afterSeq, onEvent) => {
    this.subscribedAfter.push(afterSeq);
    for (const ev of this.stored) if (ev.sessionId === sessionId && ev.seq > afterSeq) onEvent(ev);
    this.listeners.add(onEvent);
    return () => this.listeners.delete(onEvent);
  };

  publish(ev: Event) {
    this.stored.push(ev);
    for (const l of this.listeners) l(ev);
  }
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("session store", () => {
  it("follows a transport: replay then live, one store update per burst, resumes after its last seq", async () => {
    const log = everything();
    const cut = 30;
    const t = new FakeTransport();
    t.stored = log.events.slice(0, cut);
    const store = createSessionStore(log.sessionId, { mode: "manual" });
    let updates = 0;
    store.subscribe(() => updates++);

    const stop = follow(store, t.subscribe);
    expect(updates).toBe(0);
    await flush();
    expect(updates).toBe(1);
    expect(lastSeq(store.getState())).toBe(cut);

    stop();
    // Events stored while nobody followed, then a resume.
    for (const ev of log.events.slice(cut, cut + 5)) t.publish(ev);
    const stop2 = follow(store, t.subscribe);
    expect(t.subscribedAfter).toEqual([0, cut]);
    for (const ev of log.events.slice(cut + 5)) t.publish(ev);
    await flush();
    stop2();

    const want = reduceAll(applyConversation, initialConversation, log.events);
    expect(store.getState().conversation).toEqual(want);
    expect(store.getState().approvals.mode).toBe("auto");
  });

  it("orders events once: an area an event does not touch keeps its object", () => {
    const log = journey();
    const store = createSessionStore(log.sessionId, { mode: "manual" });
    const [first, ...rest] = log.events;
    store.getState().apply(rest);
    const waiting = store.getState();
    // Nothing before seq 1 came: every event waits in the one order, no area moves.
    expect(waiting.order.ahead).toHaveLength(rest.length);
    store.getState().apply([first!]);
    const all = store.getState();
    expect(lastSeq(all)).toBe(log.events.length);
    expect(all.order.ahead).toEqual([]);
    // A streamed token touches the conversation alone.
    log.text("run_1", 1, " more");
    store.getState().apply(log.events.slice(-1));
    const after = store.getState();
    expect(after.conversation).not.toBe(all.conversation);
    expect(after.tasks).toBe(all.tasks);
    expect(after.changes).toBe(all.changes);
    expect(after.approvals).toBe(all.approvals);
  });

  it("ignores another session's events", () => {
    const store = createSessionStore("ses_other");
    const before = store.getState();
    store.getState().apply(journey().events);
    expect(store.getState()).toBe(before);
  });

  it("re-renders only the streaming text when a token streams", () => {
    const log = journey();
    const firstText = log.events.findIndex((e) => e.type === "text.delta");
    const store = createSessionStore(log.sessionId);
    store.getState().apply(log.events.slice(0, firstText));
    const renders = { transcript: 0, turn: 0, text: 0, card: 0, approvals: 0 };
    mount(store, renders);
    expect(screen.getByText("Create notes.txt saying hello")).toBeTruthy();
    const initial = { ...renders };

    act(() => store.getState().apply([log.events[firstText]!]));
    act(() => store.getState().apply([log.events[firstText + 1]!]));
    expect(screen.getByRole("article", { name: "run_1 step 1" }).textContent).toBe("I'll create the file.");
    expect(renders).toEqual({ ...initial, text: initial.text + 2 });

    // A card's own change renders the turn once (a card joins its step) and
    // the card; the transcript stays.
    const begin = log.events.findIndex((e) => e.type === "tool.begin");
    act(() => store.getState().apply(log.events.slice(firstText + 2, begin + 1)));
    const afterBegin = { ...renders };
    expect(afterBegin.transcript).toBe(initial.transcript);
    act(() => store.getState().apply([log.events[begin + 1]!]));
    expect(renders).toEqual({ ...afterBegin, card: afterBegin.card + 1 });
    expect(screen.getByRole("status", { name: "write" }).textContent).toBe("queued");
  });

  it("shows a cancelled run and the pending approvals of a reloaded page", async () => {
    const log = journey();
    const ask = log.events.findIndex((e) => e.type === "approval.request");
    const store = createSessionStore(log.sessionId, { mode: "manual" });
    const t = new FakeTransport();
    t.stored = log.events.slice(0, ask + 1);
    follow(store, t.subscribe);
    await flush();
    mount(store, { transcript: 0, turn: 0, text: 0, card: 0, approvals: 0 });
    expect(screen.getByRole("list", { name: "Waiting for you" }).textContent).toBe("apr_1 write");
    expect(screen.getByRole("status", { name: "write" }).textContent).toBe("waiting");

    act(() => {
      for (const ev of log.events.slice(ask + 1)) t.publish(ev);
    });
    await act(flush);
    expect(screen.getByRole("list", { name: "Waiting for you" }).textContent).toBe("");
    expect(screen.getByRole("status", { name: "bash" }).textContent).toBe("cancelled");
    expect(screen.getByText("mode auto")).toBeTruthy();
    expect(store.getState().conversation.turns["run_2"]!.status).toBe("cancelled");
  });
});

type Renders = { transcript: number; turn: number; text: number; card: number; approvals: number };

function mount(store: SessionStore, renders: Renders) {
  function Transcript() {
    renders.transcript++;
    const entries = useEntries();
    return (
      <ol>
        {entries.map((e) => (e.kind === "turn" ? <TurnView key={e.id} id={e.id} /> : <li key={e.seq}>{e.kind === "mode" ? `mode ${e.to}` : e.kind === "model" ? `model ${e.model}` : `compact ${e.id}`}</li>))}
      </ol>
    );
  }
  function TurnView({ id }: { id: string }) {
    renders.turn++;
    const t = useTurn(id)!;
    return (
      <li>
        <p>{t.prompt}</p>
        {t.steps.map((st) => (
          <section key={st.step}>
            <StepText runId={id} step={st.step} />
            {st.cards.map((callId) => (
              <Card key={callId} runId={id} callId={callId} />
            ))}
          </section>
        ))}
      </li>
    );
  }
  function StepText({ runId, step }: { runId: string; step: number }) {
    renders.text++;
    const text = useStepText(runId, step);
    return <article aria-label={`${runId} step ${step}`}>{text}</article>;
  }
  function Card({ runId, callId }: { runId: string; callId: string }) {
    renders.card++;
    const c = useCard(runId, callId)!;
    return (
      <span role="status" aria-label={c.name}>
        {c.status}
      </span>
    );
  }
  function Approvals() {
    renders.approvals++;
    const pending = usePendingApprovals();
    useMode();
    return (
      <ul aria-label="Waiting for you">
        {pending.map((p) => (
          <li key={p.id}>
            {p.id} {p.request.action.tool}
          </li>
        ))}
      </ul>
    );
  }
  render(
    <SessionStoreProvider store={store}>
      <Approvals />
      <Transcript />
    </SessionStoreProvider>,
  );
}

describe("useFollow", () => {
  it("follows while mounted and resumes after the last seq when mounted again", async () => {
    const log = journey();
    const t = new FakeTransport();
    t.stored = log.events.slice(0, 10);
    const store = createSessionStore(log.sessionId);
    function Follower() {
      useFollow(store, t.subscribe);
      return null;
    }
    const first = render(<Follower />);
    await act(flush);
    expect(lastSeq(store.getState())).toBe(10);
    first.unmount();
    expect(t.listeners.size).toBe(0);
    t.publish(log.events[10]!);
    render(<Follower />);
    await act(flush);
    expect(t.subscribedAfter).toEqual([0, 10]);
    expect(lastSeq(store.getState())).toBe(11);
  });
});

describe("session store cards", () => {
  it("keys cards by run, so a model reusing call IDs across runs keeps both", () => {
    const log = new Log();
    for (const run of ["run_1", "run_2"]) {
      log.runStart(run, "p");
      log.stepStart(run, 1);
      log.call(run, 1, 0, "call_0", "read", "{}");
      log.end(run, 1, 0, "call_0", "read", "done", run);
      log.runEnd(run, "completed");
    }
    const store = createSessionStore(log.sessionId);
    store.getState().apply(log.events);
    const s = store.getState().conversation;
    expect(cardOf(s, "run_1", "call_0")!.result!.text).toBe("run_1");
    expect(cardOf(s, "run_2", "call_0")!.result!.text).toBe("run_2");
  });
});

// longHistory is runs of 2 steps of 5 write calls, each with a file change:
// 20 runs make about 1,300 events.
function longHistory(runs: number): Log {
  const log = new Log();
  for (let r = 0; r < runs; r++) {
    const run = "run_" + r;
    log.runStart(run, "prompt " + r);
    for (let st = 1; st <= 2; st++) {
      log.stepStart(run, st);
      log.text(run, st, "word ");
      for (let c = 0; c < 5; c++) {
        const id = `call_${st}_${c}`;
        log.call(run, st, c, id, "write", '{"path":"a.txt"}');
        log.running(run, st, id);
        const fc = fileChange(`chg_${r}_${st}_${c}`, run, id, `${WORKDIR}/f${r}_${st}_${c}.txt`, "edit");
        log.end(run, st, c, id, "write", "done", "ok", { fileChanges: [fc] });
      }
      log.stepEnd(run, st, "tool_calls", 5);
    }
    log.runEnd(run, "completed", "", 2);
  }
  return log;
}

const areas = (s: SessionStore) => {
  const { conversation, approvals, changes } = s.getState();
  return { conversation, approvals, changes };
};

describe("session store batches: one store update and one copy per record, whatever the batch", () => {
  it("never writes the objects of the state a batch started from, and keeps what the batch did not touch", () => {
    const log = longHistory(6);
    const cut = log.events.findIndex((e) => e.type === "run.start" && e.runId === "run_3");
    const store = createSessionStore(log.sessionId);
    store.getState().apply(log.events.slice(0, cut));
    const before = areas(store);
    const copy = structuredClone(before);
    store.getState().apply(log.events.slice(cut));
    expect(before).toEqual(copy);
    const after = store.getState();
    expect(after.conversation.turns["run_0"]).toBe(before.conversation.turns["run_0"]);
    expect(after.conversation.cards["run_0"]).toBe(before.conversation.cards["run_0"]);
    expect(after.changes.byId["chg_0_1_0"]).toBe(before.changes.byId["chg_0_1_0"]);
    expect(after.conversation).toEqual(reduceAll(applyConversation, initialConversation, log.events));
    expect(after.changes).toEqual(reduceAll(applyChanges, initialChanges, log.events));
  });

  it("skips a bad event of a batch whole, as one event at a time does", () => {
    const log = longHistory(1);
    // A change list with a hole, and a call ended with a text of the wrong type.
    log.end("run_0", 1, 9, "call_new", "write", "done", "ok", { fileChanges: [fileChange("chg_bad", "run_0", "call_new", "/x", "edit"), null] });
    log.add("tool.end", { step: 1, index: 8, id: "call_txt", name: "read", status: "done", text: 5 }, "run_0");
    const store = createSessionStore(log.sessionId);
    store.getState().apply(log.events);
    const { conversation, changes } = store.getState();
    expect(changes).toEqual(reduceAll(applyChanges, initialChanges, log.events));
    expect(changes.byId["chg_bad"]).toBeUndefined();
    expect(conversation).toEqual(reduceAll(applyConversation, initialConversation, log.events));
    expect(cardOf(conversation, "run_0", "call_txt")).toBeUndefined();
    expect(lastSeq(store.getState())).toBe(log.events.length);
  });

  it("folds a long replay in slices, a task each, publishes once, then applies what came meanwhile", async () => {
    const log = longHistory(20);
    const live = log.events.pop()!;
    const t = new FakeTransport();
    t.stored = [...log.events];
    const store = createSessionStore(log.sessionId);
    let updates = 0;
    store.subscribe(() => updates++);
    follow(store, t.subscribe, { sliceMs: 0 });
    await Promise.resolve();
    await Promise.resolve();
    // The first slice has run and published nothing: the rest waits for later tasks.
    expect(lastSeq(store.getState())).toBe(0);
    t.publish(live);
    // Something else changes an area meanwhile: it is folded again from its new state.
    store.setState({ tasks: { ...store.getState().tasks } });
    expect(updates).toBe(1);
    for (let i = 0; i < 100 && lastSeq(store.getState()) < live.seq; i++) await flush();
    expect(lastSeq(store.getState())).toBe(live.seq);
    // The fold, its publish, then the live event as a batch of its own.
    expect(updates).toBe(3);
    const one = createSessionStore(log.sessionId);
    one.getState().apply(t.stored);
    expect(areas(store)).toEqual(areas(one));
  });

  it("publishes nothing of a sliced fold once it stops following", async () => {
    const log = longHistory(20);
    const t = new FakeTransport();
    t.stored = [...log.events];
    const store = createSessionStore(log.sessionId);
    const stop = follow(store, t.subscribe, { sliceMs: 0 });
    await Promise.resolve();
    stop();
    for (let i = 0; i < 20; i++) await flush();
    expect(lastSeq(store.getState())).toBe(0);
  });
});
