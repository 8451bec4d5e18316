// Sub-agents in the conversation, over a real session's
// stored events (testdata/subagent.jsonl, recorded by the Go test
// TestSubAgentApprovalNamesTheChild with FOYA_RECORD_SUBAGENT set): in
// Manual, the model starts two sub-agents at once, "note writer" (whose
// write asks and is allowed) and "file lister" (tools glob and read, which
// reasons, globs and answers in markdown); their events interleave in the
// session's log, each naming its task call (parentCallId).
import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import log from "../testdata/subagent.jsonl?raw";
import type { Event } from "../../backend/gen/event";
import { itKeepsSeqOrder, reduceAll } from "../eventstest";
import { applyChanges, initialChanges } from "../changes/reducer";
import { applySessions, initialSessions, statusOf } from "../sessions/reducer";
import { applyConversation, cardOf, childOf, initialConversation, lastAnswer } from "./reducer";
import { mountConversation } from "./mounttest";

afterEach(cleanup);

const events: Event[] = log
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as Event);
const starts = events.filter((e) => e.type === "run.start");
const parentRun = starts.find((e) => e.parentCallId === undefined)!.runId!;
const childRun = (callId: string) => starts.find((e) => e.parentCallId === callId)!.runId!;
const upTo = (seq: number) => events.filter((e) => e.seq <= seq);
const seqOf = (pred: (e: Event) => boolean) => events.find(pred)!.seq;

describe("a session with sub-agents, folded", () => {
  it("has one turn in the conversation, and each task card points at its sub-agent's turn", () => {
    const s = reduceAll(applyConversation, initialConversation, events);
    expect(s.entries).toEqual([{ kind: "turn", id: parentRun }]);
    expect(s.turns[parentRun]!.steps.map((st) => st.cards)).toEqual([["t1", "t2"], []]);
    for (const [call, description] of [
      ["t1", "note writer"],
      ["t2", "file lister"],
    ] as const) {
      const card = cardOf(s, parentRun, call)!;
      expect(card).toMatchObject({ name: "task", status: "done", childRunId: childRun(call) });
      expect(childOf(s, card)).toMatchObject({
        parentCallId: call,
        parentRunId: parentRun,
        description,
        status: "completed",
        approvalMode: "manual",
      });
    }
    const writer = childOf(s, cardOf(s, parentRun, "t1")!)!;
    expect(writer.steps.map((st) => st.cards)).toEqual([["w1"], []]);
    expect(cardOf(s, writer.id, "w1")).toMatchObject({ name: "write", status: "done", approval: { state: "allowed" } });
    expect(lastAnswer(s, writer)).toBe("wrote it");
    const lister = childOf(s, cardOf(s, parentRun, "t2")!)!;
    expect(cardOf(s, lister.id, "g1")).toMatchObject({ name: "glob", status: "done" });
    expect(s.streams[lister.id]![1]!.reasoning).toBe("a glob will do");
    expect(lastAnswer(s, lister)).toBe("The folder has **a.go**.");
    // The sub-agents' text is theirs, not the parent's.
    expect(s.streams[parentRun]).toEqual({ 1: { text: "I'll ask two helpers.", reasoning: "" }, 2: { text: "Both helpers are done.", reasoning: "" } });
  });

  it("shows a child's approval on the child's card while it waits", () => {
    const asked = seqOf((e) => e.type === "approval.request");
    const s = reduceAll(applyConversation, initialConversation, upTo(asked));
    expect(cardOf(s, childRun("t1"), "w1")).toMatchObject({ status: "waiting", approval: { state: "pending" } });
    expect(cardOf(s, parentRun, "t1")).toMatchObject({ status: "running" });
  });

  itKeepsSeqOrder("conversation", () => ({ events }));

  it("groups a sub-agent's file changes with its turn's (review panel)", () => {
    const s = reduceAll(applyChanges, initialChanges, events);
    expect(s.groups).toHaveLength(1);
    expect(s.groups[0]!.runId).toBe(parentRun);
    const [id] = s.groups[0]!.changes as [string];
    expect(s.byId[id]).toMatchObject({ runId: childRun("t1"), callId: "w1", path: "/home/me/project/note.txt" });
  });

  it("keeps the session running while a sub-agent ends (sessions list)", () => {
    const firstChildEnd = seqOf((e) => e.type === "run.end" && e.parentCallId !== undefined);
    const sid = events[0]!.sessionId;
    const mid = reduceAll(applySessions, initialSessions, upTo(firstChildEnd));
    expect(statusOf(mid, sid)).toMatchObject({ running: true, runId: parentRun });
    const end = reduceAll(applySessions, initialSessions, events);
    expect(statusOf(end, sid)).toMatchObject({ running: false, lastEnd: "completed" });
  });
});

