import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import { DiscardDialog } from "./DiscardDialog";

afterEach(cleanup);

const isolated = session({
  id: "s1",
  title: "Parser work",
  isolation: { kind: "worktree", dir: "/data/foya-sessions/s1", folder: "/home/me/app", branch: "foya/s1" },
});

function renderDialog(t: FakeTransport) {
  const got = { closed: 0, discarded: 0 };
  render(
    <TransportProvider transport={t}>
      <DiscardDialog session={isolated} open onClose={() => got.closed++} onDiscarded={() => got.discarded++} />
    </TransportProvider>,
  );
  return got;
}

describe("DiscardDialog", () => {
  it("says what goes (the worktree and its branch) with Cancel focused; Discard discards", async () => {
    const t = new FakeTransport({ DiscardSession: null });
    const got = renderDialog(t);
    const dialog = screen.getByRole("alertdialog", { name: "Discard the isolated copy?" });
    expect(dialog.textContent).toContain("its branch foya/s1");
    expect(dialog.textContent).toContain("The conversation stays");
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("button", { name: "Cancel" })));
    await userEvent.setup().click(screen.getByRole("button", { name: "Discard the copy" }));
    await waitFor(() => expect(got.discarded).toBe(1));
    expect(t.calls).toEqual([{ method: "DiscardSession", args: ["s1"] }]);
  });

  it("Escape discards nothing; a refusal is shown with what to do", async () => {
    const t = new FakeTransport({ DiscardSession: new ApiError("busy", "session s1 has a run going") });
    const got = renderDialog(t);
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Discard the copy" }));
    expect((await screen.findByRole("alert")).textContent).toContain("The session is busy: session s1 has a run going");
    expect(got.discarded).toBe(0);
    await user.keyboard("{Escape}");
    expect(got.closed).toBe(1);
    expect(t.callsOf("DiscardSession")).toBe(1);
  });
});
