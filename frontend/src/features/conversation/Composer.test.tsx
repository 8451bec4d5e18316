// The composer's @-mentions, queued messages and token meter, in the view
// as the shell mounts it (mounttest), over a FakeTransport.
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import { Log, SESSION } from "../eventstest";
import { fuzzyScore, holds, matchEntries, mentionAt, mentioned, pick, removeToken } from "./mentions";
import { mountConversation as mount } from "./mounttest";
import { initialConversation, applyConversation } from "./reducer";
import { modelsUsed, tokens, usageOf } from "./usage";
import { costText, dollars, meterLabel, meterTitle, sessionCost, windowText } from "./ContextMeter";
import type { ContextWindow } from "../../backend/gen/profiles";

afterEach(cleanup);

const files = {
  entries: [
    { path: "README.md" },
    { path: "docs", dir: true },
    { path: "docs/notes.md" },
    { path: "notes.txt" },
    { path: "src", dir: true },
    { path: "src/nothing.go" },
  ],
};

function done(): Log {
  const log = new Log();
  log.runStart("run_1", "Fix the flaky test");
  log.stepStart("run_1", 1);
  log.text("run_1", 1, "Fixed.");
  log.stepEnd("run_1", 1, "stop", 0);
  log.runEnd("run_1", "completed");
  return log;
}

const box = () => screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
const options = () => within(screen.getByRole("listbox", { name: "Files to mention" })).getAllByRole("option");

