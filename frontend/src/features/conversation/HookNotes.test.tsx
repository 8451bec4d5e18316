// What hooks did, in the transcript (docs/hooks.md): a denial, a note and
// a failure on the card of the call they ran for; a turn_end hook and a
// skipped hooks file at the turn's end; a hook that answered nothing is
// not shown.
import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { Log, WORKDIR, reduceAll } from "../eventstest";
import { applyConversation, cardOf, initialConversation } from "./reducer";
import { mountConversation } from "./mounttest";
import { hookShown, hookText } from "./HookNotes";

afterEach(cleanup);

const R = "run_1";
const FILE = WORKDIR + "/.foya/hooks.json";

function hookLog(): Log {
  const l = new Log();
  l.runStart(R, "go");
  l.add("hook.run", { source: "project", file: FILE, status: "skipped", error: "changed since you approved it", durationMs: 0 }, R);
  l.stepStart(R, 1);
  l.call(R, 1, 0, "c1", "bash", JSON.stringify({ command: "rm -rf build" }));
  l.running(R, 1, "c1");
  l.add("hook.run", { hook: "guard", event: "before_tool", source: "user", file: "/d/hooks.json", callId: "c1", tool: "bash", status: "ok", decision: "deny", reason: "no rm -rf", exitCode: 0, durationMs: 4 }, R);
  l.end(R, 1, 0, "c1", "bash", "error", 'denied by the user hook "guard" (/d/hooks.json): no rm -rf');
  l.call(R, 1, 1, "c2", "bash", JSON.stringify({ command: "go test ./..." }));
  l.running(R, 1, "c2");
  l.add("hook.run", { hook: "quiet", event: "before_tool", source: "user", file: "/d/hooks.json", callId: "c2", tool: "bash", status: "ok", exitCode: 0, durationMs: 2 }, R);
  l.add("hook.run", { hook: "tests", event: "after_tool", source: "user", file: "/d/hooks.json", callId: "c2", tool: "bash", status: "ok", note: "3 tests passed", exitCode: 0, durationMs: 9 }, R);
  l.add("hook.run", { hook: "lint", event: "after_tool", source: "user", file: "/d/hooks.json", callId: "c2", tool: "bash", status: "failed", error: "it exited with status 2", output: "lint: no config\n", exitCode: 2, durationMs: 9 }, R);
  l.end(R, 1, 1, "c2", "bash", "done", "ok", { exitCode: 0 });
  l.stepEnd(R, 1, "tool_calls", 2);
  l.add("hook.run", { hook: "notify", event: "turn_end", source: "user", file: "/d/hooks.json", status: "failed", error: "it did not end within 1s (its timeout), so Foya stopped it", durationMs: 1000 }, R);
  l.runEnd(R, "completed", "", 1);
  return l;
}

describe("hook runs", () => {
  it("go on the card of the call they ran for, or on the turn", () => {
    const s = reduceAll(applyConversation, initialConversation, hookLog().events);
    expect(cardOf(s, R, "c1")!.hooks.map((h) => [h.hook, h.decision, h.reason])).toEqual([["guard", "deny", "no rm -rf"]]);
    expect(cardOf(s, R, "c2")!.hooks.map((h) => h.hook)).toEqual(["quiet", "tests", "lint"]);
    expect(s.turns[R]!.hooks.map((h) => [h.status, h.hook])).toEqual([
      ["skipped", ""],
      ["failed", "notify"],
    ]);
  });

  it("are said in words; one that answered nothing is not shown", () => {
    const s = reduceAll(applyConversation, initialConversation, hookLog().events);
    const [quiet, tests, lint] = cardOf(s, R, "c2")!.hooks;
    expect(hookShown(quiet!)).toBe(false);
    expect(hookText(tests!)).toBe("Your hook “tests” noted: “3 tests passed”.");
    expect(hookText(lint!)).toBe("Your hook “lint” failed: it exited with status 2.");
    expect(hookText(cardOf(s, R, "c1")!.hooks[0]!)).toBe("Your hook “guard” denied this call: no rm -rf.");
    expect(hookText(s.turns[R]!.hooks[0]!)).toBe(`The project's hooks (${FILE}) did not run: changed since you approved it.`);
  });

  it("show a denial, a note and a failure with its output on the card, and the turn's at its end", async () => {
    await mountConversation(hookLog().events);
    const denied = screen.getByRole("article", { name: "bash rm -rf build" });
    expect(within(denied).getByRole("list", { name: "Hooks" }).textContent).toContain("denied this call: no rm -rf");
    const ran = screen.getByRole("article", { name: "bash go test ./..." });
    const hooks = within(ran).getByRole("list", { name: "Hooks" });
    expect(within(hooks).getAllByRole("listitem")).toHaveLength(2);
    expect(hooks.textContent).toContain("“3 tests passed”");
    expect(hooks.textContent).toContain("failed: it exited with status 2");
    expect(within(hooks).getByText("lint: no config")).toBeTruthy();
    expect(hooks.textContent).not.toContain("quiet");
    const turnHooks = screen.getAllByRole("list", { name: "Hooks" }).find((l) => l.closest("article") === null)!;
    expect(turnHooks.textContent).toContain("Your hook “notify” failed: it did not end within 1s");
    expect(turnHooks.textContent).toContain("did not run: changed since you approved it");
  });

  it("offer to review and approve a project's hooks file that did not run, as Settings does", async () => {
    const content = '{"hooks":[{"event":"before_tool","command":"sh guard.sh"}]}';
    const file = { source: "project", file: FILE, status: "changed", content, hash: "cd".repeat(32), hooks: [] };
    const { t } = await mountConversation(hookLog().events, {
      replies: { Hooks: { workdir: WORKDIR, user: { source: "user", file: "/d/hooks.json", status: "none", hooks: [] }, project: file }, TrustProjectHooks: null },
    });
    const user = userEvent.setup();
    const turnHooks = screen.getAllByRole("list", { name: "Hooks" }).find((l) => l.closest("article") === null)!;
    await user.click(within(turnHooks).getByRole("button", { name: "Review and approve…" }));
    const dialog = await screen.findByRole("alertdialog");
    expect(within(dialog).getByLabelText("The hooks file to approve").textContent).toBe(content);
    await user.click(within(dialog).getByRole("button", { name: "Approve" }));
    expect((await within(turnHooks).findByRole("status")).textContent).toContain("Approved");
    expect(t.calls.filter((c) => c.method === "Hooks").map((c) => c.args)).toEqual([[WORKDIR]]);
    expect(t.calls.filter((c) => c.method === "TrustProjectHooks").map((c) => c.args)).toEqual([[WORKDIR, "cd".repeat(32)]]);
  });
});
