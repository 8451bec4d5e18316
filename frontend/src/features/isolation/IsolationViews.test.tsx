import { act, cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import { Log, SESSION } from "../eventstest";
import { createSessionStore } from "../session/store";
import { SessionStoreProvider } from "../session/hooks";
import { IsolationActions, IsolationNotes, IsolationWhere } from ".";

afterEach(cleanup);

const isolated = session({
  id: SESSION,
  title: "Parser work",
  projectId: "/home/me/app",
  workdir: "/data/foya-sessions/ses_01/work",
  isolation: { kind: "worktree", dir: "/data/foya-sessions/ses_01", folder: "/home/me/app", branch: "feature/parse", uncommitted: ["draft.txt", "notes/todo.md"] },
});

function renderViews(s = isolated) {
  const store = createSessionStore(SESSION);
  const log = new Log();
  render(
    <TransportProvider transport={new FakeTransport({})}>
      <SessionStoreProvider store={store}>
        <IsolationWhere session={s} />
        <IsolationActions session={s} />
        <IsolationNotes session={s} />
      </SessionStoreProvider>
    </TransportProvider>,
  );
  const add = (type: string, data: unknown) => {
    log.add(type, data);
    act(() => store.getState().apply(log.events));
  };
  return { add };
}

describe("an isolated session's header and notes", () => {
  it("says where it works, and that the folder's uncommitted changes stay there", async () => {
    renderViews();
    expect(screen.getByText("Worktree on branch feature/parse")).toBeTruthy();
    const note = screen.getByText(/The folder had 2 uncommitted changes that this worktree does not have/);
    await userEvent.setup().click(note);
    expect(screen.getByRole("list", { name: "Uncommitted paths left in the folder" }).textContent).toContain("notes/todo.md");
  });

  it("streams the setup's output while Apply and Discard wait; its end folds the output", async () => {
    const { add } = renderViews();
    add("isolation.setup", { command: "npm ci", state: "running" });
    add("isolation.setup", { command: "npm ci", state: "output", output: "added 12 packages\n" });
    expect(screen.getAllByText("Setting up the isolated copy…").length).toBeGreaterThan(0);
    expect(screen.getByRole("log", { name: "Setup output" }).textContent).toContain("added 12 packages");
    expect(screen.getByText(/Runs wait until it ends/)).toBeTruthy();
    expect((screen.getByRole("button", { name: /Apply to the folder/ }) as HTMLButtonElement).disabled).toBe(true);
    add("isolation.setup", { command: "npm ci", state: "succeeded", exitCode: 0, durationMs: 12_400 });
    const head = screen.getByRole("button", { name: "Setup finished in 12 s" });
    expect(head.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByRole("log", { name: "Setup output" })).toBeNull();
    expect((screen.getByRole("button", { name: /Apply to the folder/ }) as HTMLButtonElement).disabled).toBe(false);
    await userEvent.setup().click(head);
    expect(screen.getByRole("log", { name: "Setup output" }).textContent).toContain("added 12 packages");
  });

  it("shows a failed setup open, with what to do", () => {
    const { add } = renderViews();
    add("isolation.setup", { command: "make deps", state: "running" });
    add("isolation.setup", { command: "make deps", state: "failed", output: "no rule to make deps\n", exitCode: 2, error: "exit status 2" });
    expect(screen.getByRole("button", { name: "Setup failed with exit status 2" }).getAttribute("aria-expanded")).toBe("true");
    expect(screen.getByText(/The session can still run/)).toBeTruthy();
  });

  it("after a discard says the copy is gone and disables Apply and Discard", () => {
    const { add } = renderViews();
    add("isolation.discarded", { kind: "worktree", dir: "/data/foya-sessions/ses_01", branch: "feature/parse" });
    expect(screen.getByText(/^Worktree discarded .*: it cannot run again$/).getAttribute("title")).toBe(
      "Its worktree (branch feature/parse) was discarded: the session cannot run again.",
    );
    expect((screen.getByRole("button", { name: /Apply to the folder/ }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole("button", { name: /Discard/ }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByText(/uncommitted change/)).toBeNull();
  });

  it("shows nothing for a session that works in its folder", () => {
    const { container } = render(
      <TransportProvider transport={new FakeTransport({})}>
        <SessionStoreProvider store={createSessionStore(SESSION)}>
          <IsolationWhere session={session({ id: SESSION })} />
          <IsolationActions session={session({ id: SESSION })} />
          <IsolationNotes session={session({ id: SESSION })} />
        </SessionStoreProvider>
      </TransportProvider>,
    );
    expect(container.textContent).toBe("");
  });
});

describe("IsolationReviewNote", () => {
  it("says the review panel's changes are in the worktree until applied, and opens Apply", async () => {
    const { IsolationReviewNote } = await import("./IsolationHeader");
    const t = new FakeTransport({ ApplySession: { sessionId: SESSION, folder: "/home/me/app", applied: ["a.txt"], same: [], conflicts: [] } });
    render(
      <TransportProvider transport={t}>
        <SessionStoreProvider store={createSessionStore(SESSION)}>
          <IsolationReviewNote session={isolated} />
        </SessionStoreProvider>
      </TransportProvider>,
    );
    expect(screen.getByText("These changes are in the worktree on branch feature/parse, not in the folder, until you apply them.")).toBeTruthy();
    await userEvent.setup().click(screen.getByRole("button", { name: "Apply to the folder…" }));
    expect(await screen.findByRole("dialog", { name: "Apply to the folder" })).toBeTruthy();
    expect(t.calls[0]).toEqual({ method: "ApplySession", args: [{ sessionId: SESSION, preview: true }] });
  });
});
