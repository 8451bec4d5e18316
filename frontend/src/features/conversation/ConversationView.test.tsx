// The conversation view, mounted as the shell mounts it:
// inside a TransportProvider (FakeTransport) and a SessionStoreProvider (a
// real store fed through useFollow), fed with real event logs
// (testdata/run.jsonl, crash.jsonl) and hand-built sequences (eventstest).
// The spec IDs above tests are for people: the coverage file lists Go tests.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { VirtuosoMockContext } from "react-virtuoso";
import { afterEach, describe, expect, it, vi } from "vitest";
import crashLog from "../testdata/crash.jsonl?raw";
import runLog from "../testdata/run.jsonl?raw";
import { ApiError, TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import type { Event } from "../../backend/gen/event";
import type { Transport } from "../../backend/transport";
import { HttpTransport } from "../../backend/http";
import { Log, SESSION, WORKDIR, fileChange } from "../eventstest";
import { SessionStoreProvider, useFollow } from "../session/hooks";
import { createSessionStore, type Subscribe } from "../session/store";
import { ConversationView, continueMessage } from "./ConversationView";
import { mountConversation, testProviders } from "./mounttest";

afterEach(cleanup);


const parse = (text: string): Event[] =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Event);

const providers = testProviders;
const mount = mountConversation;

const card = (name: string) => screen.getByRole("article", { name });

describe("ConversationView over a real session (run.jsonl)", () => {
  const events = parse(runLog);

  it("is a log region with a card per call, each named after its tool and target", async () => {
    await mount(events);
    const log = screen.getByRole("log", { name: "Conversation" });
    const names = within(log)
      .getAllByRole("article")
      .map((a) => a.getAttribute("aria-label"));
    expect(names).toEqual([
      "write notes.txt",
      "edit notes.txt",
      "bash echo cleaned >> log.txt",
      "bash for i in 1 2 3; do echo line $i; sleep 0.7; done",
      "bash sleep 30",
    ]);
    expect(screen.getByText("Create notes.txt saying hello, then make it say bye")).toBeTruthy();
    expect(screen.getByText("Approval mode switched from Manual to Auto.")).toBeTruthy();
  });

  // spec: D5
  it("shows a successful write and edit as the file change only, the diff on demand", async () => {
    const { t } = await mount(events, {
      replies: { Diff: "diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n" },
    });
    const w = card("write notes.txt");
    expect(within(w).getByText("done")).toBeTruthy();
    expect(within(w).getByText("created")).toBeTruthy();
    expect(within(w).getAllByText("notes.txt")).toHaveLength(2); // the card's target and the change's path
    expect(within(w).getByLabelText("1 lines added, 0 removed")).toBeTruthy();
    // Never the raw arguments, nor a way to show them.
    expect(w.textContent).not.toContain('"content"');
    expect(within(w).queryByRole("button", { name: /arguments/ })).toBeNull();
    const e = card("edit notes.txt");
    expect(e.textContent).not.toContain("old_string");
    await userEvent.click(within(e).getByRole("button", { name: "Show diff" }));
    const region = await within(e).findByRole("region", { name: "Diff of notes.txt" });
    await waitFor(() => expect(within(region).getByRole("table")).toBeTruthy());
    expect(region.textContent).toContain("bye");
    const editEnd = events.find((ev) => ev.type === "tool.end" && (ev.data as { id: string }).id === "call_e")!;
    const changeId = (editEnd.data as { fileChanges: { id: string }[] }).fileChanges[0]!.id;
    expect(t.calls.find((c) => c.method === "Diff")!.args).toEqual([changeId]);
  });

  // spec: D5
  it("shows a denied call's whole error and the person's message", async () => {
    await mount(events);
    const b = card("bash echo cleaned >> log.txt");
    expect(within(b).getByText("error")).toBeTruthy();
    expect(within(b).getByText("Denied by you: “do not delete anything”.")).toBeTruthy();
    expect(within(b).getByLabelText("Error of bash echo cleaned >> log.txt").textContent).toBe(
      "bash: denied by the user: do not delete anything; the command did not run",
    );
  });

  it("lists the MCP resources attached to a prompt under it", async () => {
    const start = events.find((e) => e.type === "run.start")!;
    const withResources = {
      ...start,
      data: { ...(start.data as object), resources: [{ server: "notes", uri: "notes://all" }] },
    } as Event;
    await mount([withResources, ...events.filter((e) => e !== start)]);
    const list = screen.getAllByRole("list", { name: "Attached resources" });
    expect(list).toHaveLength(1);
    expect(within(list[0]!).getByRole("listitem").textContent).toBe("notes://all (notes)");
  });

  it("shows durations, the output's lines at once, the whole result on demand, and a cancelled run's card as cancelled", async () => {
    await mount(events);
    const name = "bash for i in 1 2 3; do echo line $i; sleep 0.7; done";
    const tail = card(name);
    expect(within(tail).getByText("2.2 s")).toBeTruthy();
    expect(within(tail).getByLabelText(`Output of ${name}`).textContent).toBe("line 1\nline 2\nline 3");
    expect(tail.textContent).not.toContain("Exit code 0 after 2.22s.");
    await userEvent.click(within(tail).getByRole("button", { name: "Show the whole result" }));
    expect(tail.textContent).toContain("Exit code 0 after 2.22s.");
    const s = card("bash sleep 30");
    expect(within(s).getByText("cancelled")).toBeTruthy();
    expect(within(s).getByText("1.5 s")).toBeTruthy();
    expect(screen.getByText("Stopped by you.")).toBeTruthy();
  });
});

