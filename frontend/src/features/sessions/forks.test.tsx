// Forks in the session list (issue 29 item 2): each listed under the
// session it came from, indented, saying where it was forked.
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { TransportProvider, type Session } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import { branches, forkLabel } from "./forks";
import { initialSessions, withSessions } from "./reducer";
import { SessionList } from "./SessionList";

afterEach(cleanup);

// Most recently updated first, as the kernel lists them: the forks are
// newer than their parent.
const list = [
  session({ id: "f2", title: "Parser (fork) again", forkedFrom: "f1", forkedAt: 1 }),
  session({ id: "f1", title: "Parser (fork)", forkedFrom: "p", forkedAt: 2 }),
  session({ id: "other", title: "Docs" }),
  session({ id: "whole", title: "Parser (fork) whole", forkedFrom: "p" }),
  session({ id: "p", title: "Parser" }),
  session({ id: "orphan", title: "Old (fork)", forkedFrom: "gone", forkedAt: 3 }),
];

describe("branches", () => {
  it("puts each fork below its parent, forks of forks deeper, and a fork of a session not listed at the top", () => {
    expect(branches(list).map((b) => `${"  ".repeat(b.depth)}${b.session.id}<${b.parent?.id ?? ""}`)).toEqual([
      "other<",
      "p<",
      "  f1<p",
      "    f2<f1",
      "  whole<p",
      "orphan<",
    ]);
  });

  it("lists every session once, even in a loop of forks the kernel never makes", () => {
    const loop = [session({ id: "a", forkedFrom: "b" }), session({ id: "b", forkedFrom: "a" })];
    expect(branches(loop).map((b) => b.session.id).sort()).toEqual(["a", "b"]);
  });
});

describe("forkLabel", () => {
  it("names the parent and the prompt, the whole conversation, or a deleted parent", () => {
    const p = list.find((s) => s.id === "p")!;
    expect(forkLabel(list[1]!, p)).toBe("forked from “Parser” at prompt 2");
    expect(forkLabel(list[3]!, p)).toBe("forked from “Parser” (its whole conversation)");
    expect(forkLabel(list[5]!, undefined)).toBe("forked from a deleted session at prompt 3");
    expect(forkLabel(p, undefined)).toBe("");
  });
});

function renderList(sessions: Session[]) {
  const opened: string[] = [];
  render(
    <TransportProvider transport={new FakeTransport()}>
      <SessionList
        state={{ load: "ready", message: "", live: withSessions(initialSessions, sessions) }}
        openId={null}
        onOpen={(id) => opened.push(id)}
        onReload={() => {}}
        onRenamed={() => {}}
        onDelete={() => {}}
      />
    </TransportProvider>,
  );
  return opened;
}

const rows = () => within(screen.getByRole("list", { name: "Sessions" })).getAllByRole("listitem");

describe("SessionList with forks", () => {
  it("shows a fork as a branch of its parent with where it was forked, and moves through them in that order", async () => {
    const opened = renderList(list);
    const user = userEvent.setup();
    const order = rows().map((r) => within(r).getAllByRole("button")[0]!.getAttribute("aria-label"));
    expect(order).toEqual(["Docs", "Parser", "Parser (fork)", "Parser (fork) again", "Parser (fork) whole", "Old (fork)"]);
    const fork = rows()[2]!;
    expect(fork.classList.contains("is-fork")).toBe(true);
    expect(fork.style.getPropertyValue("--depth")).toBe("1");
    expect(rows()[3]!.style.getPropertyValue("--depth")).toBe("2");
    expect(rows()[1]!.classList.contains("is-fork")).toBe(false);
    const item = within(fork).getByRole("button", { name: "Parser (fork)" });
    expect(item.textContent).toContain("forked from “Parser” at prompt 2");
    // The label is part of the item's description for screen readers.
    const described = (item.getAttribute("aria-describedby") ?? "").split(" ").map((id) => document.getElementById(id)?.textContent ?? "");
    expect(described.join(" ")).toContain("forked from “Parser” at prompt 2");
    expect(within(rows()[5]!).getByRole("button", { name: "Old (fork)" }).textContent).toContain("forked from a deleted session at prompt 3");
    // Arrow keys follow the order shown.
    within(rows()[1]!).getByRole("button", { name: "Parser" }).focus();
    await user.keyboard("{ArrowDown}{Enter}");
    expect(opened).toEqual(["f1"]);
  });

  it("keeps naming the parent when a search leaves it out", async () => {
    renderList(list);
    const user = userEvent.setup();
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "again");
    expect(rows()).toHaveLength(1);
    expect(rows()[0]!.classList.contains("is-fork")).toBe(false);
    expect(rows()[0]!.textContent).toContain("forked from “Parser (fork)” at prompt 1");
  });
});
