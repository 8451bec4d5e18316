// A failed run in words with Retry, and the copy buttons of the transcript.
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Log, SESSION } from "../eventstest";
import { mountConversation as mount } from "./mounttest";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const refused = 'model: provider: Post "http://127.0.0.1:39999/v1/chat/completions": dial tcp 127.0.0.1:39999: connect: connection refused (after 3 attempts)';

describe("a failed run", () => {
  it("says what happened in words, the error under Details, and Retry sends its prompt again", async () => {
    const log = new Log();
    log.runStart("run_1", "Fix the build");
    log.stepStart("run_1", 1);
    log.runEnd("run_1", "failed", refused);
    const { t } = await mount(log.events, { replies: { Run: "run_2" } });
    const alert = await screen.findByRole("alert", { name: /The run failed/ });
    expect(alert.textContent).toMatch(/^The run failed: Foya could not reach the model server at 127\.0\.0\.1:39999\./);
    const details = alert.querySelector("details")!;
    expect(details.querySelector("summary")!.textContent).toBe("Details");
    expect(within(details).getByText(refused)).toBeTruthy();
    await userEvent.click(within(alert).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(t.callsOf("Run")).toBe(1));
    expect(t.calls.find((c) => c.method === "Run")!.args).toEqual([SESSION, "Fix the build"]);
  });

  // spec: W4
  it("tests the turn's provider from the notice and says the outcome in words", async () => {
    const log = new Log();
    log.runStart("run_1", "Fix the build");
    log.runEnd("run_1", "failed", refused);
    const down = {
      provider: "openai-compatible", baseUrl: "http://127.0.0.1:39999/v1", model: "m",
      models: { status: "down", message: "no answer from http://127.0.0.1:39999/v1: connection refused; is the server running, and is the base URL right?", millis: 1 },
      stream: { status: "skipped", message: "not tried: down", millis: 0 },
    };
    const { t } = await mount(log.events, { replies: { TestProvider: down } });
    const alert = await screen.findByRole("alert", { name: /The run failed/ });
    const buttons = within(alert).getAllByRole("button").map((b) => b.textContent);
    expect(buttons.slice(0, 2)).toEqual(["Retry", "Test connection"]);
    await userEvent.click(within(alert).getByRole("button", { name: "Test connection" }));
    await waitFor(() => expect(within(alert).getByRole("status").textContent).toMatch(/^Foya cannot connect to the model server at http:\/\/127\.0\.0\.1:39999\/v1: no answer/));
    expect(t.calls.filter((c) => c.method === "TestProvider").map((c) => c.args)).toEqual([["openai-compatible"]]);
    t.replies.TestProvider = { ...down, models: { status: "ok", message: "reachable; 1 models listed, m among them", millis: 1 }, stream: { status: "ok", message: 'model m answered "ok"', millis: 2 } };
    await userEvent.click(within(alert).getByRole("button", { name: "Test connection" }));
    await waitFor(() => expect(within(alert).getByRole("status").textContent).toBe("Foya connects to the model server at http://127.0.0.1:39999/v1. Model m answered."));
  });

  it("offers Retry on the latest run only", async () => {
    const log = new Log();
    log.runStart("run_1", "first");
    log.runEnd("run_1", "failed", refused);
    log.runStart("run_2", "second");
    log.runEnd("run_2", "failed", refused);
    await mount(log.events);
    const alerts = await screen.findAllByRole("alert", { name: /The run failed/ });
    expect(alerts.map((a) => within(a).queryByRole("button", { name: "Retry" }) !== null)).toEqual([false, true]);
  });
});

describe("copy buttons", () => {
  it("copy a code block and a message", async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(async (_: string) => undefined);
    vi.spyOn(navigator, "clipboard", "get").mockReturnValue({ writeText } as unknown as Clipboard);
    const log = new Log();
    log.runStart("run_1", "Show the test command");
    log.stepStart("run_1", 1);
    log.text("run_1", 1, "Run this:\n\n```sh\ngo test ./...\n```\n");
    log.runEnd("run_1", "completed");
    await mount(log.events);
    await user.click(await screen.findByRole("button", { name: "Copy code" }));
    expect(writeText).toHaveBeenLastCalledWith("go test ./...");
    await user.click(screen.getByRole("button", { name: "Copy message" }));
    expect(writeText).toHaveBeenLastCalledWith("Show the test command");
    await user.click(screen.getByRole("button", { name: "Copy answer" }));
    expect(writeText).toHaveBeenLastCalledWith("Run this:\n\n```sh\ngo test ./...\n```\n");
  });
});
