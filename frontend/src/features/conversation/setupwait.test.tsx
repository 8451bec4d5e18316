// The composer of an isolated session (issue 29 item 1): while its setup
// command runs, runs wait (the kernel refuses them busy), so a message is
// queued and sent when setup ends; once its copy is discarded, no run can
// start.
import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { Log } from "../eventstest";
import { discardedReason } from "./ConversationView";
import { mountConversation } from "./mounttest";

afterEach(cleanup);

describe("the composer of an isolated session", () => {
  it("queues a message while setup runs and sends it when setup ends, even a failed one", async () => {
    const log = new Log();
    log.add("isolation.setup", { command: "npm ci", state: "running" });
    const { t, push } = await mountConversation(log.events, { replies: { Run: "run_1" } });
    expect(screen.getByText(/The isolated copy’s setup command is running: runs wait for it/)).toBeTruthy();
    const user = userEvent.setup();
    await user.type(screen.getByRole("textbox", { name: "Message" }), "Build it{Enter}");
    expect(screen.getByRole("list", { name: "Queued messages" }).textContent).toContain("Build it");
    expect(t.callsOf("Run")).toBe(0);
    await push([log.add("isolation.setup", { command: "npm ci", state: "failed", exitCode: 1, error: "exit status 1" })]);
    await waitFor(() => expect(t.calls.find((c) => c.method === "Run")?.args).toEqual([log.sessionId, "Build it"]));
  });

  it("says the copy was discarded and sends nothing", async () => {
    const log = new Log();
    log.add("isolation.discarded", { kind: "copy", dir: "/data/copies/s" });
    const { t } = await mountConversation(log.events, { replies: { Run: "run_1" } });
    expect(screen.getByText(discardedReason)).toBeTruthy();
    const box = screen.getByRole("textbox", { name: "Message" });
    expect(box.getAttribute("aria-disabled")).toBe("true");
    await userEvent.setup().type(box, "Go{Enter}");
    expect(t.callsOf("Run")).toBe(0);
  });
});
