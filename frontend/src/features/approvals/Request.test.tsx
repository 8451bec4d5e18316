// Approval requests inline in the conversation, mounted as the shell
// mounts the conversation: a FakeTransport, the real session store fed with
// events in the engine's shapes, the real reducers, ConversationView. The
// answers sent are the Answer calls the FakeTransport records.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { VirtuosoMockContext } from "react-virtuoso";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import runLog from "../testdata/run.jsonl?raw";
import { ApiError, TransportProvider } from "../../backend";
import type { Event } from "../../backend/gen/event";
import { FakeTransport, session } from "../../backend/fake";
import { ConversationView } from "../conversation";
import { testProviders } from "../conversation/mounttest";
import { Log, SESSION, WORKDIR } from "../eventstest";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore, follow, type SessionStore, type Subscribe } from "../session/store";
import { useState } from "react";
import { ApprovalsProvider, GUARD_MS, RequestsAt, goToKey, keys } from "./index";

const write = (p: string) => ({ kind: "write", tool: "write", paths: [WORKDIR + "/" + p] });

function mount(log: Log, replies: Record<string, unknown> = {}, sessionId = SESSION) {
  const transport = new FakeTransport({
    Answer: null,
    Cancel: null,
    Session: session({ id: sessionId, provider: "local", model: "m" }),
    Providers: testProviders,
    ...replies,
  });
  const store = createSessionStore(sessionId, { mode: "manual" });
  store.getState().apply(log.events);
  const view = render(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <ConversationView sessionId={sessionId} />
        </SessionStoreProvider>
      </TransportProvider>
    </VirtuosoMockContext.Provider>,
  );
  const apply = () => act(() => store.getState().apply(log.events));
  return { transport, store, view, apply };
}

/** answers lists the Answer calls sent: [approval ID, answer]. */
function answers(t: FakeTransport): unknown[][] {
  return t.calls.filter((c) => c.method === "Answer").map((c) => c.args);
}

let user: ReturnType<typeof userEvent.setup>;

// Testing Library waits for a timer of 0 ms after each event, and advances
// fake timers only when it sees Jest's; this lets it advance vitest's.
const shim = globalThis as { jest?: { advanceTimersByTime(ms: number): void } };

beforeEach(() => {
  vi.useFakeTimers();
  shim.jest = { advanceTimersByTime: (ms) => vi.advanceTimersByTime(ms) };
  user = userEvent.setup({ delay: null });
});

afterEach(() => {
  cleanup();
  delete shim.jest;
  vi.useRealTimers();
});

/** pass lets the key guard of the requests on screen run out. */
function pass() {
  act(() => vi.advanceTimersByTime(GUARD_MS));
}

/** settle lets pending promises (the Answer call) resolve and React render. */
async function settle() {
  await act(async () => {
    await Promise.resolve();
  });
}

let calls = 0;

/** asking adds a call of tool with args and its request for action, in the engine's shapes. */
function asking(log: Log, id: string, action: { kind: string; tool: string; [field: string]: unknown }, why: string, preview: string, scopes: object[], args = "{}"): void {
  log.call("run_1", 1, calls++, "call_" + id, action.tool, args);
  log.add(
    "approval.request",
    {
      id,
      sessionId: SESSION,
      runId: "run_1",
      request: { callId: "call_" + id, action, why, ...(preview ? { preview } : {}) },
      reason: "Manual mode asks before " + action.kind,
      scopes,
      askedAt: "2026-12-01T11:00:01Z",
    },
    "run_1",
  );
}

/** started is a log with a run in Manual at its first step. */
function started(): Log {
  const log = new Log();
  calls = 0;
  log.runStart("run_1", "do things");
  log.stepStart("run_1", 1);
  return log;
}

/** created is the preview the write tool gives of a new file p. */
const created = (p: string) => `--- /dev/null\n+++ b/${p}\n@@ -0,0 +1 @@\n+line of ${p}\n`;

/** diffShown is the name and text of the diff a request shows. */
function diffShown(request: HTMLElement): string {
  const table = within(request).getByRole("table", { name: /^Diff of / });
  return `${table.getAttribute("aria-label")}: ${table.textContent}`;
}

/** requestAt is the request inside the card named card. */
function requestAt(card: string): HTMLElement {
  return within(screen.getByRole("article", { name: card })).getByRole("region", { name: /\?$/ });
}

