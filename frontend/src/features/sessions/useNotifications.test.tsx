import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeTransport, session } from "../../backend/fake";
import { Log } from "../eventstest";
import { noteOf, useNotifications } from "./useNotifications";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

let shown: { title: string; body: string | undefined; tag: string | undefined }[] = [];
beforeEach(() => {
  shown = [];
  vi.stubGlobal(
    "Notification",
    class {
      static permission = "granted";
      onclick = null;
      constructor(title: string, opts: NotificationOptions) {
        shown.push({ title, body: opts.body, tag: opts.tag });
      }
      close() {}
    },
  );
});

function Notifier(props: { transport: FakeTransport }) {
  useNotifications(props.transport, [session({ id: "ses_01", title: "Fix the flaky test" })]);
  return null;
}

// spec: W3 — the browser notifies of approvals and of runs that end,
// naming the session, and obeys the settings of each kind.
describe("useNotifications", () => {
  it("names the session and what waits", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.ask("run_1", "apr_1", "call_1", { kind: "shell", tool: "bash", command: "make test" });
    log.runEnd("run_1", "failed", "the model server did not answer: start it and send again");
    log.runStart("run_2", "p");
    log.runEnd("run_2", "completed");
    log.runStart("run_3", "p");
    log.runEnd("run_3", "cancelled", "cancelled");
    const notes = log.events.map((e) => noteOf(e, "Fix the flaky test")).filter((n) => n !== null);
    expect(notes).toEqual([
      { kind: "approval", title: "Approval waiting in “Fix the flaky test”", body: "Run a command? make test", tag: "apr_1" },
      {
        kind: "run_failed",
        title: "Run failed in “Fix the flaky test”",
        body: "the model server did not answer: start it and send again The session waits for you.",
        tag: "run_1",
      },
      {
        kind: "run_ended",
        title: "Run ended in “Fix the flaky test”",
        body: "The agent finished its turn; the session waits for your next message.",
        tag: "run_2",
      },
    ]);
  });

  it("notifies while the window is not focused, each kind unless turned off", async () => {
    vi.spyOn(document, "hasFocus").mockReturnValue(false);
    const t = new FakeTransport({ Settings: { "notify.approval": "true", "notify.runEnded": "false", "notify.runFailed": "true" } });
    render(<Notifier transport={t} />);
    const log = new Log();
    log.runStart("run_1", "p");
    log.ask("run_1", "apr_1", "call_1", { kind: "shell", tool: "bash", command: "make" });
    log.runEnd("run_1", "completed");
    log.runStart("run_2", "p");
    log.runEnd("run_2", "failed", "boom");
    for (const ev of log.events) t.push(ev);
    await waitFor(() => expect(shown.map((s) => s.title)).toEqual(["Approval waiting in “Fix the flaky test”", "Run failed in “Fix the flaky test”"]));
    expect(t.callsOf("Settings")).toBe(3); // read at each notification: a change applies at once
  });

  it("shows nothing while the window is focused", async () => {
    vi.spyOn(document, "hasFocus").mockReturnValue(true);
    const t = new FakeTransport({ Settings: {} });
    render(<Notifier transport={t} />);
    const log = new Log();
    log.runStart("run_1", "p");
    log.runEnd("run_1", "completed");
    for (const ev of log.events) t.push(ev);
    await Promise.resolve();
    expect(t.callsOf("Settings")).toBe(0);
    expect(shown).toEqual([]);
  });
});
