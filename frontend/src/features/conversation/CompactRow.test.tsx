// Compaction in the transcript (issue 28, spec O5): a row where the
// context was compacted, with what it kept and the summary on demand; Undo
// on the compaction in force once no run goes; a failure says why; the
// context meter's popover compacts on demand.
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import { Log, SESSION } from "../eventstest";
import { mountConversation as mount } from "./mounttest";

afterEach(cleanup);

const compacted = { id: "cmp_1", by: "auto", upto: 40, turns: 2, summary: "## Goal\nShip **the fix**.", note: "[note]", files: 3, tasks: 2, tokensBefore: 26500, tokensAfter: 9100, window: 32768 };

function compactingRun(): Log {
  const log = new Log();
  log.runStart("run_1", "Fix it");
  log.stepStart("run_1", 1);
  log.stepEnd("run_1", 1, "tool_calls", 0);
  log.add("context.compacted", compacted, "run_1");
  log.stepStart("run_1", 2);
  return log;
}

const row = () => screen.getByRole("region", { name: "Compaction" });

describe("a compaction in the transcript", () => {
  it("shows where it happened, what it kept, and the summary when asked", async () => {
    await mount(compactingRun().events);
    const r = row();
    expect(r.textContent).toContain("The context was compacted: messages 1 to 40 (2 turns) are summarised, about 26.5k to 9.1k tokens.");
    expect(r.textContent).toContain("Kept exactly: 3 files changed, 2 tasks, and the newest messages. The full history stays stored.");
    expect(within(r).queryByText("Ship")).toBeNull();
    await userEvent.click(within(r).getByRole("button", { name: "Show the summary" }));
    expect(within(r).getByText("the fix").tagName).toBe("STRONG");
    // Before step 2's row: the step it was made before.
    const rows = [...document.querySelectorAll("[data-item-index]")].map((el) => el.textContent ?? "");
    expect(rows.findIndex((t) => t.includes("compacted"))).toBeLessThan(rows.length - 1);
  });

  it("undoes the compaction in force once the run ended, and says it was undone", async () => {
    const log = compactingRun();
    const { t, push } = await mount(log.events, { replies: { UndoCompaction: null } });
    const undo = within(row()).getByRole("button", { name: "Undo" }) as HTMLButtonElement;
    expect(undo.disabled).toBe(true); // a run goes
    const at = log.events.length;
    log.stepEnd("run_1", 2, "stop", 0);
    log.runEnd("run_1", "completed", "", 2);
    await push(log.events.slice(at));
    await waitFor(() => expect((within(row()).getByRole("button", { name: "Undo" }) as HTMLButtonElement).disabled).toBe(false));
    await userEvent.click(within(row()).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(t.callsOf("UndoCompaction")).toBe(1));
    expect(t.calls.find((c) => c.method === "UndoCompaction")!.args).toEqual([SESSION, "cmp_1"]);
    const at2 = log.events.length;
    log.add("context.uncompacted", { id: "cmp_1" });
    await push(log.events.slice(at2));
    await waitFor(() => expect(row().textContent).toContain("Undone: later requests send those messages again."));
    expect(within(row()).queryByRole("button", { name: "Undo" })).toBeNull();
  });

  it("offers Undo only on the latest compaction, and shows a person's compaction between turns", async () => {
    const log = compactingRun();
    log.stepEnd("run_1", 2, "stop", 0);
    log.runEnd("run_1", "completed", "", 2);
    log.add("context.compacted", { ...compacted, id: "cmp_2", by: "user", upto: 60, turns: 1 });
    await mount(log.events);
    const rows = screen.getAllByRole("region", { name: "Compaction" });
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).queryByRole("button", { name: "Undo" })).toBeNull();
    expect(rows[1]!.textContent).toContain("You compacted the context: messages 1 to 60 (1 turn)");
    expect(within(rows[1]!).getByRole("button", { name: "Undo" })).toBeTruthy();
  });

  it("says why a compaction failed and that nothing was lost", async () => {
    const log = new Log();
    log.runStart("run_1", "Fix it");
    log.stepStart("run_1", 1);
    log.stepEnd("run_1", 1, "tool_calls", 0);
    log.add("context.compact_failed", { by: "auto", error: "the model's summary was empty", stopped: true }, "run_1");
    log.runEnd("run_1", "failed", "the conversation no longer fits");
    await mount(log.events);
    expect(screen.getByText(/Compacting the context failed and the run stopped: the model's summary was empty\. Nothing of the history was lost\./)).toBeTruthy();
  });
});