describe("ConversationView over a crash (crash.jsonl)", () => {
  // spec: X2
  it("shows the interrupted run and its interrupted cards as such", async () => {
    await mount(parse(crashLog));
    expect(within(card("read notes.txt")).getByText("done")).toBeTruthy();
    const z = card("bash sleep 60");
    expect(within(z).getByText("interrupted")).toBeTruthy();
    expect(z.textContent).toContain("interrupted, not replayed: Foya stopped while this call was running");
    // A write that never ran is not a file change: its error shows, not a change.
    const q = card("write after.txt");
    expect(within(q).getByText("interrupted")).toBeTruthy();
    expect(within(q).queryByRole("button", { name: "Show diff" })).toBeNull();
    expect(screen.getByText(/Interrupted: Foya stopped during this run; 2 unfinished tool calls were not replayed/)).toBeTruthy();
  });
});

describe("a card moves live through its states", () => {
  it("queued with the argument bytes, waiting, running with the tail, done with its duration", async () => {
    const log = new Log();
    const r = "run_1";
    log.runStart(r, "List and test");
    log.stepStart(r, 1);
    const { push } = await mount(log.events);
    const at = log.events.length;
    const more = () => log.events.slice(at);
    let seen = at;
    const step = async () => {
      await push(log.events.slice(seen));
      seen = log.events.length;
    };

    log.add("tool.begin", { step: 1, index: 0, id: "c1", name: "bash" }, r);
    log.add("tool.update", { step: 1, id: "c1", argsBytes: 14, argsDelta: '{"command":"go' }, r);
    await step();
    let c = screen.getByRole("article", { name: "bash" });
    expect(within(c).getByText("queued")).toBeTruthy();
    expect(within(c).getByText("arguments 14 bytes")).toBeTruthy();

    log.add("tool.update", { step: 1, id: "c1", argsBytes: 27, argsDelta: ' test ./..."}' }, r);
    await step();
    c = card("bash go test ./...");
    expect(within(c).getByText("arguments 27 bytes")).toBeTruthy();

    log.ask(r, "apr_1", "c1", { kind: "exec", tool: "bash" });
    await step();
    expect(within(c).getByText("waiting for approval")).toBeTruthy();
    // The request is in the card itself, saying why Foya asks (once: no separate note).
    const request = within(c).getByRole("region", { name: "Allow bash?" });
    expect(within(request).getByText("write inside the workspace in manual mode")).toBeTruthy();
    expect(within(c).queryByText(/^Waiting for your approval: /)).toBeNull();

    log.answer(r, "apr_1", "c1", "allowed", "allow_once");
    log.running(r, 1, "c1");
    log.add("tool.update", { step: 1, id: "c1", progress: { tail: "ok  foya/a\n" } }, r);
    await step();
    expect(within(c).getByText("running")).toBeTruthy();
    expect(within(c).getByLabelText("Live output of bash go test ./...").textContent).toBe("ok  foya/a\n");

    log.add("tool.update", { step: 1, id: "c1", progress: { tail: "ok  foya/a\nok  foya/b\n" } }, r);
    await step();
    expect(within(c).getByLabelText("Live output of bash go test ./...").textContent).toBe("ok  foya/a\nok  foya/b\n");

    log.end(r, 1, 0, "c1", "bash", "done", "ok  foya/a\nok  foya/b\n\nExit code 0 after 1.20s.", { durationMs: 1200 });
    await step();
    expect(within(c).getByText("done")).toBeTruthy();
    expect(within(c).getByText("1.2 s")).toBeTruthy();
    expect(within(c).queryByLabelText(/Live output/)).toBeNull();
    expect(more().length).toBeGreaterThan(0);
  });

  it("a call the run's end left unended says so", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "read", '{"path":"a.txt"}');
    log.runEnd("run_1", "failed", "the model's server closed the stream");
    await mount(log.events);
    const c = card("read a.txt");
    expect(within(c).getByText("error")).toBeTruthy();
    expect(within(c).getByText("The run ended before this call did.")).toBeTruthy();
    const failed = screen.getByRole("alert", { name: /The run failed/ });
    expect(within(failed).getByText("the model's server closed the stream")).toBeTruthy();
  });

  // spec: D5
  it("a failed edit shows its full error, not a file change", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "edit", '{"path":"missing.txt","old":"a","new":"b"}');
    log.running("run_1", 1, "c1");
    const long = "missing.txt does not exist (check the path with ls or glob) " + "x".repeat(3000);
    log.end("run_1", 1, 0, "c1", "edit", "error", long);
    await mount(log.events);
    const c = card("edit missing.txt");
    expect(within(c).getByLabelText("Error of edit missing.txt").textContent).toBe(long);
  });

  // spec: O3
  it("shows truncation notices and the full stored result on demand", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "bash", '{"command":"seq 900"}');
    log.running("run_1", 1, "c1");
    const notice = "[12 lines (345 bytes) of 900 lines (40,000 bytes) left out before this]";
    log.end("run_1", 1, 0, "c1", "bash", "done", `${notice}\n889\n900\n`);
    const full = Array.from({ length: 900 }, (_, i) => String(i + 1)).join("\n");
    const { t } = await mount(log.events, {
      replies: { Calls: [{ sessionId: SESSION, runId: "run_1", id: "c1", step: 1, index: 0, name: "bash", arguments: "{}", state: "done", result: { text: full } }] },
    });
    const c = card("bash seq 900");
    expect(within(c).getByRole("note").textContent).toBe(notice);
    await userEvent.click(within(c).getByRole("button", { name: "Show the full stored result" }));
    expect((await within(c).findByLabelText("Full stored result")).textContent).toBe(full);
    expect(t.calls.find((x) => x.method === "Calls")!.args).toEqual(["run_1"]);
  });

  // A 1x1 PNG, and an SVG that would run script if it were put in the page as markup.
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
  const svg = btoa('<svg xmlns="http://www.w3.org/2000/svg"><script>window.pwned = 1</script></svg>');
  function imageRun(mime = "image/png") {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "read", '{"path":"shot.png"}');
    log.end("run_1", 1, 0, "c1", "read", "done", `an image (${mime})`, { artifacts: ["art_1"] });
    return log;
  }
  /** blobs records the Blobs the view turns into URLs. */
  function blobs(): Blob[] {
    const made: Blob[] = [];
    const real = URL.createObjectURL.bind(URL);
    vi.spyOn(URL, "createObjectURL").mockImplementation((b: Blob | MediaSource) => {
      made.push(b as Blob);
      return real(b);
    });
    return made;
  }

  // spec: I1
  it("shows an image artifact on the desktop, read through the Artifact call, as an <img> of a blob: URL", async () => {
    const made = blobs();
    const { t } = await mount(imageRun().events, {
      replies: { Artifact: { id: "art_1", mime: "image/png", size: 70, width: 1, height: 1, data: png } },
    });
    const img = await within(card("read shot.png")).findByRole("img", { name: "Image art_1 from the tool" });
    expect(img.getAttribute("src")).toMatch(/^blob:/);
    expect(t.calls.filter((c) => c.method === "Artifact").map((c) => c.args)).toEqual([[SESSION, "art_1"]]);
    expect(made).toHaveLength(1);
    expect(made[0]!.type).toBe("image/png");
    const got = new Uint8Array(await made[0]!.arrayBuffer());
    expect(Array.from(got.slice(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(got.length).toBe(atob(png).length);
  });

  it("shows an SVG artifact only through an <img>: its script is never markup in the page", async () => {
    const made = blobs();
    const { view } = await mount(imageRun("image/svg+xml").events, {
      replies: { Artifact: { id: "art_1", mime: "image/svg+xml", size: atob(svg).length, data: svg } },
    });
    const img = await within(card("read shot.png")).findByRole("img", { name: "Image art_1 from the tool" });
    expect(img.tagName).toBe("IMG");
    expect(img.getAttribute("src")).toMatch(/^blob:/);
    expect(made[0]!.type).toBe("image/svg+xml");
    expect(view.container.querySelector("svg script, script")).toBeNull();
    expect(view.container.innerHTML).not.toContain("pwned");
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it("names an artifact that is not an image, with its type and size, and makes no URL of it", async () => {
    const made = blobs();
    await mount(imageRun("application/pdf").events, {
      replies: { Artifact: { id: "art_1", mime: "application/pdf", size: 2048, data: btoa("%PDF-1.7") } },
    });
    const c = card("read shot.png");
    await waitFor(() => expect(c.textContent).toContain("is application/pdf (2.0 KB), not an image"));
    expect(within(c).queryByRole("img")).toBeNull();
    expect(made).toHaveLength(0);
  });

  it("says why an artifact could not be read, and reads it again on Try again", async () => {
    const t = new FakeTransport({
      Session: session({ id: SESSION, provider: "local", model: "m" }),
      Providers: providers,
      Artifact: new ApiError("invalid", "artifact art_1 is 25.0 MiB, more than the 20.0 MiB the window reads at once"),
    });
    await mount(imageRun().events, { transport: t });
    const c = card("read shot.png");
    expect((await within(c).findByRole("alert")).textContent).toContain("is 25.0 MiB, more than the 20.0 MiB");
    t.replies.Artifact = { id: "art_1", mime: "image/png", size: 70, width: 1, height: 1, data: png };
    await userEvent.click(within(c).getByRole("button", { name: "Try again" }));
    expect((await within(c).findByRole("img")).getAttribute("src")).toMatch(/^blob:/);
    expect(t.callsOf("Artifact")).toBe(2);
  });

  it("reads an artifact once while its card unmounts and mounts again", async () => {
    const t = new FakeTransport({
      Session: session({ id: SESSION, provider: "local", model: "m" }),
      Providers: providers,
      Artifact: { id: "art_1", mime: "image/png", size: 70, width: 1, height: 1, data: png },
    });
    const store = createSessionStore(SESSION);
    store.getState().apply(imageRun().events);
    // One transport, as the app has, for both mounts (the virtualized list unmounts cards out of view).
    const show = () =>
      render(
        <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
          <TransportProvider transport={t}>
            <SessionStoreProvider store={store}>
              <ConversationView sessionId={SESSION} />
            </SessionStoreProvider>
          </TransportProvider>
        </VirtuosoMockContext.Provider>,
      );
    const first = show();
    const src = (await within(card("read shot.png")).findByRole("img")).getAttribute("src");
    first.unmount();
    show();
    expect((await within(card("read shot.png")).findByRole("img")).getAttribute("src")).toBe(src);
    expect(t.callsOf("Artifact")).toBe(1);
  });

  it("shows an image artifact in the browser through the Artifact call, with the bearer token", async () => {
    // No cookie, so no <img src> of the artifacts route: a page of another origin could not read it either.
    const log = imageRun();
    const requests: { method: string; auth: string | null }[] = [];
    const http = new HttpTransport({
      token: "t0ken",
      fetch: async (input, init) => {
        const m = String(input).split("/").pop() ?? "";
        requests.push({ method: m, auth: new Headers(init?.headers).get("Authorization") });
        const body =
          m === "Session"
            ? session({ id: SESSION, provider: "local" })
            : m === "Artifact"
              ? { id: "art_1", mime: "image/png", size: 70, width: 1, height: 1, data: png }
              : providers;
        return new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
      },
      openEvents: () => ({ onopen: null, onmessage: null, onerror: null, readyState: 1, close() {} }),
    });
    const store = createSessionStore(SESSION);
    store.getState().apply(log.events);
    render(
      <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
        <TransportProvider transport={http}>
          <SessionStoreProvider store={store}>
            <ConversationView sessionId={SESSION} />
          </SessionStoreProvider>
        </TransportProvider>
      </VirtuosoMockContext.Provider>,
    );
    const img = await within(card("read shot.png")).findByRole("img");
    expect(img.getAttribute("src")).toMatch(/^blob:/);
    expect(requests.find((r) => r.method === "Artifact")).toEqual({ method: "Artifact", auth: "Bearer t0ken" });
  });
});

describe("the model's text", () => {
  async function textOf(text: string) {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.text("run_1", 1, text);
    return mount(log.events);
  }

  it("is sanitized: no script, no javascript: link, no event handler", async () => {
    const { view } = await textOf(
      'Hi <script>window.pwned = 1</script> [click](javascript:alert(1)) <img src="x" onerror="window.pwned = 2"> **bold**',
    );
    const root = view.container;
    expect(root.querySelector("script")).toBeNull();
    expect(root.querySelector("img")).toBeNull();
    expect(root.querySelector("[onerror]")).toBeNull();
    const link = screen.getByText("click");
    expect(link.getAttribute("href") ?? "").not.toMatch(/javascript/i);
    expect(screen.getByText("bold").tagName).toBe("STRONG");
    expect((window as { pwned?: number }).pwned).toBeUndefined();
  });

  it("renders GitHub markdown and highlights a code block once its language has loaded", async () => {
    const { view } = await textOf("| a | b |\n| - | - |\n| 1 | 2 |\n\n```ts\nconst x: number = 1;\n```\n");
    expect(view.container.querySelector("table")).not.toBeNull();
    await waitFor(() => expect(view.container.querySelector("pre code .token.keyword")?.textContent).toBe("const"));
  });

  it("streams, with the reasoning open until the text starts, then collapsed", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.add("reasoning.delta", { step: 1, text: "Thinking about files." }, "run_1");
    const { push } = await mount(log.events);
    expect(screen.getByText("Thinking about files.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Hide reasoning" }).getAttribute("aria-expanded")).toBe("true");
    const at = log.events.length;
    log.text("run_1", 1, "Here ");
    log.text("run_1", 1, "it is.");
    await push(log.events.slice(at));
    await waitFor(() => expect(screen.getByText("Here it is.")).toBeTruthy());
    expect(screen.queryByText("Thinking about files.")).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Show reasoning" }));
    expect(screen.getByText("Thinking about files.")).toBeTruthy();
  });
});

describe("the composer", () => {
  function done(): Log {
    const log = new Log();
    log.runStart("run_1", "Fix the flaky test");
    log.stepStart("run_1", 1);
    log.text("run_1", 1, "Fixed.");
    log.stepEnd("run_1", 1, "stop", 0);
    log.runEnd("run_1", "completed");
    return log;
  }

  it("sends on Enter, adds a line on Shift+Enter, recalls the last prompt on Up", async () => {
    const { t } = await mount(done().events, { replies: { Run: "run_2" } });
    const box = screen.getByRole("textbox", { name: "Message" });
    await userEvent.click(box);
    await userEvent.keyboard("{ArrowUp}");
    expect((box as HTMLTextAreaElement).value).toBe("Fix the flaky test");
    await userEvent.clear(box);
    await userEvent.type(box, "line one{Shift>}{Enter}{/Shift}line two");
    expect((box as HTMLTextAreaElement).value).toBe("line one\nline two");
    expect(t.callsOf("Run")).toBe(0);
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(t.callsOf("Run")).toBe(1));
    expect(t.calls.find((c) => c.method === "Run")!.args).toEqual([SESSION, "line one\nline two"]);
    await waitFor(() => expect((box as HTMLTextAreaElement).value).toBe(""));
    // Until the run's start arrives a message typed is queued.
    expect(screen.getByRole("button", { name: "Queue" })).toBeTruthy();
    expect(box.getAttribute("aria-disabled")).toBe("false");
    await userEvent.type(box, "then this{Enter}");
    expect(screen.getByText("Queued: then this")).toBeTruthy();
  });

  it("queues what is typed while a run goes, with the reason; Escape and Stop cancel; the card then shows cancelled", async () => {
    const log = new Log();
    log.runStart("run_1", "Sleep");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "bash", '{"command":"sleep 30"}');
    log.running("run_1", 1, "c1");
    const { t, push } = await mount(log.events, { replies: { Cancel: true, Run: "run_x" } });
    const box = screen.getByRole("textbox", { name: "Message" });
    expect(box.getAttribute("aria-disabled")).toBe("false");
    expect(screen.getByText("A run is going: Enter queues your message, sent when the run completes. Escape stops the run.")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Queue" }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(box, "more{Enter}");
    expect(t.callsOf("Run")).toBe(0);
    expect(screen.getByText("Queued: more")).toBeTruthy();

    await userEvent.keyboard("{Escape}");
    expect(t.callsOf("Cancel")).toBe(1);
    await userEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(t.calls.filter((c) => c.method === "Cancel").map((c) => c.args)).toEqual([[SESSION], [SESSION]]);

    const at = log.events.length;
    log.end("run_1", 1, 0, "c1", "bash", "cancelled", "(no output)\n\nCancelled after 1.5s.", { durationMs: 1500 });
    log.runEnd("run_1", "cancelled", "cancelled");
    await push(log.events.slice(at));
    expect(within(card("bash sleep 30")).getByText("cancelled")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    expect(box.getAttribute("aria-disabled")).toBe("false");
    // The run was stopped: the queued message stays, not sent, and says why.
    expect(await screen.findByText("The run was stopped, so this was not sent.")).toBeTruthy();
    expect(t.callsOf("Run")).toBe(0);
  });

  it.each([
    [new ApiError("busy", "session ses_01 has a run going"), "This session already has a run going: wait for it to end, or stop it (Escape), then send again."],
    [
      new ApiError("invalid", "no model: pass --model, set FOYA_MODEL, or add a provider with foya providers add"),
      "This session has no model to ask: add a provider profile with a model in Settings, then send again.",
    ],
    [
      new ApiError("unavailable", "the keyring is locked"),
      "The model's server is not available (the keyring is locked): check the provider in Settings, then send again.",
    ],
  ])("says why Run was refused (%s)", async (err, words) => {
    const { t } = await mount(done().events, { replies: { Run: err } });
    await userEvent.type(screen.getByRole("textbox", { name: "Message" }), "again{Enter}");
    expect((await screen.findByRole("alert")).textContent).toBe(words);
    expect(t.callsOf("Run")).toBe(1);
    // The draft is kept to send again.
    expect((screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement).value).toBe("again");
  });

  it("is disabled with the reason when the session has no model", async () => {
    await mount(done().events, { replies: { Session: session({ id: SESSION, provider: "", model: "" }), Providers: [] } });
    const box = screen.getByRole("textbox", { name: "Message" });
    await waitFor(() => expect(box.getAttribute("aria-disabled")).toBe("true"));
    expect(screen.getByText(/This session has no model: add a provider profile with a model in Settings/)).toBeTruthy();
  });

  it("offers Continue after the step-limit stop, which starts a run with a short message", async () => {
    const log = new Log();
    log.runStart("run_1", "Refactor everything");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "read", '{"path":"a.go"}');
    log.end("run_1", 1, 0, "c1", "read", "done", "package a");
    log.stepEnd("run_1", 1, "tool_calls", 1);
    log.runEnd("run_1", "failed", "stopped after 1 model steps, the limit for one turn: send another message to continue, or raise the limit (the run.max_steps setting)");
    const { t } = await mount(log.events, { replies: { Run: "run_2" } });
    await userEvent.click(await screen.findByRole("button", { name: "Continue" }));
    await waitFor(() => expect(t.callsOf("Run")).toBe(1));
    expect(t.calls.find((c) => c.method === "Run")!.args).toEqual([SESSION, continueMessage]);
  });

  it("offers no Continue after another failure", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.runEnd("run_1", "failed", "the model's server said 500");
    await mount(log.events);
    expect(screen.queryByRole("button", { name: "Continue" })).toBeNull();
  });
});

