import { act, cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../backend";
import type { Notice } from "../../backend/transport";
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

/** notice is a background.changed notice of command bg1 as cmd makes it, with fields changed. */
function notice(change: string, fields: Partial<BackgroundCommand> = {}): Notice {
  return { type: "background.changed", sessionId: fields.sessionId ?? SID, seq: 0, time: "2026-12-01T11:00:01Z", data: { change, ...cmd(fields) } };
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
    // The tail is live: read again when a notice says the command printed more.
    t.replies.BackgroundOutput = output(cmd(), "ready on :5173\nGET / 200\nGET /app.js 200\n");
    act(() => t.notice(notice("output", { outputBytes: 4096 })));
    await waitFor(() => expect(log.textContent).toContain("GET /app.js 200"));
    expect(bg1!.textContent).toContain("printed 4.0 KiB");
  });

  it("follows the end of the output as it grows, unless the person scrolled up", async () => {
    const user = userEvent.setup();
    const { t } = mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, {
      BackgroundCommands: [cmd()],
      BackgroundOutput: output(cmd(), "line 1\n"),
    }, SID);
    const log = await screen.findByRole("log", { name: "Output of bg1" });
    // jsdom lays nothing out: the log's sizes are given here, its offset kept.
    let height = 500;
    let top = 0;
    Object.defineProperty(log, "scrollHeight", { configurable: true, get: () => height });
    Object.defineProperty(log, "clientHeight", { configurable: true, get: () => 100 });
    Object.defineProperty(log, "scrollTop", { configurable: true, get: () => top, set: (v: number) => (top = v) });
    const more = async (text: string, bytes: number) => {
      t.replies.BackgroundOutput = output(cmd(), text);
      act(() => t.notice(notice("output", { outputBytes: bytes })));
      await waitFor(() => expect(log.textContent).toBe(text));
    };

    await more("line 1\nline 2\n", 4096);
    expect(top).toBe(500); // at the end: following
    expect(screen.queryByRole("button", { name: /Jump to latest/ })).toBeNull();

    // The person scrolls up to read: the view stays there as more comes.
    top = 120;
    fireEvent.scroll(log);
    height = 800;
    await more("line 1\nline 2\nline 3\n", 8192);
    expect(top).toBe(120);
    const jump = screen.getByRole("button", { name: "Jump to latest output of bg1" });
    await user.click(jump);
    expect(top).toBe(800);
    expect(screen.queryByRole("button", { name: /Jump to latest/ })).toBeNull();

    // Following again: the next output is followed.
    height = 900;
    await more("line 1\nline 2\nline 3\nline 4\n", 9000);
    expect(top).toBe(900);
  });

  it("stops a command and shows how it ended, from the kill's answer", async () => {
    const user = userEvent.setup();
    const { t } = mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, {
      BackgroundCommands: [cmd()],
      BackgroundOutput: output(cmd(), ""),
      KillBackground: cmd({ running: false, killed: true, signal: "terminated", durationNs: 2e9 }),
    }, SID);
    const stop = await screen.findByRole("button", { name: "Stop bg1" });
    expect(await screen.findByText("No output yet.")).toBeTruthy();
    await user.click(stop);
    expect(argsOf(t, "KillBackground")).toEqual([[SID, "bg1"]]);
    expect((await screen.findByText(/bg1 stopped/)).textContent).toBe(
      "bg1 stopped: stopped on request after 2.0 s; its whole process tree was ended.",
    );
    await waitFor(() => expect(screen.queryByRole("button", { name: "Stop bg1" })).toBeNull());
    expect(t.callsOf("BackgroundCommands")).toBe(1);
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

  // The panel follows its commands from background.changed notices alone:
  // no timer reads the kernel, and no tool name is looked at.
  it("follows the session's commands from notices, with no timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval"] });
    try {
      const { t, store } = mount(<BackgroundPanel sessionId={SID} onClose={() => {}} />, {
        BackgroundCommands: [],
        BackgroundOutput: output(cmd(), "ready\n"),
      }, SID);
      expect(vi.getTimerCount()).toBe(0);
      await vi.waitFor(() => expect(screen.getByText(/No background commands in this session/)).toBeTruthy());
      expect(t.subscribers().notices).toBe(1);

      // Session events, a bash call's end among them, do not make it list again.
      const log = new Log(SID);
      log.runStart("run_1", "start the dev server");
      log.stepStart("run_1", 1);
      log.call("run_1", 1, 0, "call_b", "bash", '{"command":"npm run dev","run_in_background":true}');
      log.end("run_1", 1, 0, "call_b", "bash", "done", "Started in the background with id bg1 (PID 4242).");
      act(() => store.getState().apply(log.events));
      act(() => t.notice(notice("started", { outputBytes: 0 })));
      act(() => t.notice(notice("started", { id: "bg9", sessionId: "ses_other" })));
      const list = await vi.waitFor(() => screen.getByRole("list", { name: "Background commands of this session" }));
      expect(within(list).getAllByRole("listitem")).toHaveLength(1);
      expect(list.textContent).toContain("Running (PID 4242)");
      expect(await vi.waitFor(() => screen.getByRole("log", { name: "Output of bg1" }).textContent)).toBe("ready\n");
      const reads = t.callsOf("BackgroundOutput");

      act(() => t.notice(notice("ended", { running: false, exitCode: 0, durationNs: 5e8, outputBytes: 6 })));
      await vi.waitFor(() => expect(list.textContent).toContain("Exited with code 0 after 500 ms"));
      expect(screen.getByRole("status").textContent).toBe("1 ended");
      // Its tail is read once more, for the end of its output.
      await vi.waitFor(() => expect(t.callsOf("BackgroundOutput")).toBe(reads + 1));

      // Time passes: nothing is read again, nothing is waiting on a timer.
      vi.advanceTimersByTime(60_000);
      expect(vi.getTimerCount()).toBe(0);
      expect(t.callsOf("BackgroundCommands")).toBe(1);
      expect(t.callsOf("BackgroundOutput")).toBe(reads + 1);

      // A stream that came back lists again: notices are not replayed.
      t.replies.BackgroundCommands = [cmd({ running: false, exitCode: 0, durationNs: 5e8, outputBytes: 6 })];
      act(() => t.reconnect());
      await vi.waitFor(() => expect(t.callsOf("BackgroundCommands")).toBe(2));
    } finally {
      vi.useRealTimers();
    }
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
