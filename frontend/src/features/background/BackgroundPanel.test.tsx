import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../backend";
import type { BackgroundCommand, BackgroundOutput } from "../../backend/gen/kernel";
import { Log } from "../eventstest";
import { argsOf, mount } from "../settings/testkit";
import { BackgroundPanel } from "./index";

afterEach(cleanup);

const SID = "ses_01";

function cmd(fields: Partial<BackgroundCommand> = {}): BackgroundCommand {
  return {
    id: "bg1",
    sessionId: SID,
    command: "npm run dev",
    pid: 4242,
    startedAt: "2026-12-01T11:00:00Z",
    running: true,
    exitCode: 0,
    sandbox: "landlock",
    outputBytes: 2048,
    ...fields,
  };
}

function output(c: BackgroundCommand, text: string, omitted = 0): BackgroundOutput {
  return { command: c, text, omitted };
}

describe("BackgroundPanel", () => {
  it("lists the session's commands with status and the live tail of a running one", async () => {
    const ended = cmd({ id: "bg2", command: "make test", running: false, exitCode: 2, durationNs: 3.5e9, sandbox: "none", outputBytes: 10 });
    const { t } = mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, {
      BackgroundCommands: [cmd(), ended],
      BackgroundOutput: output(cmd(), "ready on :5173\nGET / 200\n", 1500),
    }, SID);
    const list = await screen.findByRole("list", { name: "Background commands of this session" });
    const [bg1, bg2] = within(list).getAllByRole("listitem");
    expect(within(bg1!).getByRole("heading").textContent).toBe("bg1");
    expect(bg1!.textContent).toContain("Running (PID 4242)");
    expect(bg1!.textContent).toContain("npm run dev");
    expect(bg1!.textContent).toContain("sandbox: landlock");
    expect(bg1!.textContent).toContain("printed 2.0 KiB");
    expect(bg2!.textContent).toContain("Exited with code 2 after 3.5 s");
    expect(bg2!.textContent).toContain("no sandbox");
    expect(within(bg2!).queryByRole("button", { name: "Stop bg2" })).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("1 running, 1 ended");

    const log = await within(bg1!).findByRole("log", { name: "Output of bg1" });
    expect(log.textContent).toBe("ready on :5173\nGET / 200\n");
    expect(bg1!.textContent).toContain("1.5 KiB printed earlier are not shown");
    expect(argsOf(t, "BackgroundOutput")[0]).toEqual([SID, "bg1", 200]);
    // The tail is live: read again while the command runs.
    t.replies.BackgroundOutput = output(cmd(), "ready on :5173\nGET / 200\nGET /app.js 200\n");
    await waitFor(() => expect(log.textContent).toContain("GET /app.js 200"), { timeout: 3000 });
  });

  it("stops a command and shows how it ended; the list is read again", async () => {
    const user = userEvent.setup();
    const { t } = mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, {
      BackgroundCommands: [cmd()],
      BackgroundOutput: output(cmd(), ""),
      KillBackground: cmd({ running: false, killed: true, signal: "terminated", durationNs: 2e9 }),
    }, SID);
    const stop = await screen.findByRole("button", { name: "Stop bg1" });
    expect(await screen.findByText("No output yet.")).toBeTruthy();
    const before = t.callsOf("BackgroundCommands");
    t.replies.BackgroundCommands = [cmd({ running: false, killed: true, signal: "terminated", durationNs: 2e9 })];
    await user.click(stop);
    expect(argsOf(t, "KillBackground")).toEqual([[SID, "bg1"]]);
    expect((await screen.findByText(/bg1 stopped/)).textContent).toBe(
      "bg1 stopped: stopped on request after 2.0 s; its whole process tree was ended.",
    );
    await waitFor(() => expect(t.callsOf("BackgroundCommands")).toBeGreaterThan(before));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Stop bg1" })).toBeNull());
    expect(screen.getByRole("list", { name: "Background commands of this session" }).textContent).toContain("Stopped on request after 2.0 s");
  });

  it("shows a failed stop in words", async () => {
    const user = userEvent.setup();
    mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, {
      BackgroundCommands: [cmd()],
      BackgroundOutput: output(cmd(), "x\n"),
      KillBackground: new ApiError("not_found", "background command bg1 of session ses_01: no such background command"),
    }, SID);
    await user.click(await screen.findByRole("button", { name: "Stop bg1" }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "bg1 was not stopped: background command bg1 of session ses_01: no such background command",
    );
  });

  it("lists again when a shell call or a run ends (stale), not on other events", async () => {
    const { t, store } = mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, { BackgroundCommands: [] }, SID);
    expect(await screen.findByText(/No background commands in this session/)).toBeTruthy();
    expect(t.callsOf("BackgroundCommands")).toBe(1);

    const log = new Log(SID);
    log.runStart("run_1", "start the dev server");
    log.stepStart("run_1", 1);
    log.text("run_1", 1, "Starting it.");
    act(() => store.getState().apply(log.events));
    await new Promise((r) => setTimeout(r, 20));
    expect(t.callsOf("BackgroundCommands")).toBe(1);

    t.replies.BackgroundCommands = [cmd({ running: false, exitCode: 0, durationNs: 5e8 })];
    log.call("run_1", 1, 0, "call_b", "bash", '{"command":"npm run dev","run_in_background":true}');
    log.end("run_1", 1, 0, "call_b", "bash", "done", "Started in the background with id bg1 (PID 4242).");
    act(() => store.getState().apply(log.events));
    await waitFor(() => expect(t.callsOf("BackgroundCommands")).toBe(2));
    expect((await screen.findByRole("list", { name: "Background commands of this session" })).textContent).toContain(
      "Exited with code 0 after 500 ms",
    );
    // Listed after the events it had: not stale, nothing runs, no more lists.
    await new Promise((r) => setTimeout(r, 50));
    expect(t.callsOf("BackgroundCommands")).toBe(2);
  });

  it("shows a list error with a way to try again, and closes", async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    const { t } = mount(<BackgroundPanel sessionId={SID} onClose={onClose} />, {
      BackgroundCommands: new ApiError("unavailable", "the kernel is not open: restart Foya"),
    }, SID);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Could not list the background commands");
    expect(alert.textContent).toContain("the kernel is not open: restart Foya");
    t.replies.BackgroundCommands = [];
    await user.click(within(alert).getByRole("button", { name: "Try again" }));
    expect(await screen.findByText(/No background commands in this session/)).toBeTruthy();
    expect(t.callsOf("BackgroundCommands")).toBe(2);
    await user.click(screen.getByRole("button", { name: "Close background commands" }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