describe("a sub-agent's compaction", () => {
  it("shows in its task card, without Undo, and is not the session's compaction in force", async () => {
    const log = new Log();
    log.runStart("run_1", "Delegate");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "t1", "task", JSON.stringify({ description: "notes", prompt: "read the notes" }));
    log.running("run_1", 1, "t1");
    const child = { prompt: "read the notes", workdir: "/w", model: "m", provider: "p", approvalMode: "auto", parentRunId: "run_1", description: "notes" };
    log.add("run.start", child, "run_2").parentCallId = "t1";
    log.add("step.start", { step: 1, tools: ["note"] }, "run_2").parentCallId = "t1";
    log.add("context.compacted", { ...compacted, id: "cmp_child" }, "run_2").parentCallId = "t1";
    log.stepEnd("run_1", 1, "stop", 0);
    log.runEnd("run_1", "completed", "", 1);
    await mount(log.events);
    const agent = screen.getByRole("region", { name: "Sub-agent notes" });
    const r = within(agent).getByRole("region", { name: "Compaction" });
    expect(r.textContent).toContain("The sub-agent's context was compacted: messages 1 to 40 (2 turns) are summarised");
    expect(within(r).queryByRole("button", { name: "Undo" })).toBeNull();
    expect(screen.getAllByRole("region", { name: "Compaction" })).toHaveLength(1);
  });
});

describe("the context meter's popover", () => {
  it("compacts now, and says what it did or why it could not", async () => {
    const log = new Log();
    log.runStart("run_1", "Fix it");
    log.stepStart("run_1", 1);
    log.stepEnd("run_1", 1, "stop", 0);
    log.runEnd("run_1", "completed");
    const win = { model: "m", window: 32768, outputLimit: 4096, source: "setting", detail: "the profile's setting" };
    const { t } = await mount(log.events, { replies: { ContextWindow: win, Compact: compacted } });
    const meter = await screen.findByRole("button", { name: /^Context: / });
    await userEvent.click(meter);
    const pop = screen.getByRole("dialog", { name: "Context" });
    const facts = pop.querySelector('dl[aria-label="Context use"]')!;
    expect(facts.textContent).toContain("Windowm: 32,768 tokens, from the profile's setting");
    expect(facts.textContent).toContain("Answersup to 4,096 tokens");
    expect(facts.textContent).toContain("Last request900 tokens (3% of the window)");
    await userEvent.click(within(pop).getByRole("button", { name: "Compact now" }));
    await waitFor(() => expect(within(pop).getByRole("status").textContent).toBe("Compacted: messages 1 to 40 are summarised."));
    // Escape closes the popover and gives the focus back to the meter.
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog", { name: "Context" })).toBeNull();
    expect(document.activeElement).toBe(meter);
    expect(t.calls.find((c) => c.method === "Compact")!.args).toEqual([SESSION]);
  });

  it("says why it could not compact", async () => {
    const log = new Log();
    log.runStart("run_1", "Fix it");
    log.stepStart("run_1", 1);
    log.stepEnd("run_1", 1, "stop", 0);
    log.runEnd("run_1", "completed");
    const win = { model: "m", window: 32768, outputLimit: 4096, source: "setting", detail: "the profile's setting" };
    const why = "compacting failed, nothing changed: the model's summary was empty";
    await mount(log.events, { replies: { ContextWindow: win, Compact: new ApiError("unavailable", why) } });
    await userEvent.click(await screen.findByRole("button", { name: /^Context: / }));
    const pop = screen.getByRole("dialog", { name: "Context" });
    await userEvent.click(within(pop).getByRole("button", { name: "Compact now" }));
    await waitFor(() => expect(within(pop).getByRole("alert").textContent).toBe(why));
  });
});