const mount = (evs: Event[]) => mountConversation(evs, { sessionId: events[0]!.sessionId });

describe("the task card", () => {
  it("nests its sub-agent: description, status, tool calls collapsed until asked for, and the answer", async () => {
    await mount(events);
    const convo = screen.getByRole("log", { name: "Conversation" });
    // The sub-agents' cards are not cards of the conversation until opened.
    expect(within(convo).queryByRole("article", { name: "write note.txt" })).toBeNull();
    const lister = screen.getByRole("article", { name: "task file lister" });
    const agent = within(lister).getByRole("region", { name: "Sub-agent file lister" });
    expect(within(agent).getByRole("status").textContent).toBe("Done in 2 steps.");
    const answer = within(agent).getByRole("region", { name: "Answer of Sub-agent file lister" });
    expect(within(answer).getByText("a.go").tagName).toBe("STRONG");
    // The answer is shown once: the task's result (the same text) is not repeated.
    expect(within(lister).queryByLabelText(/output of task file lister/i)).toBeNull();
    expect(within(lister).queryByRole("button", { name: /Show all output|Show the whole result/ })).toBeNull();

    const show = within(agent).getByRole("button", { name: "Show its tool calls (1)" });
    expect(show.getAttribute("aria-expanded")).toBe("false");
    await userEvent.click(show);
    const calls = within(agent).getByRole("list", { name: "Tool calls of Sub-agent file lister" });
    expect(within(calls).getByRole("article", { name: "glob *" })).toBeTruthy();
    await userEvent.click(within(agent).getByRole("button", { name: "Hide its tool calls" }));
    expect(within(agent).queryByRole("list")).toBeNull();

    await userEvent.click(within(agent).getByRole("button", { name: "Show its prompt" }));
    expect(within(agent).getByLabelText("Prompt of Sub-agent file lister").textContent).toBe("list the files");

    const writer = screen.getByRole("article", { name: "task note writer" });
    const wagent = within(writer).getByRole("region", { name: "Sub-agent note writer" });
    await userEvent.click(within(wagent).getByRole("button", { name: "Show its tool calls (1)" }));
    const write = within(wagent).getByRole("article", { name: "write note.txt" });
    expect(within(write).getByText("done")).toBeTruthy();
    expect(within(wagent).getByRole("region", { name: "Answer of Sub-agent note writer" }).textContent).toContain("wrote it");
  });

  it("shows the sub-agent's live status as its events arrive", async () => {
    const asked = seqOf((e) => e.type === "approval.request");
    const { push } = await mount(upTo(asked));
    const status = () =>
      within(within(screen.getByRole("article", { name: "task note writer" })).getByRole("region", { name: "Sub-agent note writer" }))
        .getByRole("status")
        .textContent;
    expect(status()).toBe("Waiting for your approval (1 call), step 1.");
    const answered = seqOf((e) => e.type === "approval.answer");
    await push(events.filter((e) => e.seq > asked && e.seq <= answered));
    expect(status()).toBe("Working, step 1: running write.");
    await push(events.filter((e) => e.seq > answered));
    expect(status()).toBe("Done in 2 steps.");
    expect(screen.getByRole("article", { name: "task note writer" }).className).toContain("convo-card-done");
  });
});

describe("the task card's badge", () => {
  it("says waiting for approval while its sub-agent waits, running once answered", async () => {
    const asked = seqOf((e) => e.type === "approval.request");
    const { push } = await mount(upTo(asked));
    const badge = () => within(screen.getByRole("article", { name: "task note writer" })).getByText(/^(running|waiting for approval|done)$/);
    expect(badge().textContent).toBe("waiting for approval");
    expect(badge().className).toContain("convo-badge-waiting");
    const answered = seqOf((e) => e.type === "approval.answer");
    await push(events.filter((e) => e.seq > asked && e.seq <= answered));
    expect(badge().textContent).toBe("running");
  });
});

describe("a sub-agent's approval", () => {
  it("shows at the task call, naming the sub-agent", async () => {
    const asked = seqOf((e) => e.type === "approval.request");
    await mount(upTo(asked));
    const task = screen.getByRole("article", { name: "task note writer" });
    const request = within(task).getByRole("region", { name: /\?$/ });
    expect(within(request).getByText("Asked by the sub-agent:").parentElement!.textContent).toBe("Asked by the sub-agent: note writer");
    // Once, at the task call: not again in the sub-agent's own list.
    expect(screen.getAllByRole("region", { name: /\?$/ })).toHaveLength(1);
  });
});