describe("mentions (pure)", () => {
  it("finds the mention being typed only after space or at the start", () => {
    expect(mentionAt("see @no", 7)).toEqual({ start: 4, query: "no" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail a@b.c", 10)).toBeNull();
    expect(mentionAt("see @no more", 12)).toBeNull();
  });

  it("matches fuzzily, the file's own name first", () => {
    expect(fuzzyScore("nt", "notes.txt")).not.toBeNull();
    expect(fuzzyScore("xz", "notes.txt")).toBeNull();
    expect(matchEntries(files.entries, "no").map((e) => e.path).slice(0, 2)).toEqual(["notes.txt", "docs/notes.md"]);
  });

  it("picks, holds, removes tokens", () => {
    const e = { path: "notes.txt" };
    const p = pick("read @no please", { start: 5, query: "no" }, 8, e);
    expect(p.text).toBe("read @notes.txt please");
    expect(holds(p.text, e)).toBe(true);
    expect(holds("read @notes.txtx", e)).toBe(false);
    expect(mentioned("a @notes.txt, b", [e, { path: "gone" }])).toEqual(["notes.txt"]);
    expect(removeToken(p.text, e)).toBe("read please");
  });
});

describe("@-mentions in the composer", () => {
  it("lists the session's files on @, moves with the arrows, picks with Enter as a chip, and sends the file with the message", async () => {
    const { t } = await mount(done().events, { replies: { WorkspaceFiles: files, RunWithMentions: "run_2" } });
    await userEvent.click(box());
    await userEvent.type(box(), "look at @no");
    await waitFor(() => expect(options().map((o) => o.textContent)).toEqual(["notes.txt", "docs/notes.md", "src/nothing.go"]));
    expect(t.calls.find((c) => c.method === "WorkspaceFiles")!.args).toEqual([SESSION]);
    expect(options()[0]!.getAttribute("aria-selected")).toBe("true");
    await userEvent.keyboard("{ArrowDown}");
    expect(options()[1]!.getAttribute("aria-selected")).toBe("true");
    await userEvent.keyboard("{ArrowUp}");
    await userEvent.keyboard("{Enter}");
    expect(box().value).toBe("look at @notes.txt ");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(t.callsOf("RunWithMentions")).toBe(0); // Enter picked, it did not send
    const chips = screen.getByRole("list", { name: "Mentioned files" });
    expect(within(chips).getByText("@notes.txt")).toBeTruthy();
    await userEvent.type(box(), "please{Enter}");
    await waitFor(() => expect(t.callsOf("RunWithMentions")).toBe(1));
    expect(t.calls.find((c) => c.method === "RunWithMentions")!.args).toEqual([SESSION, "look at @notes.txt please", [], ["notes.txt"]]);
  });

  it("closes the list on Escape without stopping the run, and a chip's × removes the mention", async () => {
    const log = new Log();
    log.runStart("run_1", "Sleep");
    const { t } = await mount(log.events, { replies: { WorkspaceFiles: files, Cancel: true } });
    await userEvent.click(box());
    await userEvent.type(box(), "@READ");
    await waitFor(() => expect(options()).toHaveLength(1));
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(t.callsOf("Cancel")).toBe(0);
    await userEvent.keyboard("{Escape}"); // the list is closed: now Escape stops the run
    expect(t.callsOf("Cancel")).toBe(1);
    await userEvent.clear(box());
    await userEvent.type(box(), "@src");
    await waitFor(() => expect(options()[0]!.textContent).toBe("src/"));
    await userEvent.keyboard("{Tab}");
    expect(box().value).toBe("@src/ ");
    await userEvent.click(screen.getByRole("button", { name: "Remove @src/" }));
    expect(box().value).toBe("");
    expect(screen.queryByRole("list", { name: "Mentioned files" })).toBeNull();
  });

  it("keeps the text when a mentioned file was deleted before sending, with the kernel's words", async () => {
    const gone = new ApiError("invalid", "@notes.txt is not in the session's folder any more (deleted or renamed?): remove the mention or restore the file, then send again");
    await mount(done().events, { replies: { WorkspaceFiles: files, RunWithMentions: gone } });
    await userEvent.click(box());
    await userEvent.type(box(), "@notes");
    await waitFor(() => expect(options().length).toBeGreaterThan(0));
    await userEvent.keyboard("{Enter}{Enter}");
    expect((await screen.findByRole("alert")).textContent).toContain("@notes.txt is not in the session's folder any more");
    expect(box().value).toBe("@notes.txt ");
    expect(screen.getByRole("list", { name: "Mentioned files" })).toBeTruthy();
  });

  it("says so when the session's folder cannot be listed", async () => {
    await mount(done().events, { replies: { WorkspaceFiles: new ApiError("unavailable", "the session's folder /x is gone or is not a folder: restore it") } });
    await userEvent.click(box());
    await userEvent.type(box(), "@a");
    expect((await screen.findByRole("alert")).textContent).toContain("the session's folder /x is gone");
  });
});

describe("queued messages", () => {
  function running(): Log {
    const log = new Log();
    log.runStart("run_1", "Sleep");
    log.stepStart("run_1", 1);
    return log;
  }

  it("sends a message queued during a run once the run completes, and only then", async () => {
    const log = running();
    const { t, push } = await mount(log.events, { replies: { Run: "run_2" } });
    await userEvent.type(box(), "next step{Enter}");
    const q = screen.getByRole("list", { name: "Queued messages" });
    expect(within(q).getByText("Queued: next step")).toBeTruthy();
    expect(box().value).toBe("");
    expect(t.callsOf("Run")).toBe(0);
    const at = log.events.length;
    log.stepEnd("run_1", 1, "stop", 0);
    log.runEnd("run_1", "completed");
    await push(log.events.slice(at));
    await waitFor(() => expect(t.callsOf("Run")).toBe(1));
    expect(t.calls.find((c) => c.method === "Run")!.args).toEqual([SESSION, "next step"]);
    expect(screen.queryByRole("list", { name: "Queued messages" })).toBeNull();
  });

  it("keeps a message queued after a failed run, with Send now, Edit and Remove", async () => {
    const log = running();
    const { t, push } = await mount(log.events, { replies: { Run: "run_2" } });
    await userEvent.type(box(), "first{Enter}");
    const at = log.events.length;
    log.runEnd("run_1", "failed", "the model's server said 500");
    await push(log.events.slice(at));
    expect(await screen.findByText("The run failed, so this was not sent.")).toBeTruthy();
    expect(t.callsOf("Run")).toBe(0);
    await userEvent.click(screen.getByRole("button", { name: "Edit" }));
    expect(box().value).toBe("first");
    expect(screen.queryByRole("list", { name: "Queued messages" })).toBeNull();
    expect(t.callsOf("Run")).toBe(0);
  });

  it("Remove drops a queued message; Send now sends a held one", async () => {
    const log = running();
    const { t, push } = await mount(log.events, { replies: { Run: "run_2" } });
    await userEvent.type(box(), "one{Enter}");
    await userEvent.type(box(), "two{Enter}");
    const items = () => within(screen.getByRole("list", { name: "Queued messages" })).getAllByRole("listitem");
    expect(items()).toHaveLength(2);
    await userEvent.click(within(items()[0]!).getByRole("button", { name: "Remove" }));
    expect(items().map((li) => li.querySelector(".convo-queued-text")!.textContent)).toEqual(["Queued: two"]);
    const at = log.events.length;
    log.runEnd("run_1", "cancelled", "cancelled");
    await push(log.events.slice(at));
    await userEvent.click(await screen.findByRole("button", { name: "Send now" }));
    await waitFor(() => expect(t.callsOf("Run")).toBe(1));
    expect(t.calls.find((c) => c.method === "Run")!.args).toEqual([SESSION, "two"]);
  });
});

describe("the token meter", () => {
  it("sums the recorded usage and shows the counts in its tooltip", async () => {
    const log = done();
    await mount(log.events);
    const meter = screen.getByText("1.9k tokens");
    expect(meter.getAttribute("title")).toBe(
      "Tokens used in this session: 1,800 prompt, 80 completion, 1,880 in all. The last model request held 900 prompt tokens.",
    );
  });

  // Issue 28, item 1: the meter says the model's window and where it comes from.
  it("shows the last request against the model's window, and where the window comes from", async () => {
    const log = done();
    const window: ContextWindow = {
      provider: "local", model: "qwen", window: 32768, outputLimit: 2000, source: "server",
      detail: "from Ollama's /api/show (num_ctx in the model's parameters)",
    };
    const { t } = await mount(log.events, { replies: { ContextWindow: window } });
    const meter = await screen.findByText("900 / 32.8k");
    expect(meter.getAttribute("title")).toBe(
      "Context window of qwen: 32,768 tokens, from Ollama's /api/show (num_ctx in the model's parameters). Answers up to 2,000 tokens. " +
        "Tokens used in this session: 1,800 prompt, 80 completion, 1,880 in all. The last model request held 900 prompt tokens.",
    );
    expect(t.calls.find((c) => c.method === "ContextWindow")!.args).toEqual([SESSION]);
  });

  it("says a guessed window is a guess, and how to set it", () => {
    const u = { prompt: 0, completion: 0, total: 0, context: 0 };
    const guess: ContextWindow = {
      provider: "p", model: "m", window: 8192, outputLimit: 2048, source: "default",
      detail: "a guess: the server does not say; set it in Settings, Providers (or foya providers edit p --context-window N)",
    };
    expect(meterLabel(u, guess)).toBe("~8.2k context");
    expect(windowText(guess)).toBe("8,192 tokens (a guess: the server does not say; set it in Settings, Providers (or foya providers edit p --context-window N))");
    expect(windowText({ ...guess, source: "setting", window: 65536, detail: "the profile's setting (the server does not say)" })).toBe(
      "65,536 tokens, from the profile's setting (the server does not say)",
    );
    expect(meterLabel({ ...u, total: 1880, context: 900 }, guess)).toBe("900 / ~8.2k");
    expect(meterLabel({ ...u, total: 1880 }, undefined)).toBe("1.9k tokens");
    expect(meterLabel(u, undefined)).toBe("");
    expect(meterTitle(u, { ...guess, warning: "Ollama runs a model with its default context" })).toContain("Note: Ollama runs a model with its default context.");
  });

  // Issue 25, item 7: the session's cost at its profile's prices.
  it("shows the session's cost at the profile's prices, and says how it was reckoned", async () => {
    const log = done();
    const window: ContextWindow = {
      provider: "openai-compatible", model: "scripted-model", window: 32768, outputLimit: 2000, source: "server",
      detail: "from the server's /models (max_model_len)", inputPrice: 3, outputPrice: 15,
    };
    await mount(log.events, { replies: { ContextWindow: window } });
    // 1,800 prompt tokens at $3/M and 80 completion tokens at $15/M.
    const meter = await screen.findByText("900 / 32.8k · $0.0066");
    expect(meter.getAttribute("title")).toBe(
      "Context window of scripted-model: 32,768 tokens, from the server's /models (max_model_len). Answers up to 2,000 tokens. " +
        "Tokens used in this session: 1,800 prompt, 80 completion, 1,880 in all. The last model request held 900 prompt tokens. " +
        "Cost at the profile's prices: $0.0066 (input 1,800 tokens at $3/M, output 80 at $15/M).",
    );
  });

  it("shows no cost for a profile without prices, never $0", async () => {
    const log = done();
    const window: ContextWindow = { provider: "openai-compatible", model: "scripted-model", window: 32768, outputLimit: 2000, source: "server", detail: "from the server" };
    await mount(log.events, { replies: { ContextWindow: window } });
    const meter = await screen.findByText("900 / 32.8k");
    expect(meter.textContent).not.toContain("$");
    expect(meter.getAttribute("title")).not.toContain("Cost");
  });

  it("prices every token at the current profile's prices when the session changed model, and says so", () => {
    const log = done();
    const s = log.events.reduce(applyConversation, initialConversation);
    const used = modelsUsed(s.turns);
    expect(used).toEqual(["openai-compatible/scripted-model"]);
    const u = usageOf(s.turns);
    const w: ContextWindow = { provider: "cloud", model: "big", window: 200000, outputLimit: 8192, source: "server", detail: "from the server", inputPrice: 0.15, outputPrice: 0.6 };
    expect(costText(u, w, used)).toBe(
      "Cost at the profile's prices: $0.0003 (input 1,800 tokens at $0.15/M, output 80 at $0.6/M). " +
        "The session also used openai-compatible/scripted-model; all its tokens are priced at the current profile's (cloud, big).",
    );
    expect(meterTitle(u, w, used)).toContain("all its tokens are priced at the current profile's (cloud, big).");
  });

  it("words costs, and has none without both prices or without usage", () => {
    expect([dollars(0.0421), dollars(0.00314), dollars(12.345), dollars(1234.5), dollars(0.00001)]).toEqual(["$0.042", "$0.0031", "$12.35", "$1,234.50", "<$0.0001"]);
    const u = { prompt: 12_345, completion: 2000, total: 14_345, context: 5000 };
    const w: ContextWindow = { provider: "p", model: "m", window: 8192, outputLimit: 2048, source: "default", detail: "a guess" };
    expect(sessionCost(u, w)).toBeNull();
    expect(sessionCost(u, { ...w, inputPrice: 3 })).toBeNull();
    expect(sessionCost({ prompt: 0, completion: 0, total: 0, context: 0 }, { ...w, inputPrice: 3, outputPrice: 15 })).toBeNull();
    expect(sessionCost(u, { ...w, inputPrice: 3, outputPrice: 15 })).toBeCloseTo(0.067035, 9);
    expect(meterLabel(u, { ...w, inputPrice: 3, outputPrice: 15 })).toBe("5k / ~8.2k · $0.067");
    expect(costText(u, { ...w, inputPrice: 3, outputPrice: 15 }, ["p/m"])).toBe("Cost at the profile's prices: $0.067 (input 12,345 tokens at $3/M, output 2,000 at $15/M).");
    expect(meterLabel(u, undefined)).toBe("14.3k tokens");
  });

  it("counts a running turn's ended steps, and nothing before any usage", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    let s = log.events.reduce(applyConversation, initialConversation);
    expect(usageOf(s.turns).total).toBe(0);
    log.stepStart("run_1", 1);
    log.stepEnd("run_1", 1, "tool_calls", 0);
    s = log.events.reduce(applyConversation, initialConversation);
    expect(usageOf(s.turns)).toEqual({ prompt: 900, completion: 40, total: 940, context: 900 });
    expect([tokens(940), tokens(12_345), tokens(123_456), tokens(1_250_000)]).toEqual(["940", "12.3k", "123k", "1.3M"]);
  });
});
