// The approval queue mounted as the shell mounts it: a FakeTransport, the
// real session store fed with events in the engine's shapes, the real
// reducers. The answers sent are the Answer calls the FakeTransport records.
import { act, cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import runLog from "../testdata/run.jsonl?raw";
import { ApiError, TransportProvider } from "../../backend";
import type { Event } from "../../backend/gen/event";
import { FakeTransport } from "../../backend/fake";
import { Log, SESSION, WORKDIR } from "../eventstest";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore, follow, type SessionStore, type Subscribe } from "../session/store";
import { notify } from "../../backend/attention";
import { ApprovalQueue, GUARD_MS } from "./index";

const write = (p: string) => ({ kind: "write", tool: "write", paths: [WORKDIR + "/" + p] });

function mount(log: Log, replies: Record<string, unknown> = {}) {
  const transport = new FakeTransport({ Answer: null, ...replies });
  const store = createSessionStore(SESSION, { mode: "manual" });
  store.getState().apply(log.events);
  const view = render(
    <TransportProvider transport={transport}>
      <SessionStoreProvider store={store}>
        <ApprovalQueue sessionId={SESSION} />
      </SessionStoreProvider>
    </TransportProvider>,
  );
  return { transport, store, view };
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

/** pass lets the key guard of the request on screen run out. */
function pass() {
  act(() => vi.advanceTimersByTime(GUARD_MS));
}

/** settle lets pending promises (the Answer call) resolve and React render. */
async function settle() {
  await act(async () => {
    await Promise.resolve();
  });
}

/** asking adds a request for action with scopes, in the engine's shape. */
function asking(log: Log, id: string, action: object, why: string, preview: string, scopes: object[]): void {
  log.add(
    "approval.request",
    {
      id,
      sessionId: SESSION,
      runId: "run_1",
      request: { callId: "call_" + id, action, why, ...(preview ? { preview } : {}) },
      reason: "Manual mode asks before " + (action as { kind: string }).kind,
      scopes,
      askedAt: "2026-12-01T11:00:01Z",
    },
    "run_1",
  );
}

/** created is the preview the write tool gives of a new file p. */
const created = (p: string) => `--- /dev/null\n+++ b/${p}\n@@ -0,0 +1 @@\n+line of ${p}\n`;

/** diffShown is the name and text of the diff a dialog shows. */
function diffShown(dialog: HTMLElement): string {
  const table = within(dialog).getByRole("table", { name: /^Diff of / });
  return `${table.getAttribute("aria-label")}: ${table.textContent}`;
}

/** expectDiff checks that dialog shows the diff that creates WORKDIR/p. */
function expectDiff(dialog: HTMLElement, p: string) {
  expect(diffShown(dialog)).toMatch(new RegExp(`^Diff of ${WORKDIR}/${p}: .*line of ${p.replace(".", "\\.")}`));
}

function three(): Log {
  const log = new Log();
  log.runStart("run_1", "three writes");
  log.ask("run_1", "apr_a", "call_a", write("a.txt"), created("a.txt"));
  log.ask("run_1", "apr_b", "call_b", write("b.txt"), created("b.txt"));
  log.ask("run_1", "apr_c", "call_c", write("c.txt"), created("c.txt"));
  return log;
}

describe("ApprovalQueue", () => {
  it("renders nothing when no request waits", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    const { view } = mount(log);
    expect(view.container.innerHTML).toBe("");
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("shows the oldest request first with the count, and the next after an answer", async () => {
    const log = three();
    const { transport, store } = mount(log);
    const dialog = screen.getByRole("dialog", { name: "Write a file?" });
    expect(within(dialog).getByText("1 of 3 waiting")).toBeTruthy();
    expectDiff(dialog, "a.txt");
    expect(dialog.textContent).toContain(WORKDIR + "/a.txt");

    pass();
    await user.click(within(dialog).getByRole("button", { name: "Allow once" }));
    await settle();
    expect(answers(transport)).toEqual([["apr_a", { choice: "allow_once" }]]);
    // Answered here: it leaves the queue at once, before its approval.answer.
    const next = screen.getByRole("dialog");
    expectDiff(next, "b.txt");
    expect(within(next).getByText("1 of 2 waiting")).toBeTruthy();

    log.answer("run_1", "apr_a", "call_a", "allowed", "allow_once");
    act(() => store.getState().apply(log.events));
    expectDiff(screen.getByRole("dialog"), "b.txt");
  });

  it("denying one request denies no other, and sends the message", async () => {
    const log = three();
    const { transport, store } = mount(log);
    pass();
    await user.type(screen.getByRole("textbox", { name: /Message to the model/ }), "  not a.txt, use notes.txt ");
    await user.click(screen.getByRole("button", { name: "Deny" }));
    await settle();
    expect(answers(transport)).toEqual([["apr_a", { choice: "deny", message: "not a.txt, use notes.txt" }]]);

    log.answer("run_1", "apr_a", "call_a", "denied", "deny", "not a.txt, use notes.txt");
    act(() => store.getState().apply(log.events));
    expect(store.getState().approvals.pending.map((p) => p.id)).toEqual(["apr_b", "apr_c"]);
    const next = screen.getByRole("dialog");
    expectDiff(next, "b.txt");
    expect(within(next).getByText("1 of 2 waiting")).toBeTruthy();
    // A deny without a message sends none.
    pass();
    await user.click(within(next).getByRole("button", { name: "Deny" }));
    await settle();
    expect(answers(transport)[1]).toEqual(["apr_b", { choice: "deny" }]);
  });

  it("resets the message, the scope and the guard for each request", async () => {
    const log = new Log();
    log.runStart("run_1", "two commands");
    const shell = (id: string, command: string, prefix: string[]) =>
      log.add(
        "approval.request",
        {
          id,
          sessionId: SESSION,
          runId: "run_1",
          request: { callId: "call_" + id, action: { kind: "shell", tool: "bash", command }, why: "run a shell command in the sandbox", preview: command },
          reason: "Manual mode asks before shell",
          scopes: [{ kind: "shell", prefix }, { kind: "shell", tool: "bash" }],
          askedAt: "2026-12-01T11:00:01Z",
        },
        "run_1",
      );
    shell("apr_1", "go test ./...", ["go", "test"]);
    shell("apr_2", "make lint", ["make", "lint"]);
    const { transport } = mount(log);
    pass();
    await user.type(screen.getByRole("textbox", { name: /Message to the model/ }), "typed for the first");
    await user.click(screen.getByRole("radio", { name: "Tool bash" }));
    await user.click(screen.getByRole("button", { name: "Allow for this session" }));
    await settle();
    expect(answers(transport)).toEqual([["apr_1", { choice: "allow_session", scope: { kind: "shell", tool: "bash" } }]]);

    const next = screen.getByRole("dialog");
    expect(within(next).getByLabelText("Command").textContent).toBe("make lint");
    expect((within(next).getByRole("textbox", { name: /Message to the model/ }) as HTMLTextAreaElement).value).toBe("");
    expect((within(next).getByRole("radio", { name: "Command prefix make lint" }) as HTMLInputElement).checked).toBe(true);
    expect(document.activeElement).toBe(next);
    // The guard holds again for the new request.
    await user.click(within(next).getByRole("button", { name: "Allow for this session" }));
    expect(answers(transport)).toHaveLength(1);
    pass();
    await user.click(within(next).getByRole("button", { name: "Allow for this session" }));
    await settle();
    expect(answers(transport)[1]).toEqual(["apr_2", { choice: "allow_session", scope: { kind: "shell", prefix: ["make", "lint"] } }]);
  });

  it("puts focus on the dialog itself, not on a button, and keeps it inside", async () => {
    mount(three());
    const dialog = screen.getByRole("dialog");
    expect(document.activeElement).toBe(dialog);
    pass();
    const inside = new Set<Element | null>();
    for (let i = 0; i < 12; i++) {
      await user.tab();
      inside.add(document.activeElement);
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    expect([...inside].map((e) => e?.getAttribute("aria-label") ?? e?.textContent)).toContain("Allow once");
  });

  it("ignores key presses and clicks in the first 500 ms of a request", async () => {
    const { transport } = mount(three());
    const dialog = screen.getByRole("dialog");
    // The composer's Enter, a Tab and Enter, a Space: nothing is answered.
    await user.keyboard("{Enter}");
    await user.keyboard("{Tab}{Enter} ");
    expect(document.activeElement).toBe(dialog);
    const allow = within(dialog).getByRole("button", { name: "Allow once" });
    expect(allow.getAttribute("aria-disabled")).toBe("true");
    act(() => allow.focus());
    await user.keyboard("{Enter} ");
    await user.click(allow);
    act(() => vi.advanceTimersByTime(GUARD_MS - 1));
    await user.keyboard("{Enter}");
    await settle();
    expect(answers(transport)).toEqual([]);

    act(() => vi.advanceTimersByTime(1));
    expect(allow.getAttribute("aria-disabled")).toBe("false");
    act(() => allow.focus());
    await user.keyboard("{Enter}");
    await settle();
    expect(answers(transport)).toEqual([["apr_a", { choice: "allow_once" }]]);
  });

  it("closes to a docked indicator on Escape, which answers nothing, and reopens", async () => {
    const { transport } = mount(three());
    pass();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    const dock = screen.getByRole("button", { name: "3 approvals waiting: show" });
    expect(answers(transport)).toEqual([]);
    await user.click(dock);
    const dialog = screen.getByRole("dialog", { name: "Write a file?" });
    expect(document.activeElement).toBe(dialog);
    // Escape during the guard does not even dock: it may be meant for the composer.
    await user.keyboard("{Escape}");
    expect(screen.getByRole("dialog")).toBe(dialog);
    pass();
    await user.click(within(dialog).getByRole("button", { name: "Answer later" }));
    expect(screen.getByRole("button", { name: "3 approvals waiting: show" })).toBeTruthy();
    expect(answers(transport)).toEqual([]);
  });

  it("says so when the answer cannot be sent, and lets the person try again", async () => {
    const { transport } = mount(three(), { Answer: new ApiError("unavailable", "the kernel is not open") });
    pass();
    await user.click(screen.getByRole("button", { name: "Allow once" }));
    await settle();
    expect(screen.getByRole("alert").textContent).toContain("Foya could not send your answer: the kernel is not open");
    expectDiff(screen.getByRole("dialog"), "a.txt");
    transport.replies["Answer"] = null;
    await user.click(screen.getByRole("button", { name: "Allow once" }));
    await settle();
    expect(answers(transport)).toHaveLength(2);
    expectDiff(screen.getByRole("dialog"), "b.txt");
  });

  it("drops a request the kernel no longer waits for (answered elsewhere or withdrawn)", async () => {
    mount(three(), { Answer: new ApiError("conflict", "approval apr_a: the approval request was already answered or withdrawn") });
    pass();
    await user.click(screen.getByRole("button", { name: "Deny" }));
    await settle();
    expect(screen.queryByRole("alert")).toBeNull();
    expectDiff(screen.getByRole("dialog"), "b.txt");
  });

  it.each([
    [
      "a shell command: the command",
      { kind: "shell", tool: "bash", command: "go test ./... && echo ok" },
      "Run a command?",
      { Command: "go test ./... && echo ok" },
      ["Tool bash"],
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
      "a fetch: the host",
      { kind: "fetch", tool: "web_fetch", host: "go.dev" },
      "Reach a host on the network?",
      {},
      ["Hostgo.dev"],
    ],
    [
      "an MCP tool: the tool and what its server says of it",
      { kind: "mcp", tool: "issues_create" },
      "Call an MCP tool?",
      {},
      ["Toolissues_create", "its server does not mark it read-only: it may change things"],
    ],
    [
      // The dialog names the MCP server and its own name for the tool: whose program runs.
      "an MCP tool of a named server: the server, its tool and what it says of it",
      { kind: "mcp", tool: "mcp__github__create_issue", mcpServer: "github", mcpTool: "create_issue", readOnly: true },
      "Call an MCP tool?",
      {},
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
    const log = new Log();
    log.runStart("run_1", "p");
    asking(log, "apr_1", action, "the model asks", labelled["Diff"] ?? (action as { command?: string }).command ?? "", [
      { kind: action.kind, tool: action.tool },
    ]);
    mount(log);
    const dialog = screen.getByRole("dialog", { name: question });
    for (const [label, text] of Object.entries(labelled)) {
      if (label === "Diff") expect(diffShown(dialog)).toMatch(/^Diff of .*hello.*bye/);
      else expect(within(dialog).getByLabelText(label).textContent).toBe(text);
    }
    for (const t of texts) expect(dialog.textContent).toContain(t);
    expect(dialog.textContent).toContain("Why Foya asks: Manual mode asks before " + action.kind);
    expect(within(dialog).getByRole("radio", { name: `Tool ${action.tool}` })).toBeTruthy();
  });

  it("shows a command as the policy read it, from the request: every command it runs, deletes, what it cannot read", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    const command = `echo ok && sh -c "rm -rf build" && eval "$X"`;
    const parsed = {
      simple: [["echo", "ok"], ["sh", "-c", "rm -rf build"], ["rm", "-rf", "build"], ["eval", "$X"]],
      deletes: ["rm -rf build"],
      opaque: ["eval runs a string Foya cannot read"],
    };
    asking(log, "apr_1", { kind: "shell", tool: "bash", command, parsed }, "run a shell command", command, []);
    const { transport } = mount(log);
    await settle();
    // Nothing is asked of the kernel: the request carries the parse.
    expect(transport.calls.filter((c) => c.method !== "Answer")).toEqual([]);
    const list = screen.getByRole("list", { name: "Commands it runs" });
    expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "echo ok",
      "sh -c rm -rf build",
      "rm -rf build",
      "eval $X",
    ]);
    const notes = screen.getAllByRole("note").map((n) => n.textContent);
    expect(notes).toEqual(["Deletes files for good: rm -rf build", "Foya cannot tell what part of it runs: eval runs a string Foya cannot read"]);
  });

  it("shows the command's text alone for a request stored without its parse", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    asking(log, "apr_1", { kind: "shell", tool: "bash", command: "make all" }, "run", "make all", []);
    const { transport } = mount(log);
    await settle();
    expect(screen.getByLabelText("Command").textContent).toBe("make all");
    expect(screen.queryByRole("list", { name: "Commands it runs" })).toBeNull();
    expect(transport.calls).toEqual([]);
  });

  it("names the chosen scope in words before the click", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    asking(log, "apr_1", { kind: "fetch", tool: "web_fetch", host: "go.dev" }, "fetch a page", "", [
      { kind: "fetch", host: "go.dev" },
      { kind: "fetch", tool: "web_fetch" },
    ]);
    const { transport } = mount(log);
    const button = screen.getByRole("button", { name: "Allow for this session" });
    const described = () => document.getElementById(button.getAttribute("aria-describedby")!)!.textContent;
    expect(described()).toBe(
      "For this session: Network fetches of the host go.dev (not its subdomains, not other hosts), for the rest of this session.",
    );
    pass();
    await user.click(screen.getByRole("radio", { name: "Tool web_fetch" }));
    expect(described()).toBe("For this session: Every fetch of any host by the tool web_fetch, for the rest of this session.");
    await user.click(button);
    await settle();
    expect(answers(transport)).toEqual([["apr_1", { choice: "allow_session", scope: { kind: "fetch", tool: "web_fetch" } }]]);
  });

  it("offers no session scope when the request has none", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.add(
      "approval.request",
      { id: "apr_1", sessionId: SESSION, runId: "run_1", request: { callId: "c", action: { kind: "shell", tool: "bash", command: "x" }, why: "w" }, reason: "r", scopes: null, askedAt: "2026-12-01T11:00:01Z" },
      "run_1",
    );
    mount(log);
    expect(screen.queryByRole("button", { name: "Allow for this session" })).toBeNull();
    expect(screen.getByRole("button", { name: "Allow once" })).toBeTruthy();
  });

  it("asks about a private address on its own, naming it, with no session scope", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    const action = { kind: "fetch_private", tool: "web_fetch", host: "intranet.test", addresses: ["10.1.2.3"] };
    asking(log, "apr_1", action, "fetch http://intranet.test/ (host intranet.test resolves to a loopback or private address: 10.1.2.3)", "", []);
    mount(log);
    const dialog = screen.getByRole("dialog", { name: "Reach this machine or the local network?" });
    const what = within(dialog).getByRole("region", { name: "What it does" });
    expect(what.textContent).toContain("intranet.test");
    expect(what.textContent).toContain("Loopback or private address10.1.2.3 (asked on every fetch)");
    expect(within(dialog).queryByRole("button", { name: "Allow for this session" })).toBeNull();
  });

  it("counts the waiting requests in the title, and shows a notification that could not be shown", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.ask("run_1", "apr_a", "call_a", write("a.txt"), "+a");
    const { store } = mount(log);
    await settle();
    expect(document.title).toBe("(1) Foya");
    asking(log, "apr_b", { kind: "shell", tool: "bash", command: "make" }, "run", "make", []);
    act(() => store.getState().apply(log.events));
    await settle();
    expect(document.title).toBe("(2) Foya");
    // The shell notifies (useNotifications); a failure shows here.
    vi.stubGlobal("Notification", undefined);
    await act(async () => void (await notify("approval", "t", "b", "apr_b")));
    expect(screen.getByText(/this browser has no notifications/)).toBeTruthy();
    log.runEnd("run_1", "cancelled", "cancelled");
    act(() => store.getState().apply(log.events));
    expect(document.title).toBe("Foya");
    vi.unstubAllGlobals();
  });

  it("offers to turn notifications on in a browser that has not asked yet", async () => {
    const asked = vi.fn(async () => "granted");
    vi.stubGlobal("Notification", { permission: "default", requestPermission: asked });
    mount(three());
    await user.click(screen.getByRole("button", { name: "Notify me when an approval waits" }));
    await settle();
    expect(asked).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole("button", { name: "Notify me when an approval waits" })).toBeNull();
    vi.unstubAllGlobals();
  });

  it("closes when the run ends with its request unanswered", () => {
    const log = three();
    const { store } = mount(log);
    log.runEnd("run_1", "cancelled", "cancelled");
    act(() => store.getState().apply(log.events));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("keeps a pending request across a reload: the replayed events bring it back", async () => {
    // The stored events of a real session, up to its first request.
    const stored = runLog
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Event);
    const ask = stored.findIndex((e) => e.type === "approval.request");
    const sessionId = stored[0]!.sessionId;
    const transport = new FakeTransport({ Answer: null });
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
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <ApprovalQueue sessionId={sessionId} />
        </SessionStoreProvider>
      </TransportProvider>,
    );
    expect(screen.queryByRole("dialog")).toBeNull();
    for (const ev of stored.slice(0, ask + 1)) transport.push(ev);
    await settle();
    const dialog = screen.getByRole("dialog", { name: "Write a file?" });
    expect(diffShown(dialog)).toMatch(/^Diff of \/home\/me\/project\/notes\.txt: .*hello/);
    expect(dialog.textContent).toContain("create notes.txt (1 line)");
    expect(dialog.textContent).toContain("Manual mode asks before write");
    pass();
    await user.click(within(dialog).getByRole("button", { name: "Allow once" }));
    await settle();
    expect(answers(transport)).toEqual([[(stored[ask]!.data as { id: string }).id, { choice: "allow_once" }]]);
  });
});
