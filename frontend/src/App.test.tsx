import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { VirtuosoMockContext } from "react-virtuoso";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { ApiError, TransportProvider, type UIReport } from "./backend";
import type { Event } from "./backend/gen/event";
import { FakeTransport, session } from "./backend/fake";
import { Log } from "./features/eventstest";
import crashLog from "./features/testdata/crash.jsonl?raw";

afterEach(cleanup);
beforeEach(() => history.replaceState(null, "", "/"));

const info = { version: "1.2.3-test", commit: "abc1234", date: "2026-12-01", dataDir: "/data/foya", dbPath: "/data/foya/foya.db" };

function renderApp(transport: FakeTransport) {
  const reports: UIReport[] = [];
  render(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
      <TransportProvider transport={transport}>
        <App onReady={(r) => reports.push(r)} />
      </TransportProvider>
    </VirtuosoMockContext.Provider>,
  );
  return reports;
}

describe("App", () => {
  it("shows the kernel's version and the sessions, then reports ready once", async () => {
    const transport = new FakeTransport({
      Info: info,
      Sessions: [session({ id: "a", title: "First" }), session({ id: "b", title: "Second" })],
    });
    const reports = renderApp(transport);

    expect(await screen.findByText("Foya 1.2.3-test")).toBeTruthy();
    const list = await screen.findByRole("list", { name: "Sessions" });
    expect(within(list).getByRole("button", { name: "First" })).toBeTruthy();
    expect(within(list).getByRole("button", { name: "Second" })).toBeTruthy();
    await waitFor(() => expect(reports).toEqual([{ version: "1.2.3-test", sessions: 2, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false }]));
    expect(transport.calls).toEqual([
      { method: "Info", args: [] },
      { method: "Sessions", args: [] },
      { method: "Providers", args: [] }, // is this the first run?
    ]);
    // The session list and the notifications each follow every session.
    expect(transport.subscribers()).toEqual({ session: 0, all: 2, notices: 0 });
  });

  it("shows the version, commit and data folder in About", async () => {
    renderApp(new FakeTransport({ Info: info, Sessions: [] }));
    await userEvent.setup().click(await screen.findByRole("button", { name: /about Foya/ }));
    const about = await screen.findByRole("dialog", { name: "About Foya" });
    expect(about.textContent).toContain("abc1234");
    expect(about.textContent).toContain("/data/foya/foya.db");
  });

  it("says so when the database was opened read-only", async () => {
    renderApp(new FakeTransport({ Info: { ...info, readOnly: "the file system is mounted read-only" }, Sessions: [] }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Read-only");
    expect(alert.textContent).toContain("the file system is mounted read-only");
    expect(alert.textContent).toContain("/data/foya/foya.db");
  });

  it("reports an empty list, and a null one, as zero sessions", async () => {
    for (const sessions of [[], null]) {
      const reports = renderApp(new FakeTransport({ Info: info, Sessions: sessions }));
      expect(await screen.findByText(/No sessions yet/)).toBeTruthy();
      expect(screen.getByRole("heading", { name: "Start your first session" })).toBeTruthy();
      await waitFor(() => expect(reports).toEqual([{ version: "1.2.3-test", sessions: 0, error: "", open: "", turns: 0, cards: 0, images: 0, setup: false }]));
      cleanup();
    }
  });

  it("shows a kernel that failed to open instead of a blank window, and tries again", async () => {
    // What api.Service answers when kernel.Open failed: Info knows only the
    // version, Sessions fails with the reason.
    const transport = new FakeTransport({
      Info: { version: "1.2.3-test", commit: "", date: "", dataDir: "", dbPath: "" },
      Sessions: new ApiError("internal", "open kernel: open /nowhere/foya.db: permission denied"),
    });
    const reports = renderApp(transport);

    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("open kernel: open /nowhere/foya.db: permission denied");
    expect(screen.getByRole("heading", { name: "Sessions are not available" })).toBeTruthy();
    await waitFor(() =>
      expect(reports).toEqual([
        { version: "1.2.3-test", sessions: 0, error: "open kernel: open /nowhere/foya.db: permission denied", open: "", turns: 0, cards: 0, images: 0, setup: false },
      ]),
    );
    transport.replies["Sessions"] = [session({ id: "n", title: "Now it opens" })];
    await userEvent.setup().click(within(alert).getByRole("button", { name: "Try again" }));
    expect(await screen.findByRole("button", { name: "Now it opens" })).toBeTruthy();
    expect(reports).toHaveLength(1);
  });

  it("shows why nothing loads when the backend is unreachable", async () => {
    const gone = new ApiError("unavailable", "Foya's server is not reachable (Failed to fetch): start foya serve");
    const reports = renderApp(new FakeTransport({ Info: gone, Sessions: gone }));
    expect(await screen.findByText("Foya, version unknown")).toBeTruthy();
    expect((await screen.findByRole("alert")).textContent).toContain("Foya's server is not reachable");
    await waitFor(() => expect(reports).toEqual([{ version: "", sessions: 0, error: gone.message, open: "", turns: 0, cards: 0, images: 0, setup: false }]));
  });

  it("renders without a ready hook (the browser)", async () => {
    render(
      <TransportProvider transport={new FakeTransport({ Info: info, Sessions: [] })}>
        <App />
      </TransportProvider>,
    );
    expect(await screen.findByText(/No sessions yet/)).toBeTruthy();
  });

  it("keeps each session's status live from every session's events, and lists again after a reconnect", async () => {
    const transport = new FakeTransport({ Info: info, Sessions: [session({ id: "a", title: "First" }), session({ id: "b", title: "Second" })] });
    renderApp(transport);
    await screen.findByRole("button", { name: "Second" });

    const b = new Log("b");
    b.runStart("run_1", "go");
    b.ask("run_1", "apr_1", "call_1", { kind: "write", path: "/x" });
    act(() => transport.push(b.events[0]!));
    const second = () => screen.getByRole("button", { name: "Second" });
    await waitFor(() => expect(screen.getByText("Running")).toBeTruthy());
    // Listed newest first: the session that just ran moved to the top.
    const names = within(screen.getByRole("list", { name: "Sessions" }))
      .getAllByRole("button", { name: /First|Second/ })
      .filter((el) => el.classList.contains("session-item"))
      .map((el) => el.getAttribute("aria-label"));
    expect(names).toEqual(["Second", "First"]);
    act(() => transport.push(b.events[1]!));
    await waitFor(() => expect(second().getAttribute("aria-describedby")).toBeTruthy());
    expect(await screen.findByText("Waiting for approval")).toBeTruthy();

    expect(transport.callsOf("Sessions")).toBe(1);
    act(() => transport.reconnect());
    await waitFor(() => expect(transport.callsOf("Sessions")).toBe(2));
  });

  it("lists again when a session it does not list has events (made by foya exec or another window)", async () => {
    const transport = new FakeTransport({ Info: info, Sessions: [session({ id: "a", title: "First" })] });
    renderApp(transport);
    await screen.findByRole("button", { name: "First" });
    // The events go to whoever follows every session: wait until the list does.
    await waitFor(() => expect(transport.subscribers().all).toBeGreaterThan(0));
    transport.replies["Sessions"] = [session({ id: "x", title: "From elsewhere" }), session({ id: "a", title: "First" })];
    const x = new Log("x");
    x.runStart("run_x", "hello");
    x.stepStart("run_x", 1);
    act(() => {
      transport.push(x.events[0]!);
      transport.push(x.events[1]!);
    });
    expect(await screen.findByRole("button", { name: "From elsewhere" })).toBeTruthy();
    expect(transport.callsOf("Sessions")).toBe(2);
  });

  it("opens a session: its history comes from the store, a run a crash interrupted shown as such", async () => {
    const crash = crashLog
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Event);
    const id = crash[0]!.sessionId;
    const transport = new FakeTransport({ Info: info, Sessions: [session({ id, title: "Slow tests", approvalMode: "auto" })] });
    renderApp(transport);
    await userEvent.setup().click(await screen.findByRole("button", { name: "Slow tests" }));

    expect(screen.getByRole("heading", { name: "Slow tests", level: 2 })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Approval mode: Auto" })).toBeTruthy();
    expect(transport.subscribers().session).toBe(1);
    expect(window.location.hash).toBe(`#session=${id}`);
    act(() => {
      for (const ev of crash) transport.push(ev);
    });
    const log = await screen.findByRole("log", { name: "Conversation" });
    await waitFor(() => expect(log.textContent).toContain("Run the slow tests"));
    expect(log.textContent).toMatch(/Interrupted: Foya stopped during this run/);
  });

  it("reopens the session named in the address after a reload", async () => {
    history.replaceState(null, "", "/#session=b");
    const transport = new FakeTransport({ Info: info, Sessions: [session({ id: "a", title: "First" }), session({ id: "b", title: "Second" })] });
    renderApp(transport);
    expect(await screen.findByRole("heading", { name: "Second", level: 2 })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Second" }).getAttribute("aria-current")).toBe("page");
  });

  // spec: W3
  it("gives focus after a delete to the next session, else the previous, else New session", async () => {
    const transport = new FakeTransport({
      Info: info,
      Sessions: [session({ id: "a", title: "First" }), session({ id: "b", title: "Second" }), session({ id: "c", title: "Third" })],
      BackgroundCommands: [],
      DeleteSession: null,
    });
    renderApp(transport);
    const user = userEvent.setup();
    const list = await screen.findByRole("list", { name: "Sessions" });
    const remove = async (title: string) => {
      await user.click(within(list).getByRole("button", { name: `Delete ${title}` }));
      const dialog = await screen.findByRole("alertdialog", { name: `Delete “${title}”?` });
      await user.click(await within(dialog).findByRole("button", { name: "Delete session" }));
      await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
      await waitFor(() => expect(screen.queryByRole("button", { name: title })).toBeNull());
    };
    await remove("Second");
    await waitFor(() => expect(document.activeElement).toBe(within(list).getByRole("button", { name: "Third" })));
    await remove("Third");
    await waitFor(() => expect(document.activeElement).toBe(within(list).getByRole("button", { name: "First" })));
    await remove("First");
    await waitFor(() => expect(document.activeElement).toBe(within(screen.getByRole("complementary", { name: "Sessions sidebar" })).getByRole("button", { name: "New session" })));
  });

  it("closes an open session that is no longer listed", async () => {
    history.replaceState(null, "", "/#session=gone");
    renderApp(new FakeTransport({ Info: info, Sessions: [session({ id: "a", title: "First" })] }));
    expect(await screen.findByRole("heading", { name: "No session open" })).toBeTruthy();
    await waitFor(() => expect(window.location.hash).toBe(""));
  });

  it("shows the mode live: a session.mode event changes the header's badge", async () => {
    history.replaceState(null, "", "/#session=s1");
    const transport = new FakeTransport({ Info: info, Sessions: [session({ id: "s1", title: "Mine", approvalMode: "manual" })] });
    renderApp(transport);
    expect(await screen.findByRole("button", { name: "Approval mode: Manual" })).toBeTruthy();
    const log = new Log("s1");
    log.add("session.mode", { from: "manual", to: "full_access" });
    act(() => transport.push(log.events[0]!));
    const badge = await screen.findByRole("button", { name: "Approval mode: Full Access" });
    expect(badge.className).toContain("mode-full_access");
  });

  it("toggles the review and background panels from the header", async () => {
    history.replaceState(null, "", "/#session=s1");
    renderApp(new FakeTransport({ Info: info, Sessions: [session({ id: "s1", title: "Mine" })] }));
    const user = userEvent.setup();
    const review = await screen.findByRole("button", { name: "Review" });
    await user.click(review);
    expect(review.getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByRole("complementary", { name: "Review changes" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Background" }));
    expect(screen.queryByRole("complementary", { name: "Review changes" })).toBeNull();
    expect(screen.getByRole("region", { name: "Background commands" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Close background commands" }));
    expect(screen.queryByRole("region", { name: "Background commands" })).toBeNull();
  });
});

describe("App keyboard", () => {
  it("Ctrl+K focuses the search, Ctrl+N opens New session, Ctrl+, opens settings", async () => {
    const transport = new FakeTransport({ Info: info, Sessions: [session({ id: "a", title: "First" })], Providers: [], DefaultMode: "manual" });
    renderApp(transport);
    await screen.findByRole("button", { name: "First" });
    const user = userEvent.setup();

    await user.keyboard("{Control>}k{/Control}");
    expect(document.activeElement).toBe(screen.getByRole("searchbox", { name: "Search sessions" }));

    await user.keyboard("{Control>}n{/Control}");
    expect(await screen.findByRole("dialog", { name: "New session" })).toBeTruthy();
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New session" })).toBeNull());

    await user.keyboard("{Meta>},{/Meta}");
    expect(screen.getByRole("dialog", { name: "Settings" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Close settings" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Settings" })).toBeNull());
  });

  it("creates a session through the dialog and opens it", async () => {
    const created = session({ id: "new", title: "Fresh", workdir: "/tmp/proj", approvalMode: "manual" });
    const transport = new FakeTransport({ Info: info, Sessions: [], Providers: [], DefaultMode: "manual", CompletePath: [], CreateSession: created });
    renderApp(transport);
    const user = userEvent.setup();
    await user.click((await screen.findAllByRole("button", { name: "New session" }))[0]!);
    await user.type(await screen.findByRole("combobox", { name: "Folder" }), "/tmp/proj");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    expect(await screen.findByRole("heading", { name: "Fresh", level: 2 })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Fresh" }).getAttribute("aria-current")).toBe("page");
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
