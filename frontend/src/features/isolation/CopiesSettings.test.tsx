import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import type { SessionCopy } from "../../backend/gen/kernel";
import { CopiesSettings } from "./CopiesSettings";

afterEach(cleanup);

const copies: SessionCopy[] = [
  { sessionId: "s1", kind: "worktree", dir: "/data/foya-sessions/s1", folder: "/home/me/app", branch: "foya/s1", bytes: 3 * 1024 * 1024, orphan: false },
  { sessionId: "s9", kind: "copy", dir: "/data/foya-sessions/s9", folder: "/home/me/site", bytes: 2048, orphan: true },
];

function renderCopies(t: FakeTransport) {
  const opened: string[] = [];
  render(
    <TransportProvider transport={t}>
      <CopiesSettings onOpenSession={(id) => opened.push(id)} />
    </TransportProvider>,
  );
  return opened;
}

describe("CopiesSettings", () => {
  it("lists each copy with its disk use: a session's with Open, an orphan marked with Remove", async () => {
    const t = new FakeTransport({ SessionCopies: copies, Sessions: [session({ id: "s1", title: "Parser work" })], RemoveOrphanCopy: null });
    const opened = renderCopies(t);
    const list = await screen.findByRole("list", { name: "Isolated copies" });
    expect(screen.getByText(/^2 copies taking 3 MB/)).toBeTruthy();
    const mine = within(list).getByRole("listitem", { name: "Parser work: 3 MB" });
    expect(mine.textContent).toContain("/home/me/app · foya/s1");
    const orphan = within(list).getByRole("listitem", { name: "Orphan copy: 2 KB" });
    expect(orphan.textContent).toContain("no session");
    const user = userEvent.setup();
    await user.click(within(mine).getByRole("button", { name: "Open Parser work" }));
    expect(opened).toEqual(["s1"]);

    t.replies.SessionCopies = [copies[0]];
    await user.click(within(orphan).getByRole("button", { name: "Remove the orphan copy /data/foya-sessions/s9" }));
    await waitFor(() => expect(within(list).queryByRole("listitem", { name: /^Orphan copy/ })).toBeNull());
    expect(t.calls.find((c) => c.method === "RemoveOrphanCopy")?.args).toEqual(["s9"]);
  });

  it("says why an orphan could not be removed, in its row", async () => {
    const t = new FakeTransport({ SessionCopies: [copies[1]], Sessions: [], RemoveOrphanCopy: new ApiError("busy", "a running Foya is making it") });
    renderCopies(t);
    await userEvent.setup().click(await screen.findByRole("button", { name: /^Remove the orphan copy/ }));
    expect((await screen.findByRole("alert")).textContent).toBe("Could not remove it: a running Foya is making it");
  });

  it("says when there is none, and why the list failed with Retry", async () => {
    const t = new FakeTransport({ SessionCopies: [], Sessions: [] });
    renderCopies(t);
    expect((await screen.findByText(/^No isolated copies/)).textContent).toContain("every session works in its folder");
    cleanup();
    const bad = new FakeTransport({ SessionCopies: new ApiError("internal", "du failed"), Sessions: [] });
    renderCopies(bad);
    expect((await screen.findByText(/du failed/)).textContent).toContain("du failed");
    bad.replies.SessionCopies = copies;
    await userEvent.setup().click(screen.getByRole("button", { name: /Retry/ }));
    await screen.findByRole("list", { name: "Isolated copies" });
  });
});
