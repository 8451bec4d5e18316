// The badge of a task card whose sub-agent waits (a card says waiting for
// approval while any of its sub-agents waits), over the stored events of a real
// session with two sub-agents (testdata/subagent.jsonl).
import { describe, expect, it } from "vitest";
import log from "../testdata/subagent.jsonl?raw";
import type { Event } from "../../backend/gen/event";
import { reduceAll } from "../eventstest";
import { shownStatus } from "./cardStatus";
import { applyConversation, cardOf, initialConversation, type ConversationState } from "./reducer";

const events: Event[] = log
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as Event);
const starts = events.filter((e) => e.type === "run.start");
const parentRun = starts.find((e) => e.parentCallId === undefined)!.runId!;
const seqOf = (pred: (e: Event) => boolean) => events.find(pred)!.seq;
const at = (seq: number) =>
  reduceAll(
    applyConversation,
    initialConversation,
    events.filter((e) => e.seq <= seq),
  );

describe("shownStatus", () => {
  it("says waiting for a task whose sub-agent waits for approval, running once it is answered, done at the end", () => {
    const asked = at(seqOf((e) => e.type === "approval.request"));
    const writer = cardOf(asked, parentRun, "t1")!;
    expect(writer.status).toBe("running");
    expect(shownStatus(asked, writer)).toBe("waiting");
    // The other sub-agent does not wait: its task stays running.
    const lister = cardOf(asked, parentRun, "t2");
    if (lister !== undefined && lister.status === "running") expect(shownStatus(asked, lister)).toBe("running");

    const answered = at(seqOf((e) => e.type === "approval.answer"));
    expect(shownStatus(answered, cardOf(answered, parentRun, "t1")!)).toBe("running");
    const end = at(events[events.length - 1]!.seq);
    expect(shownStatus(end, cardOf(end, parentRun, "t1")!)).toBe("done");
  });

  it("looks through nested sub-agents, and a cycle in the runs ends the walk", () => {
    const s = at(seqOf((e) => e.type === "approval.request"));
    const writer = cardOf(s, parentRun, "t1")!;
    // An outer task whose sub-agent is the parent run: the wait is two levels down.
    const outer = { ...writer, id: "o1", runId: "outer", childRunId: parentRun };
    const nested: ConversationState = { ...s, cards: { ...s.cards, outer: { o1: outer } } };
    expect(shownStatus(nested, outer)).toBe("waiting");
    // A run that names itself as its own child, with nothing waiting: not waiting, and it ends.
    const loop = { ...writer, id: "l1", runId: "loop", childRunId: "loop" };
    const cyclic: ConversationState = { ...s, cards: { ...s.cards, loop: { l1: loop } } };
    expect(shownStatus(cyclic, loop)).toBe("running");
    // A child run with no events yet.
    const early = { ...writer, childRunId: "not-started" };
    expect(shownStatus(s, early)).toBe("running");
  });
});