describe("file changes", () => {
  // spec: D5, D1
  it("a successful delete shows the change and where the file went, not the arguments", async () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.stepStart("run_1", 1);
    log.call("run_1", 1, 0, "c1", "delete", JSON.stringify({ path: "old.txt", secretish: "RAW-ARGS" }));
    log.running("run_1", 1, "c1");
    const ch = { ...fileChange("chg_1", "run_1", "c1", WORKDIR + "/old.txt", "delete"), added: 0, removed: 3, trashPath: "/home/me/.local/share/Trash/files/old.txt" };
    log.end("run_1", 1, 0, "c1", "delete", "done", "Deleted old.txt (moved to the trash).", { fileChanges: [ch] });
    await mount(log.events);
    const c = card("delete old.txt");
    expect(c.textContent).not.toContain("RAW-ARGS");
    expect(within(c).getByText("deleted")).toBeTruthy();
    expect(within(c).getByLabelText("0 lines added, 3 removed")).toBeTruthy();
    expect(c.textContent).toContain("/home/me/.local/share/Trash/files/old.txt");
    fireEvent.click(within(c).getByRole("button", { name: "Show diff" }));
    // No Diff reply: the error says so in words.
    expect((await within(c).findByRole("alert")).textContent).toMatch(/^The diff could not be read \(.*\): try again\.$/);
  });
});