function three(): Log {
  const log = started();
  for (const p of ["a", "b", "c"]) {
    log.call("run_1", 1, calls++, `call_${p}`, "write", JSON.stringify({ path: `${p}.txt`, content: "x" }));
  }
  for (const p of ["a", "b", "c"]) log.ask("run_1", `apr_${p}`, `call_${p}`, write(`${p}.txt`), created(`${p}.txt`));
  return log;
}

const notice = () => within(screen.getByRole("form", { name: "Send a message" })).queryByRole("status");

describe("inline approval requests", () => {
  it("show nothing when no request waits", () => {
    const log = started();
    log.call("run_1", 1, 0, "call_x", "bash", '{"command":"ls"}');
    mount(log);
    expect(screen.queryByRole("region", { name: /\?$/ })).toBeNull();
    expect(notice()).toBeNull();
  });

  // spec: A2, W3
  it("shows each request at its call, counted, the oldest focused; the composer says one waits", async () => {
    const log = three();
    const { transport, store, apply } = mount(log);
    const a = requestAt("write a.txt");
    expect(within(a).getByText("1 of 3 waiting")).toBeTruthy();
    expect(diffShown(a)).toMatch(new RegExp(`^Diff of ${WORKDIR}/a\\.txt: .*line of a\\.txt`));
    expect(within(requestAt("write b.txt")).getByText("2 of 3 waiting")).toBeTruthy();
    expect(within(requestAt("write c.txt")).getByText("3 of 3 waiting")).toBeTruthy();
    expect(document.activeElement).toBe(a);
    expect(notice()!.textContent).toContain("Waiting for your approval (3 requests): Write a file?");
    // Not a modal: nothing is hidden from the page, no dialog, no dock.
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.queryByRole("button", { name: /approvals? waiting: show/ })).toBeNull();

    pass();
    await user.click(within(a).getByRole("button", { name: "Allow once" }));
    await settle();
    expect(answers(transport)).toEqual([["apr_a", { choice: "allow_once" }]]);
    // Answered here: it leaves at once, before its approval.answer; the next takes focus.
    expect(within(screen.getByRole("article", { name: "write a.txt" })).queryByRole("region")).toBeNull();
    const b = requestAt("write b.txt");
    expect(within(b).getByText("1 of 2 waiting")).toBeTruthy();
    expect(document.activeElement).toBe(b);

    log.answer("run_1", "apr_a", "call_a", "allowed", "allow_once");
    apply();
    expect(store.getState().approvals.pending.map((p) => p.id)).toEqual(["apr_b", "apr_c"]);
    expect(document.activeElement).toBe(b);
  });

  it("answers with Y, S and N while the request has focus, and the buttons say so", async () => {
    const log = started();
    const shell = (id: string, command: string, prefix: string[]) =>
      asking(log, id, { kind: "shell", tool: "bash", command } as never, "run a shell command in the sandbox", command, [
        { kind: "shell", prefix },
        { kind: "shell", tool: "bash" },
      ], JSON.stringify({ command }));
    shell("apr_1", "go test ./...", ["go", "test"]);
    shell("apr_2", "make lint", ["make", "lint"]);
    shell("apr_3", "rm -rf build", ["rm"]);
    const { transport } = mount(log);
    const first = requestAt("bash go test ./...");
    const button = (name: string) => within(first).getByRole("button", { name });
    expect(button("Allow once").textContent).toBe("Allow once (Y)");
    expect(button("Allow for this session").textContent).toBe("Allow for this session (S)");
    expect(button("Deny").textContent).toBe("Deny (N)");
    expect([button("Allow once"), button("Allow for this session"), button("Deny")].map((b) => b.getAttribute("aria-keyshortcuts"))).toEqual([
      keys.once,
      keys.session,
      keys.deny,
    ]);

    pass();
    expect(document.activeElement).toBe(first);
    await user.keyboard("y");
    await settle();
    expect(answers(transport)).toEqual([["apr_1", { choice: "allow_once" }]]);

    const second = requestAt("bash make lint");
    expect(document.activeElement).toBe(second);
    pass();
    await user.keyboard("s");
    await settle();
    expect(answers(transport)[1]).toEqual(["apr_2", { choice: "allow_session", scope: { kind: "shell", prefix: ["make", "lint"] } }]);

    const third = requestAt("bash rm -rf build");
    pass();
    // Letters typed in the message are text, not answers.
    await user.click(within(third).getByRole("textbox", { name: /Message to the model/ }));
    await user.keyboard("not now, say why");
    expect(answers(transport)).toHaveLength(2);
    act(() => third.focus());
    await user.keyboard("n");
    await settle();
    expect(answers(transport)[2]).toEqual(["apr_3", { choice: "deny", message: "not now, say why" }]);
  });

  it("reaches Allow once with one Tab from the request, then the other answers", async () => {
    const log = started();
    asking(log, "apr_1", { kind: "write", tool: "edit", paths: [WORKDIR + "/notes.txt"] } as never, "edit", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n", [
      { kind: "write", folder: WORKDIR },
    ]);
    mount(log);
    const r = requestAt("edit");
    expect(document.activeElement).toBe(r);
    pass();
    // The diff's own buttons come before the answers in the page, but not in the first Tab.
    await user.tab();
    expect(document.activeElement).toBe(within(r).getByRole("button", { name: "Allow once" }));
    await user.tab();
    expect(document.activeElement).toBe(within(r).getByRole("button", { name: "Allow for this session" }));
    await user.tab();
    expect(document.activeElement).toBe(within(r).getByRole("button", { name: "Deny" }));
  });

  it("ignores key presses and clicks in the first 500 ms of a request", async () => {
    const { transport } = mount(three());
    const request = requestAt("write a.txt");
    // The composer's Enter, a Tab and Enter, a Space, the answers' letters, Escape: nothing is answered.
    await user.keyboard("{Enter}");
    await user.keyboard("{Tab}{Enter} yns{Escape}");
    expect(document.activeElement).toBe(request);
    const allow = within(request).getByRole("button", { name: "Allow once" });
    expect(allow.getAttribute("aria-disabled")).toBe("true");
    act(() => allow.focus());
    await user.keyboard("{Enter} y");
    await user.click(allow);
    act(() => vi.advanceTimersByTime(GUARD_MS - 1));
    await user.keyboard("{Enter}y");
    await settle();
    expect(answers(transport)).toEqual([]);
    // Escape during the guard stopped no run either.
    expect(transport.calls.filter((c) => c.method === "Cancel")).toEqual([]);

    act(() => vi.advanceTimersByTime(1));
    expect(allow.getAttribute("aria-disabled")).toBe("false");
    await user.keyboard("{Enter}");
    await settle();
    expect(answers(transport)).toEqual([["apr_a", { choice: "allow_once" }]]);
  });

  it("gives focus back to the message box on Escape, answering nothing and stopping nothing", async () => {
    const { transport } = mount(three());
    pass();
    await user.keyboard("{Escape}");
    expect(document.activeElement).toBe(screen.getByRole("textbox", { name: "Message" }));
    expect(answers(transport)).toEqual([]);
    expect(transport.calls.filter((c) => c.method === "Cancel")).toEqual([]);
    // The composer's button goes back to the oldest request.
    await user.click(screen.getByRole("button", { name: "Go to the request" }));
    expect(document.activeElement).toBe(requestAt("write a.txt"));
  });

  it("does not take focus from someone typing: the notice says so, and Alt+A goes to it", async () => {
    const log = started();
    log.call("run_1", 1, calls++, "call_a", "write", JSON.stringify({ path: "a.txt", content: "x" }));
    const { apply } = mount(log);
    // Typing in a text field of the window (the session search, say).
    const field = document.createElement("input");
    document.body.append(field);
    await user.click(field);
    await user.keyboard("half a wor");
    log.ask("run_1", "apr_a", "call_a", write("a.txt"), created("a.txt"));
    apply();
    expect(document.activeElement).toBe(field);
    expect(notice()!.textContent).toContain("It did not take focus while you were typing.");
    expect(screen.getByRole("button", { name: "Go to the request" }).getAttribute("aria-keyshortcuts")).toBe(goToKey);
    await user.keyboard("{Alt>}a{/Alt}");
    expect(document.activeElement).toBe(requestAt("write a.txt"));
    expect(field.value).toBe("half a wor");
    expect(notice()!.textContent).not.toContain("did not take focus");
    field.remove();
  });

  it("takes focus from a message box that cannot be typed in while the run goes", async () => {
    const log = started();
    log.call("run_1", 1, calls++, "call_a", "write", '{"path":"a.txt"}');
    const { apply } = mount(log);
    const box = screen.getByRole("textbox", { name: "Message" });
    act(() => box.focus());
    log.ask("run_1", "apr_a", "call_a", write("a.txt"), created("a.txt"));
    apply();
    expect(document.activeElement).toBe(requestAt("write a.txt"));
  });

  it("takes focus again when drawn again (rows handed over, a card back in view), until focus moved elsewhere", async () => {
    const log = started();
    asking(log, "apr_1", { kind: "shell", tool: "bash", command: "make" }, "run", "make", [], '{"command":"make"}');
    const store = createSessionStore(SESSION, { mode: "manual" });
    store.getState().apply(log.events);
    let draw: (on: boolean) => void = () => {};
    function Card() {
      const [on, setOn] = useState(true);
      draw = setOn;
      return on ? <RequestsAt runId="run_1" callId="call_apr_1" /> : null;
    }
    const outside = document.createElement("button");
    document.body.append(outside);
    render(
      <TransportProvider transport={new FakeTransport({ Answer: null })}>
        <SessionStoreProvider store={store}>
          <ApprovalsProvider focusComposer={() => {}}>
            <Card />
          </ApprovalsProvider>
        </SessionStoreProvider>
      </TransportProvider>,
    );
    const request = () => screen.getByRole("region", { name: "Run a command?" });
    expect(document.activeElement).toBe(request());
    act(() => draw(false));
    act(() => draw(true));
    expect(document.activeElement).toBe(request());
    // Moved elsewhere by the person: drawn again, it leaves focus where it is.
    act(() => outside.focus());
    act(() => draw(false));
    act(() => draw(true));
    expect(document.activeElement).toBe(outside);
    outside.remove();
  });

  it("gives focus back to the message box when the last request is answered", async () => {
    const log = started();
    asking(log, "apr_1", { kind: "shell", tool: "bash", command: "make" } as never, "run", "make", [], '{"command":"make"}');
    mount(log);
    pass();
    await user.keyboard("n");
    await settle();
    expect(document.activeElement).toBe(screen.getByRole("textbox", { name: "Message" }));
    expect(notice()).toBeNull();
  });

  it("says so when the answer cannot be sent, and lets the person try again", async () => {
    const { transport } = mount(three(), { Answer: new ApiError("unavailable", "the kernel is not open") });
    pass();
    await user.keyboard("y");
    await settle();
    const a = requestAt("write a.txt");
    expect(within(a).getByRole("alert").textContent).toContain("Foya could not send your answer: the kernel is not open");
    transport.replies["Answer"] = null;
    await user.click(within(a).getByRole("button", { name: "Allow once" }));
    await settle();
    expect(answers(transport)).toHaveLength(2);
    expect(within(screen.getByRole("article", { name: "write a.txt" })).queryByRole("region")).toBeNull();
  });

  it("drops a request the kernel no longer waits for (answered elsewhere or withdrawn)", async () => {
    mount(three(), { Answer: new ApiError("conflict", "approval apr_a: the approval request was already answered or withdrawn") });
    pass();
    await user.keyboard("n");
    await settle();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(document.activeElement).toBe(requestAt("write b.txt"));
  });

  it.each([
    [
      "a shell command: the command",
      { kind: "shell", tool: "bash", command: "go test ./... && echo ok" },
      "Run a command?",
      { Command: "go test ./... && echo ok" },
      [],
    ],
    [
      "a command outside the sandbox",
      { kind: "shell_escalate", tool: "bash", command: "curl https://go.dev" },
      "Run a command outside the sandbox?",
      { Command: "curl https://go.dev" },
      [],
    ],
    [
      "a delete: the path and the trash",
      { kind: "delete", tool: "delete", paths: [WORKDIR + "/old.txt"] },
      "Move to the trash?",
      {},
      [WORKDIR + "/old.txt", "It goes to the system trash, not deleted for good: the Review panel can restore it."],
    ],
    [
      "a fetch: the URL and the host",
      { kind: "fetch", tool: "web_fetch", host: "go.dev" },
      "Reach a host on the network?",
      { URL: "https://go.dev/doc/" },
      ["Hostgo.dev"],
    ],
    [
      "an MCP tool: the tool, its arguments and what its server says of it",
      { kind: "mcp", tool: "issues_create" },
      "Call an MCP tool?",
      { Arguments: '{\n  "title": "Bug"\n}' },
      ["its server does not mark it read-only: it may change things"],
    ],
    [
      // The request names the MCP server and its own name for the tool: whose program runs.
      "an MCP tool of a named server: the server, its tool and what it says of it",
      { kind: "mcp", tool: "mcp__github__create_issue", mcpServer: "github", mcpTool: "create_issue", readOnly: true },
      "Call an MCP tool?",
      { Arguments: '{\n  "title": "Bug"\n}' },
      ["MCP servergithub", "Server's toolcreate_issue", "its server marks it read-only"],
    ],
    [
      "a read outside the workspace: the path",
      { kind: "read_outside", tool: "read", paths: ["/etc/hosts"] },
      "Read outside the workspace?",
      {},
      ["Path/etc/hosts"],
    ],
    [
      "an edit: the diff",
      { kind: "write", tool: "edit", paths: [WORKDIR + "/notes.txt"] },
      "Edit a file?",
      { Diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n" },
      ["Path" + WORKDIR + "/notes.txt"],
    ],
  ])("shows what %s", (_, action, question, labelled: Record<string, string>, texts) => {
    const log = started();
    const preview =
      labelled["Diff"] ?? (action as { command?: string }).command ?? (labelled["URL"] !== undefined ? labelled["URL"] : action.kind === "mcp" ? '{"title":"Bug"}' : "");
    asking(log, "apr_1", action, "the model asks", preview, [{ kind: action.kind, tool: action.tool }]);
    mount(log);
    const request = screen.getByRole("region", { name: question });
    for (const [label, text] of Object.entries(labelled)) {
      if (label === "Diff") expect(diffShown(request)).toMatch(/^Diff of .*hello.*bye/);
      else expect(within(request).getByLabelText(label).textContent).toBe(text);
    }
    for (const t of texts) expect(request.textContent).toContain(t);
    expect(request.textContent).toContain("Why Foya asks: Manual mode asks before " + action.kind);
    // One scope: its sentence once, no choice to make.
    expect(request.textContent!.split("For this session: ")).toHaveLength(2);
    expect(within(request).queryByRole("radio")).toBeNull();
    expect(within(request).getByRole("button", { name: "Allow for this session" })).toBeTruthy();
  });

  it("folds an MCP call's long values until Show all", async () => {
    const log = started();
    const body = "word ".repeat(100);
    const items = Array.from({ length: 30 }, (_, i) => i);
    const args = JSON.stringify({ title: "Bug", body, labels: items });
    asking(log, "apr_1", { kind: "mcp", tool: "mcp__github__create_issue", mcpServer: "github", mcpTool: "create_issue" } as never, "call", args, []);
    mount(log);
    const request = screen.getByRole("region", { name: "Call an MCP tool?" });
    const shown = () => within(request).getByLabelText("Arguments").textContent!;
    expect(shown()).toContain('"title": "Bug"');
    expect(shown()).toContain("… (340 more characters)");
    expect(shown()).toContain("… (10 more items)");
    expect(shown()).not.toContain(body);
    pass();
    await user.click(within(request).getByRole("button", { name: "Show all" }));
    expect(shown()).toBe(JSON.stringify(JSON.parse(args), null, 2));
    expect(within(request).getByRole("button", { name: "Fold long values" }).getAttribute("aria-expanded")).toBe("true");
  });

  it("shows a command as the policy read it, from the request: every command it runs, deletes, what it cannot read", async () => {
    const log = started();
    const command = `echo ok && sh -c "rm -rf build" && eval "$X"`;
    const parsed = {
      simple: [["echo", "ok"], ["sh", "-c", "rm -rf build"], ["rm", "-rf", "build"], ["eval", "$X"]],
      deletes: ["rm -rf build"],
      opaque: ["eval runs a string Foya cannot read"],
    };
    asking(log, "apr_1", { kind: "shell", tool: "bash", command, parsed } as never, "run a shell command", command, [], JSON.stringify({ command }));
    const { transport } = mount(log);
    await settle();
    // Nothing is asked of the kernel: the request carries the parse.
    expect(transport.calls.filter((c) => c.method === "Answer" || c.method === "ParseCommand")).toEqual([]);
    const list = screen.getByRole("list", { name: "Commands it runs" });
    expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["echo ok", "sh -c rm -rf build", "rm -rf build", "eval $X"]);
    const notes = within(screen.getByRole("region", { name: "Run a command?" }))
      .getAllByRole("note")
      .map((n) => n.textContent);
    expect(notes).toEqual(["Deletes files for good: rm -rf build", "Foya cannot tell what part of it runs: eval runs a string Foya cannot read"]);
  });

  it("shows the command's text alone for a request stored without its parse", () => {
    const log = started();
    asking(log, "apr_1", { kind: "shell", tool: "bash", command: "make all" } as never, "run", "make all", []);
    mount(log);
    expect(screen.getByLabelText("Command").textContent).toBe("make all");
    expect(screen.queryByRole("list", { name: "Commands it runs" })).toBeNull();
  });

  it("names the chosen scope in words once, before the click", async () => {
    const log = started();
    asking(log, "apr_1", { kind: "fetch", tool: "web_fetch", host: "go.dev" }, "fetch a page", "https://go.dev/", [
      { kind: "fetch", host: "go.dev" },
      { kind: "fetch", tool: "web_fetch" },
    ]);
    const { transport } = mount(log);
    const request = screen.getByRole("region", { name: "Reach a host on the network?" });
    const button = within(request).getByRole("button", { name: "Allow for this session" });
    const described = () => document.getElementById(button.getAttribute("aria-describedby")!)!.textContent;
    expect(described()).toBe("For this session: Network fetches of the host go.dev (not its subdomains, not other hosts), for the rest of this session.");
    expect(request.textContent!.split("Network fetches of the host go.dev").length).toBe(2);
    pass();
    await user.click(within(request).getByRole("radio", { name: "Tool web_fetch" }));
    expect(described()).toBe("For this session: Every fetch of any host by the tool web_fetch, for the rest of this session.");
    act(() => request.focus());
    await user.keyboard("s");
    await settle();
    expect(answers(transport)).toEqual([["apr_1", { choice: "allow_session", scope: { kind: "fetch", tool: "web_fetch" } }]]);
  });

  it("offers no session scope when the request has none, and S does nothing", async () => {
    const log = started();
    log.call("run_1", 1, 0, "c", "bash", '{"command":"x"}');
    log.add(
      "approval.request",
      { id: "apr_1", sessionId: SESSION, runId: "run_1", request: { callId: "c", action: { kind: "shell", tool: "bash", command: "x" }, why: "w" }, reason: "r", scopes: null, askedAt: "2026-12-01T11:00:01Z" },
      "run_1",
    );
    const { transport } = mount(log);
    expect(screen.queryByRole("button", { name: "Allow for this session" })).toBeNull();
    expect(screen.getByRole("button", { name: "Allow once" })).toBeTruthy();
    pass();
    await user.keyboard("s");
    await settle();
    expect(answers(transport)).toEqual([]);
  });

  it("asks about a call a hook wants asked about (docs/hooks.md): its reason, the call's arguments, allow once or deny", () => {
    const log = started();
    log.call("run_1", 1, 0, "c", "bash", '{"command":"git push"}');
    log.add(
      "approval.request",
      {
        id: "apr_1",
        sessionId: SESSION,
        runId: "run_1",
        request: { callId: "c", action: { kind: "hook", tool: "bash" }, why: "call bash with these arguments", preview: '{"command":"git push"}' },
        reason: 'the user hook "careful" (/d/hooks.json) asks you before this call: pushes are public',
        scopes: null,
        askedAt: "2026-12-01T11:00:01Z",
      },
      "run_1",
    );
    mount(log);
    const request = screen.getByRole("region", { name: "A hook asks first: run bash?" });
    expect(request.textContent).toContain("pushes are public");
    expect(within(request).getByLabelText("Arguments").textContent).toContain('"command": "git push"');
    expect(within(request).queryByRole("button", { name: "Allow for this session" })).toBeNull();
    expect(within(request).getByRole("button", { name: "Allow once" })).toBeTruthy();
  });

  it("asks about a private address on its own, naming it, with no session scope", () => {
    const log = started();
    const action = { kind: "fetch_private", tool: "web_fetch", host: "intranet.test", addresses: ["10.1.2.3"] };
    asking(log, "apr_1", action, "fetch http://intranet.test/ (host intranet.test resolves to a loopback or private address: 10.1.2.3)", "http://intranet.test/", []);
    mount(log);
    const request = screen.getByRole("region", { name: "Reach this machine or the local network?" });
    const what = within(request).getByRole("group", { name: "What it does" });
    expect(within(what).getByLabelText("URL").textContent).toBe("http://intranet.test/");
    expect(what.textContent).toContain("Loopback or private address10.1.2.3 (asked on every fetch)");
    expect(within(request).queryByRole("button", { name: "Allow for this session" })).toBeNull();
  });

  it("shows a request whose call has no card above the composer", () => {
    const log = started();
    log.add(
      "approval.request",
      { id: "apr_1", sessionId: SESSION, runId: "run_1", request: { callId: "lost", action: { kind: "shell", tool: "bash", command: "x" }, why: "w" }, reason: "r", scopes: null, askedAt: "2026-12-01T11:00:01Z" },
      "run_1",
    );
    mount(log);
    const form = screen.getByRole("form", { name: "Send a message" });
    expect(within(form).getByRole("region", { name: "Run a command?" })).toBe(document.activeElement);
  });

  it("counts the waiting requests in the title (the shell's useNotifications notifies)", async () => {
    const log = started();
    log.call("run_1", 1, calls++, "call_a", "write", "{}");
    log.ask("run_1", "apr_a", "call_a", write("a.txt"), "+a");
    const { apply } = mount(log);
    await settle();
    expect(document.title).toBe("(1) Foya");

    asking(log, "apr_b", { kind: "shell", tool: "bash", command: "make" } as never, "run", "make", []);
    apply();
    await settle();
    expect(document.title).toBe("(2) Foya");
    log.runEnd("run_1", "cancelled", "cancelled");
    apply();
    expect(document.title).toBe("Foya");
  });

  it("offers to turn notifications on in a browser that has not asked yet", async () => {
    const asked = vi.fn(async () => "granted");
    vi.stubGlobal("Notification", { permission: "default", requestPermission: asked });
    mount(three());
    pass();
    // Offered once, by the composer's notice, not in each request.
    expect(screen.getAllByRole("button", { name: "Notify me when an approval waits" })).toHaveLength(1);
    await user.click(within(screen.getByRole("form", { name: "Send a message" })).getByRole("button", { name: "Notify me when an approval waits" }));
    await settle();
    expect(asked).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole("button", { name: "Notify me when an approval waits" })).toBeNull();
    vi.unstubAllGlobals();
  });

  it("goes when the run ends with its request unanswered", () => {
    const log = three();
    const { apply } = mount(log);
    log.runEnd("run_1", "cancelled", "cancelled");
    apply();
    expect(screen.queryByRole("region", { name: /\?$/ })).toBeNull();
    expect(notice()).toBeNull();
  });

  it("keeps a pending request across a reload: the replayed events bring it back", async () => {
    // The stored events of a real session, up to its first request.
    const stored = runLog
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Event);
    const ask = stored.findIndex((e) => e.type === "approval.request");
    const sessionId = stored[0]!.sessionId;
    const transport = new FakeTransport({ Answer: null, Session: session({ id: sessionId, provider: "local", model: "m" }), Providers: testProviders });
    const reload = (): SessionStore => {
      const store = createSessionStore(sessionId);
      // The transport hands on the generated envelopes it carries.
      follow(store, transport.subscribe.bind(transport) as unknown as Subscribe);
      return store;
    };
    const first = reload();
    for (const ev of stored.slice(0, ask + 1)) transport.push(ev);
    await settle();
    expect(first.getState().approvals.pending).toHaveLength(1);

    // A new page: a new store, following from seq 0, the kernel replays.
    const store = reload();
    render(
      <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
        <TransportProvider transport={transport}>
          <SessionStoreProvider store={store}>
            <ConversationView sessionId={sessionId} />
          </SessionStoreProvider>
        </TransportProvider>
      </VirtuosoMockContext.Provider>,
    );
    expect(screen.queryByRole("region", { name: /\?$/ })).toBeNull();
    for (const ev of stored.slice(0, ask + 1)) transport.push(ev);
    await settle();
    const request = screen.getByRole("region", { name: "Write a file?" });
    expect(diffShown(request)).toMatch(/^Diff of \/home\/me\/project\/notes\.txt: .*hello/);
    expect(request.textContent).toContain("create notes.txt (1 line)");
    expect(request.textContent).toContain("Manual mode asks before write");
    pass();
    fireEvent.keyDown(request, { key: "y" });
    await settle();
    expect(answers(transport)).toEqual([[(stored[ask]!.data as { id: string }).id, { choice: "allow_once" }]]);
  });
});
