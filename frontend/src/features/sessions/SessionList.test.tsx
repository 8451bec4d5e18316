import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider, type Session } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import { initialSessions, withSessions } from "./reducer";
import { SessionList } from "./SessionList";
import type { ListState } from "./useSessionList";

afterEach(cleanup);

const listed = [
  session({ id: "a", title: "Fix the flaky test", workdir: "/home/ada/api" }),
  session({ id: "b", title: "Write the docs", workdir: "/home/ada/website" }),
  session({ id: "c", title: "Refactor billing", workdir: "/srv/billing" }),
];

function ready(sessions: Session[]): ListState {
  return { load: "ready", message: "", live: withSessions(initialSessions, sessions) };
}

function renderList(opts: { transport?: FakeTransport; openId?: string | null } = {}) {
  const got = { opened: [] as string[], renamed: [] as Session[], deleted: [] as string[] };
  const transport = opts.transport ?? new FakeTransport();
  render(
    <TransportProvider transport={transport}>
      <SessionList
        state={ready(listed)}
        openId={opts.openId ?? null}
        onOpen={(id) => got.opened.push(id)}
        onReload={() => {}}
        onRenamed={(s) => got.renamed.push(s)}
        onDelete={(s) => got.deleted.push(s.id)}
      />
    </TransportProvider>,
  );
  return got;
}

const items = () =>
  within(screen.getByRole("list", { name: "Sessions" }))
    .getAllByRole("button")
    .filter((b) => b.classList.contains("session-item"))
    .map((b) => b.getAttribute("aria-label"));

describe("SessionList search", () => {
  it("matches the title and the folder, every word, ignoring case; Escape clears", async () => {
    renderList();
    const user = userEvent.setup();
    const search = screen.getByRole("searchbox", { name: "Search sessions" });
    await user.type(search, "ADA");
    expect(items()).toEqual(["Fix the flaky test", "Write the docs"]);
    await user.clear(search);
    await user.type(search, "billing");
    expect(items()).toEqual(["Refactor billing"]);
    await user.clear(search);
    await user.type(search, "docs website");
    expect(items()).toEqual(["Write the docs"]);
    await user.clear(search);
    await user.type(search, "nothing like it");
    expect(screen.queryByRole("list", { name: "Sessions" })).toBeNull();
    expect(screen.getByRole("status").textContent).toContain("No session’s title or folder matches “nothing like it”");
    await user.keyboard("{Escape}");
    expect(items()).toHaveLength(3);
  });
});

describe("SessionList keyboard", () => {
  it("is one tab stop; arrows, Home and End move; Enter opens; arrow down from the search goes to the list", async () => {
    const got = renderList();
    const user = userEvent.setup();
    const search = screen.getByRole("searchbox", { name: "Search sessions" });
    await user.click(search);
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Fix the flaky test");
    await user.keyboard("{ArrowDown}{ArrowDown}{ArrowDown}");
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Refactor billing");
    await user.keyboard("{Home}");
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Fix the flaky test");
    await user.keyboard("{End}{ArrowUp}");
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Write the docs");
    await user.keyboard("{Enter}");
    expect(got.opened).toEqual(["b"]);

    // Only the current session (and its two actions) is in the tab order.
    const tabbable = within(screen.getByRole("list", { name: "Sessions" }))
      .getAllByRole("button")
      .filter((b) => b.tabIndex === 0)
      .map((b) => b.getAttribute("aria-label"));
    expect(tabbable).toEqual(["Write the docs", "Rename Write the docs", "Delete Write the docs"]);
    await user.keyboard("{Delete}");
    expect(got.deleted).toEqual(["b"]);
  });

  it("marks the open session and starts the tab stop there", () => {
    renderList({ openId: "c" });
    const open = screen.getByRole("button", { name: "Refactor billing" });
    expect(open.getAttribute("aria-current")).toBe("page");
    expect(open.tabIndex).toBe(0);
    expect(screen.getByRole("button", { name: "Fix the flaky test" }).tabIndex).toBe(-1);
  });

  it("gives a long title in full as the session's name and tooltip, and its actions after it in Tab order", async () => {
    const long = "Make the importer accept every CSV dialect the old tool took, including the odd ones";
    const transport = new FakeTransport();
    const user = userEvent.setup();
    render(
      <TransportProvider transport={transport}>
        <SessionList
          state={ready([session({ id: "l", title: long, workdir: "/home/ada/importer" }), ...listed])}
          openId="l"
          onOpen={() => {}}
          onReload={() => {}}
          onRenamed={() => {}}
          onDelete={() => {}}
        />
      </TransportProvider>,
    );
    const item = screen.getByRole("button", { name: long });
    expect(item.getAttribute("title")).toBe(long);
    expect(item.querySelector(".session-title")!.textContent).toBe(long);
    await user.tab();
    await user.tab();
    expect(document.activeElement?.getAttribute("aria-label")).toBe(long);
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: `Rename ${long}` }));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: `Delete ${long}` }));
  });
});

