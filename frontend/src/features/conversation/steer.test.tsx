// "Send now" on a message queued during a run: it goes to the running run
// (Steer) and leaves the queue once the kernel stored it; if no run took
// it, it stays queued and is sent as the next prompt; if the answer was
// lost, the kernel is asked again by the message's ID before it is sent.
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import { Log, SESSION } from "../eventstest";
import { mountConversation as mount } from "./mounttest";

afterEach(cleanup);

const box = () => screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
const queued = () => screen.queryByRole("list", { name: "Queued messages" });

function running(): Log {
  const log = new Log();
  log.runStart("run_1", "Sleep");
  log.stepStart("run_1", 1);
  return log;
}

describe("Send now during a run", () => {
  it("sends the queued message to the running run, shows its shortcut, and drops it once delivered", async () => {
    const { t } = await mount(running().events, { replies: { Run: "run_2", Steer: { delivered: true } } });
    await userEvent.type(box(), "use tabs{Enter}");
    const send = within(queued()!).getByRole("button", { name: "Send now" });
    expect(send.getAttribute("aria-keyshortcuts")).toBe("Control+Shift+Enter");
    expect(send.textContent).toContain("Ctrl+Shift+Enter");
    await userEvent.click(send);
    await waitFor(() => expect(queued()).toBeNull());
    const args = t.calls.find((c) => c.method === "Steer")!.args[0] as { sessionId: string; id: string; text: string };
    expect(args).toMatchObject({ sessionId: SESSION, text: "use tabs" });
    expect(args.id).toMatch(/^stg_/);
    expect(t.callsOf("Run")).toBe(0);
  });

  it("Ctrl+Shift+Enter in the box steers with the first waiting message", async () => {
    const { t } = await mount(running().events, { replies: { Steer: { delivered: true } } });
    await userEvent.type(box(), "first{Enter}");
    await userEvent.type(box(), "second{Enter}");
    await userEvent.keyboard("{Control>}{Shift>}{Enter}{/Shift}{/Control}");
    await waitFor(() => expect(t.callsOf("Steer")).toBe(1));
    expect((t.calls.find((c) => c.method === "Steer")!.args[0] as { text: string }).text).toBe("first");
    await waitFor(() => expect(within(queued()!).getAllByRole("listitem")).toHaveLength(1));
    expect(within(queued()!).getByText("Queued: second")).toBeTruthy();
  });

  it("keeps a message no run took, and sends it as the next prompt when the run completes", async () => {
    const log = running();
    const { t, push } = await mount(log.events, { replies: { Run: "run_2", Steer: { delivered: false } } });
    await userEvent.type(box(), "rename it{Enter}");
    await userEvent.click(within(queued()!).getByRole("button", { name: "Send now" }));
    await waitFor(() => expect(t.callsOf("Steer")).toBe(1));
    expect(within(queued()!).getByText("Queued: rename it")).toBeTruthy();
    const at = log.events.length;
    log.stepEnd("run_1", 1, "stop", 0);
    log.runEnd("run_1", "completed");
    await push(log.events.slice(at));
    await waitFor(() => expect(t.callsOf("Run")).toBe(1));
    expect(t.calls.find((c) => c.method === "Run")!.args).toEqual([SESSION, "rename it"]);
    expect(t.callsOf("Steer")).toBe(1); // the first answer was known: not asked again
  });

  it("after a lost answer, asks again by the same ID and does not send a message the run stored", async () => {
    const log = running();
    const { t, push } = await mount(log.events, { replies: { Run: "run_2", Steer: new ApiError("unavailable", "the connection dropped") } });
    await userEvent.type(box(), "rename it{Enter}");
    await userEvent.click(within(queued()!).getByRole("button", { name: "Send now" }));
    await waitFor(() => expect(t.callsOf("Steer")).toBe(1));
    expect(within(queued()!).getByText("Queued: rename it")).toBeTruthy();
    t.replies.Steer = { delivered: true }; // the kernel had stored it
    const at = log.events.length;
    log.stepEnd("run_1", 1, "stop", 0);
    log.runEnd("run_1", "completed");
    await push(log.events.slice(at));
    await waitFor(() => expect(t.callsOf("Steer")).toBe(2));
    await waitFor(() => expect(queued()).toBeNull());
    const ids = t.calls.filter((c) => c.method === "Steer").map((c) => (c.args[0] as { id: string }).id);
    expect(ids[0]).toBe(ids[1]);
    expect(t.callsOf("Run")).toBe(0);
  });
});
