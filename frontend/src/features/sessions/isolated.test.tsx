// Isolated sessions in the sessions area (issue 29 item 1): the list
// grouped by project folder with each isolated session's branch, its
// status while setup runs, and New session's "Isolated copy".
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider, type Session } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import { Log } from "../eventstest";
import { branchProblem, CreateSessionDialog } from "./CreateSessionDialog";
import { byProject, isolationLabel } from "./forks";
import { applySessions, initialSessions, statusOf, withSessions } from "./reducer";
import { SessionList } from "./SessionList";

afterEach(cleanup);

const iso = (branch: string, discardedAt?: string) => ({
  kind: "worktree",
  dir: "/data/copies/x",
  folder: "/home/me/app",
  branch,
  ...(discardedAt !== undefined ? { discardedAt } : {}),
});

const list = [
  session({ id: "a2", title: "App fix", projectId: "/home/me/app", workdir: "/data/copies/a2/work", isolation: iso("feature/fix") }),
  session({ id: "s1", title: "Site copy", projectId: "/home/me/site", workdir: "/home/me/site" }),
  session({ id: "a1", title: "App docs", projectId: "/home/me/app", workdir: "/home/me/app" }),
  session({ id: "a0", title: "App old", projectId: "/home/me/app", workdir: "/data/copies/a0/work", isolation: iso("foya/a0", "2026-12-01T10:00:00Z") }),
];

describe("byProject", () => {
  it("groups by project folder, the one with the newest session first, keeping the order inside", () => {
    expect(byProject(list).map((g) => `${g.first ? "# " : ""}${g.project} ${g.session.id}`)).toEqual([
      "# /home/me/app a2",
      "/home/me/app a1",
      "/home/me/app a0",
      "# /home/me/site s1",
    ]);
  });

  it("labels an isolated session by its branch, a copy as such, a discarded one so", () => {
    expect(isolationLabel(list[0]!)).toBe("feature/fix");
    expect(isolationLabel(list[3]!)).toBe("foya/a0 (discarded)");
    expect(isolationLabel(session({ isolation: { kind: "copy", dir: "/d", folder: "/f" } }))).toBe("isolated copy");
    expect(isolationLabel(list[1]!)).toBe("");
  });
});

describe("SessionList by project", () => {
  it("heads each project's sessions with its folder's name and marks isolated sessions with their branch", () => {
    render(
      <TransportProvider transport={new FakeTransport()}>
        <SessionList
          state={{ load: "ready", message: "", live: withSessions(initialSessions, list) }}
          openId={null}
          onOpen={() => {}}
          onReload={() => {}}
          onRenamed={() => {}}
          onDelete={() => {}}
        />
      </TransportProvider>,
    );
    const ul = screen.getByRole("list", { name: "Sessions" });
    // The headings are not list items: the items are the sessions, in order.
    const items = within(ul).getAllByRole("listitem");
    expect(items.map((r) => within(r).getAllByRole("button")[0]!.getAttribute("aria-label"))).toEqual(["App fix", "App docs", "App old", "Site copy"]);
    expect([...ul.querySelectorAll(".session-group")].map((h) => h.textContent?.trim())).toEqual(["app", "site"]);
    expect(items[0]!.textContent).toContain("feature/fix");
    expect(items[2]!.querySelector(".session-isolation.is-discarded")?.textContent).toContain("foya/a0 (discarded)");
    // The branch is part of what a screen reader hears with the session.
    const button = within(items[0]!).getAllByRole("button")[0]!;
    const described = (button.getAttribute("aria-describedby") ?? "").split(" ").map((id) => document.getElementById(id)?.textContent ?? "");
    expect(described.join(" ")).toContain("feature/fix");
  });
});

