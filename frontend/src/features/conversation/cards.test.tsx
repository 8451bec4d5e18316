// Tool cards that tell the outcome: a shell command's exit status in words
// and colour, the last lines of output without a click, a background
// command's own state, and consecutive file lookups as one card.
import { act, cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import type { BackgroundCommand } from "../../backend/gen/kernel";
import { Log, SESSION, WORKDIR } from "../eventstest";
import { mountConversation } from "./mounttest";
import { outputOf, tailLines } from "./output";

afterEach(cleanup);

const R = "run_1";

function card(name: string): HTMLElement {
  return screen.getByRole("article", { name });
}

function bashLog(): Log {
  const l = new Log();
  l.runStart(R, "run it");
  l.stepStart(R, 1);
  const failing = "sh -c 'echo one; echo two; exit 3'";
  l.call(R, 1, 0, "c1", "bash", JSON.stringify({ command: failing }));
  l.running(R, 1, "c1");
  l.end(R, 1, 0, "c1", "bash", "done", "one\ntwo\n\nExit code 3 after 5ms. Ran without a sandbox.", { exitCode: 3 });
  l.call(R, 1, 1, "c2", "bash", JSON.stringify({ command: "seq 20" }));
  const twenty = Array.from({ length: 20 }, (_, i) => `${i + 1}`).join("\n");
  l.end(R, 1, 1, "c2", "bash", "done", `${twenty}\n\nExit code 0 after 9ms. Ran without a sandbox.`, { exitCode: 0 });
  return l;
}

// spec: D5
describe("a shell command's card", () => {
  it("says a non-zero exit in words with the error look, and a zero exit as success", async () => {
    await mountConversation(bashLog().events);
    const bad = card("bash sh -c 'echo one; echo two; exit 3'");
    const badge = within(bad).getByText("exit 3");
    expect(badge.className).toContain("convo-badge-exit-bad");
    expect(bad.className).toContain("convo-card-failed");
    expect(within(bad).queryByText("done")).toBeNull();
    const ok = card("bash seq 20");
    expect(within(ok).getByText("exit 0").className).toContain("convo-badge-exit-ok");
    expect(ok.className).not.toContain("convo-card-failed");
  });

  it("shows the last lines of output at once and all of it on demand", async () => {
    await mountConversation(bashLog().events);
    const short = card("bash sh -c 'echo one; echo two; exit 3'");
    expect(within(short).getByLabelText("Output of bash sh -c 'echo one; echo two; exit 3'").textContent).toBe("one\ntwo");
    const long = card("bash seq 20");
    const tail = within(long).getByLabelText("Last lines of output of bash seq 20");
    expect(tail.tagName).toBe("PRE");
    expect(tail.textContent).toBe(["13", "14", "15", "16", "17", "18", "19", "20"].join("\n"));
    const more = within(long).getByRole("button", { name: "Show all output (20 lines)" });
    expect(more.getAttribute("aria-expanded")).toBe("false");
    await userEvent.click(more);
    const all = within(long).getByLabelText("Output of bash seq 20");
    expect(all.textContent).toContain("1\n2\n3\n");
    expect(all.textContent).toContain("Exit code 0 after 9ms.");
    await userEvent.click(within(long).getByRole("button", { name: "Hide all output" }));
    expect(within(long).getByLabelText("Last lines of output of bash seq 20")).toBeTruthy();
  });

  it("splits bash's ending off its output", () => {
    const o = outputOf("bash", "a\nExit code 1 after x\n\nExit code 2 after 3ms. Sandboxed.\nnote");
    expect(o.body).toBe("a\nExit code 1 after x");
    expect(o.rest).toBe("Exit code 2 after 3ms. Sandboxed.\nnote");
    expect(outputOf("read", "x\n".repeat(tailLines + 1)).cut).toBe(true);
    expect(outputOf("read", "x\n".repeat(tailLines)).cut).toBe(false);
  });
});

function command(fields: Partial<BackgroundCommand> = {}): BackgroundCommand {
  return {
    id: "bg1",
    sessionId: SESSION,
    command: "npm run dev",
    pid: 4242,
    startedAt: "2026-12-01T11:00:00Z",
    running: true,
    exitCode: 0,
    sandbox: "none",
    outputBytes: 10,
    ...fields,
  };
}

// spec: B1
describe("a background command's card", () => {
  it("says running while the command runs, then how it ended", async () => {
    const l = new Log();
    l.runStart(R, "serve");
    l.stepStart(R, 1);
    l.call(R, 1, 0, "c1", "bash", JSON.stringify({ command: "npm run dev", run_in_background: true }));
    l.end(R, 1, 0, "c1", "bash", "done", "Started in the background with id bg1 (PID 4242).", { background: "bg1", durationMs: 341 });
    const { t } = await mountConversation(l.events, {
      replies: { BackgroundCommands: [command()] },
    });
    const c = card("bash npm run dev");
    expect(await within(c).findByText("running")).toBeTruthy();
    expect(c.textContent).not.toContain("done");
    expect(c.textContent).not.toContain("341 ms");
    expect(c.textContent).toContain("in the background as bg1");
    // Where its output is, in words; what the model was told only on demand.
    expect(within(c).getByText(/Its output, its state and Stop are in the Background panel/)).toBeTruthy();
    expect(c.textContent).not.toContain("PID 4242");
    await userEvent.click(within(c).getByRole("button", { name: "Show what the model was told" }));
    expect(within(c).getByLabelText("Output of bash npm run dev").textContent).toBe("Started in the background with id bg1 (PID 4242).");
    await act(async () => {
      t.notice({ type: "background.changed", sessionId: SESSION, seq: 0, time: "", data: { change: "ended", ...command({ running: false, exitCode: 2, durationNs: 3.5e9 }) } });
      await Promise.resolve();
    });
    const ended = within(c).getByText("exited with code 2 after 3.5 s");
    expect(ended.className).toContain("convo-badge-bg-failed");
    expect(within(c).queryByText("running")).toBeNull();
  });

  it("says when Foya no longer keeps the command", async () => {
    const l = new Log();
    l.runStart(R, "serve");
    l.stepStart(R, 1);
    l.call(R, 1, 0, "c1", "bash", JSON.stringify({ command: "npm run dev", run_in_background: true }));
    l.end(R, 1, 0, "c1", "bash", "done", "Started in the background with id bg1 (PID 4242).", { background: "bg1" });
    await mountConversation(l.events, { replies: { BackgroundCommands: [] } });
    expect(await within(card("bash npm run dev")).findByText("background, no longer kept")).toBeTruthy();
  });
});

function lookups(): Log {
  const l = new Log();
  l.runStart(R, "look around");
  l.stepStart(R, 1);
  ["a.txt", "b.txt", "c.txt"].forEach((f, i) => {
    l.call(R, 1, i, `r${i}`, "read", JSON.stringify({ path: `${WORKDIR}/${f}` }));
    if (i === 1) l.end(R, 1, i, `r${i}`, "read", "error", `read: ${f}: no such file`);
    else l.end(R, 1, i, `r${i}`, "read", "done", `1\tcontents of ${f}`);
  });
  l.call(R, 1, 3, "g1", "grep", JSON.stringify({ pattern: "TODO" }));
  l.end(R, 1, 3, "g1", "grep", "done", "a.txt:1: TODO");
  // Another tool ends the run of lookups: these two are a group of their own.
  l.call(R, 1, 4, "b1", "bash", JSON.stringify({ command: "true" }));
  l.end(R, 1, 4, "b1", "bash", "done", "\nExit code 0 after 1ms.", { exitCode: 0 });
  l.call(R, 1, 5, "g2", "glob", JSON.stringify({ pattern: "*.go" }));
  l.end(R, 1, 5, "g2", "glob", "done", "main.go");
  l.call(R, 1, 6, "g3", "grep", JSON.stringify({ pattern: "func" }));
  l.end(R, 1, 6, "g3", "grep", "done", "main.go:1: func main");
  return l;
}

describe("consecutive file lookups", () => {
  it("group into one card that says what they did and what failed, and expands to the calls", async () => {
    await mountConversation(lookups().events);
    const g = card("Read 3 files, searched once");
    expect(within(g).getByText("1 failed").className).toContain("convo-badge-error");
    expect(within(g).getByText("a.txt, b.txt, c.txt, and 1 more")).toBeTruthy();
    // The individual cards are not shown until asked for.
    expect(screen.queryByRole("article", { name: "read a.txt" })).toBeNull();
    const show = within(g).getByRole("button", { name: "Show the 4 calls" });
    expect(show.getAttribute("aria-expanded")).toBe("false");
    await userEvent.click(show);
    const calls = within(g).getByRole("list", { name: "Calls of Read 3 files, searched once" });
    expect(within(calls).getAllByRole("article").map((a) => a.getAttribute("aria-label"))).toEqual([
      "read a.txt",
      "read b.txt",
      "read c.txt",
      "grep TODO",
    ]);
    expect(within(card("read b.txt")).getByText("error")).toBeTruthy();
    await userEvent.click(within(g).getByRole("button", { name: "Hide the calls" }));
    expect(screen.queryByRole("article", { name: "read a.txt" })).toBeNull();

    const searched = card("Searched 2 times");
    expect(within(searched).getByText("done")).toBeTruthy();
    expect(card("bash true")).toBeTruthy();
  });

  it("keeps a lone lookup as its own card", async () => {
    const l = new Log();
    l.runStart(R, "one");
    l.stepStart(R, 1);
    l.call(R, 1, 0, "r0", "read", JSON.stringify({ path: `${WORKDIR}/a.txt` }));
    l.end(R, 1, 0, "r0", "read", "done", "1\thello");
    await mountConversation(l.events);
    expect(within(card("read a.txt")).getByLabelText("Output of read a.txt").textContent).toBe("1\thello");
  });

  it("says running while a call of the group runs", async () => {
    const l = new Log();
    l.runStart(R, "look");
    l.stepStart(R, 1);
    l.call(R, 1, 0, "r0", "read", JSON.stringify({ path: `${WORKDIR}/a.txt` }));
    l.end(R, 1, 0, "r0", "read", "done", "1\thello");
    l.call(R, 1, 1, "r1", "read", JSON.stringify({ path: `${WORKDIR}/b.txt` }));
    l.running(R, 1, "r1");
    await mountConversation(l.events);
    expect(within(card("Read 2 files")).getByText("running")).toBeTruthy();
  });
});