describe("SessionList rename", () => {
  it("F2 edits the title in place; Enter saves the trimmed title through UpdateSession", async () => {
    const renamedSession = { ...listed[0]!, title: "Fix it for good" };
    const transport = new FakeTransport({ UpdateSession: renamedSession });
    const got = renderList({ transport });
    const user = userEvent.setup();
    screen.getByRole("button", { name: "Fix the flaky test" }).focus();
    await user.keyboard("{F2}");
    const field = screen.getByRole("textbox", { name: "Session title" });
    expect(document.activeElement).toBe(field);
    await user.clear(field);
    await user.type(field, "  Fix it for good  {Enter}");
    await waitFor(() => expect(got.renamed).toEqual([renamedSession]));
    expect(transport.calls).toEqual([{ method: "UpdateSession", args: ["a", { title: "Fix it for good" }] }]);
    expect(screen.queryByRole("textbox", { name: "Session title" })).toBeNull();
  });

  it("Escape keeps the old title and calls nothing", async () => {
    const transport = new FakeTransport();
    const got = renderList({ transport });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Rename Write the docs" }));
    await user.type(screen.getByRole("textbox", { name: "Session title" }), " and more{Escape}");
    expect(screen.queryByRole("textbox", { name: "Session title" })).toBeNull();
    expect(transport.calls).toEqual([]);
    expect(got.renamed).toEqual([]);
  });

  it("refuses an empty title in words, and shows the kernel's refusal", async () => {
    const transport = new FakeTransport({ UpdateSession: new ApiError("not_found", 'session "a" not found') });
    renderList({ transport });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Rename Fix the flaky test" }));
    const field = screen.getByRole("textbox", { name: "Session title" });
    await user.clear(field);
    await user.keyboard("{Enter}");
    expect(screen.getByRole("alert").textContent).toContain("A title cannot be empty");
    expect(field.getAttribute("aria-invalid")).toBe("true");
    expect(transport.calls).toEqual([]);

    await user.type(field, "New name{Enter}");
    expect((await screen.findByRole("alert")).textContent).toContain('Could not rename the session: session "a" not found');
    expect(screen.getByRole("textbox", { name: "Session title" })).toBeTruthy();
  });

  it("an unchanged title saves nothing", async () => {
    const transport = new FakeTransport();
    renderList({ transport });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Rename Refactor billing" }));
    await user.keyboard("{Enter}");
    expect(screen.queryByRole("textbox", { name: "Session title" })).toBeNull();
    expect(transport.calls).toEqual([]);
  });
});

describe("SessionList states", () => {
  it("says why the list could not load and offers to try again", async () => {
    let reloads = 0;
    render(
      <TransportProvider transport={new FakeTransport()}>
        <SessionList
          state={{ load: "error", message: "open kernel: disk full", live: initialSessions }}
          openId={null}
          onOpen={() => {}}
          onReload={() => reloads++}
          onRenamed={() => {}}
          onDelete={() => {}}
        />
      </TransportProvider>,
    );
    expect(screen.getByRole("alert").textContent).toContain("open kernel: disk full");
    await userEvent.setup().click(screen.getByRole("button", { name: "Try again" }));
    expect(reloads).toBe(1);
  });
});