describe("applySessions and isolated sessions", () => {
  it("marks a session discarded on isolation.discarded only, and says Setting up while its setup runs", () => {
    const log = new Log("a2");
    let s = withSessions(initialSessions, list);
    log.add("isolation.setup", { command: "npm ci", state: "running" });
    log.add("isolation.setup", { command: "npm ci", state: "output", output: "x" });
    for (const ev of log.events) s = applySessions(s, ev);
    expect(statusOf(s, "a2").setup).toBe(true);
    log.add("isolation.setup", { command: "npm ci", state: "succeeded", exitCode: 0 });
    log.runStart("r1", "hi");
    log.add("run.end", { status: "completed" }, "r1");
    log.add("isolation.applied", { folder: "/home/me/app", applied: ["a.txt"], conflicts: [] });
    for (const ev of log.events) s = applySessions(s, ev);
    expect(statusOf(s, "a2").setup).toBeUndefined();
    expect(s.sessions.find((x) => x.id === "a2")!.isolation!.discardedAt).toBeUndefined();
    const d = log.add("isolation.discarded", { kind: "worktree", dir: "/data/copies/x", branch: "feature/fix" });
    s = applySessions(s, d);
    expect(s.sessions.find((x) => x.id === "a2")!.isolation!.discardedAt).toBe(d.time);
  });
});

describe("New session: Isolated copy", () => {
  function renderDialog(t: FakeTransport) {
    const created: Session[] = [];
    render(
      <TransportProvider transport={t}>
        <CreateSessionDialog open onClose={() => {}} onCreated={(s) => created.push(s)} />
      </TransportProvider>,
    );
    return created;
  }

  it("works in the folder unless asked; Isolated copy sends auto isolation with the branch typed", async () => {
    const made = session({ id: "new" });
    const t = new FakeTransport({ Providers: [], DefaultMode: "manual", CompletePath: [], CreateSession: made });
    const created = renderDialog(t);
    const user = userEvent.setup();
    expect((await screen.findByRole("radio", { name: /^Work in the folder/ }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByRole("textbox", { name: /^Branch/ })).toBeNull();
    await user.type(screen.getByRole("combobox", { name: "Folder" }), "/home/ada/app");
    await user.click(screen.getByRole("radio", { name: /^Isolated copy/ }));
    const branch = screen.getByRole("textbox", { name: /^Branch/ });
    await user.type(branch, "my branch");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    expect(screen.getByText("A branch name has no spaces.")).toBeTruthy();
    expect(document.activeElement).toBe(branch);
    expect(t.callsOf("CreateSession")).toBe(0);
    await user.clear(branch);
    await user.type(branch, " feature/app ");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    await waitFor(() => expect(created).toEqual([made]));
    expect(t.calls.find((c) => c.method === "CreateSession")?.args[0]).toEqual({
      workdir: "/home/ada/app",
      approvalMode: "manual",
      isolation: "auto",
      branch: "feature/app",
    });
  });

  it("shows the kernel's refusal of a branch that exists, and focuses the branch", async () => {
    const msg = "branch feature/app already exists in /home/ada/app: choose another branch name, or delete it first (git branch -D feature/app) if nothing on it is needed";
    const t = new FakeTransport({ Providers: [], DefaultMode: "manual", CompletePath: [], CreateSession: new ApiError("conflict", msg) });
    renderDialog(t);
    const user = userEvent.setup();
    await user.type(await screen.findByRole("combobox", { name: "Folder" }), "/home/ada/app");
    await user.click(screen.getByRole("radio", { name: /^Isolated copy/ }));
    await user.type(screen.getByRole("textbox", { name: /^Branch/ }), "feature/app");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    expect((await screen.findByRole("alert")).textContent).toBe(`Could not make the isolated copy: ${msg}.`);
    expect(document.activeElement).toBe(screen.getByRole("textbox", { name: /^Branch/ }));
  });

  it.each([
    ["", ""],
    ["feature/x", ""],
    ["two words", "no spaces"],
    ["-x", "cannot start"],
    ["x.lock", "cannot start"],
    ["a..b", "cannot hold"],
    ["a~1", "cannot hold"],
  ])("branchProblem(%j) says %j", (b, want) => {
    if (want === "") expect(branchProblem(b)).toBe("");
    else expect(branchProblem(b)).toContain(want);
  });
});
