import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { session } from "../../backend/fake";
import { SessionsView } from "./SessionsView";
import type { SessionsState } from "./useSessions";

afterEach(cleanup);

describe("SessionsView", () => {
  it("renders one row per session with title, workdir, model and updated time", () => {
    const state: SessionsState = {
      status: "ready",
      sessions: [
        session({ id: "a", title: "Refactor parser", workdir: "/src/parser", model: "m-large", updatedAt: "2026-03-04T05:06:07Z" }),
        session({ id: "b", title: "", workdir: "/src/other", model: "", updatedAt: "not a time" }),
      ],
    };
    render(<SessionsView state={state} onReload={() => {}} />);

    const table = screen.getByRole("table");
    const rows = within(table).getAllByRole("row");
    expect(rows).toHaveLength(3); // header + 2

    const first = rows[1]!;
    expect(within(first).getByRole("rowheader").textContent).toBe("Refactor parser");
    expect(first.textContent).toContain("/src/parser");
    expect(first.textContent).toContain("m-large");
    expect(first.querySelector("time")?.getAttribute("dateTime")).toBe("2026-03-04T05:06:07Z");

    const second = rows[2]!;
    expect(within(second).getByRole("rowheader").textContent).toBe("Untitled");
    expect(second.querySelector("time")?.textContent).toBe("not a time");
  });

  it("shows how to start a session when there are none", () => {
    render(<SessionsView state={{ status: "ready", sessions: [] }} onReload={() => {}} />);
    const notice = screen.getByRole("status");
    expect(notice.textContent).toContain("No sessions yet — run foya exec \"…\" to start one");
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("shows the error and lets the user try again by keyboard", async () => {
    const onReload = vi.fn();
    render(<SessionsView state={{ status: "error", message: "open kernel: database is locked" }} onReload={onReload} />);

    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("Could not load sessions");
    expect(alert.textContent).toContain("open kernel: database is locked");

    const user = userEvent.setup();
    await user.tab(); // Reload in the header
    await user.tab(); // Try again in the alert
    expect(document.activeElement).toBe(within(alert).getByRole("button", { name: "Try again" }));
    await user.keyboard("{Enter}");
    expect(onReload).toHaveBeenCalledTimes(1);
  });

  it("says it is loading and disables reload meanwhile", () => {
    render(<SessionsView state={{ status: "loading" }} onReload={() => {}} />);
    expect(screen.getByRole("status").textContent).toBe("Loading sessions…");
    expect(screen.getByRole("button", { name: "Reload" }).hasAttribute("disabled")).toBe(true);
  });
});