describe("ConversationView before the list has measured (no VirtuosoMockContext)", () => {
  // The latest rows show in the first frame, before
  // react-virtuoso has measured the viewport (happy-dom has no layout, so
  // the list never renders a row here: what shows is Latest's).
  it("shows the latest rows at once, over the hidden list, and hands over on a wheel", async () => {
    const t = new FakeTransport({ Session: session({ id: SESSION, provider: "local", model: "m" }), Providers: providers });
    const store = createSessionStore(SESSION);
    const subscribe = t.subscribe.bind(t) as Subscribe;
    const transport: Transport = { call: t.call.bind(t), subscribe, subscribeAll: t.subscribeAll.bind(t), subscribeNotices: t.subscribeNotices.bind(t), pickFolder: null };
    function Follows(props: { children: ReactNode }) {
      useFollow(store, subscribe);
      return <>{props.children}</>;
    }
    const view = render(
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <Follows>
            <ConversationView sessionId={SESSION} />
          </Follows>
        </SessionStoreProvider>
      </TransportProvider>,
    );
    const log = new Log();
    log.add("run.start", { prompt: "Write the notes", workdir: WORKDIR, model: "m", provider: "local", approvalMode: "auto" }, "run_1");
    log.add("step.start", { step: 1, tools: ["bash"] }, "run_1");
    log.add("tool.begin", { step: 1, index: 0, id: "call_1", name: "bash" }, "run_1");
    log.add("tool.update", { step: 1, id: "call_1", argsBytes: 20, argsDelta: '{"command":"ls -la"}' }, "run_1");
    await act(async () => {
      for (const ev of log.events) t.push(ev);
      await Promise.resolve();
    });
    const latest = view.container.querySelector(".convo-latest");
    expect(latest).not.toBeNull();
    // No layout: one row fills it (the last: the running turn's status).
    expect(within(latest as HTMLElement).getByRole("status")).toBeTruthy();
    expect(view.container.querySelector(".convo-scroller")?.classList.contains("convo-unsettled")).toBe(true);
    fireEvent.wheel(latest as HTMLElement);
    expect(view.container.querySelector(".convo-latest")).toBeNull();
    expect(view.container.querySelector(".convo-scroller")?.classList.contains("convo-unsettled")).toBe(false);
  });
});
