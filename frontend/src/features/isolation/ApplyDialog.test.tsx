import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider } from "../../backend";
import { FakeTransport } from "../../backend/fake";
import type { ApplyResult } from "../../backend/gen/kernel";
import { ApplyDialog, applyLabel } from "./ApplyDialog";

afterEach(cleanup);

const diff = (from: string, to: string) => `--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-${from}\n+${to}\n`;

const preview: ApplyResult = {
  sessionId: "s1",
  folder: "/home/me/project",
  applied: ["added.txt"],
  same: [],
  conflicts: [
    {
      path: "notes.txt",
      folder: "changed",
      session: "changed",
      folderDiff: diff("two", "two from the folder"),
      sessionDiff: diff("two", "two from the session"),
      binary: false,
    },
  ],
};

function renderDialog(t: FakeTransport) {
  const got = { closed: 0, applied: [] as ApplyResult[] };
  render(
    <TransportProvider transport={t}>
      <ApplyDialog sessionId="s1" folder="/home/me/project" open onClose={() => got.closed++} onApplied={(r) => got.applied.push(r)} />
    </TransportProvider>,
  );
  return got;
}

describe("ApplyDialog", () => {
  it("previews first: the files it brings back, each conflict with the folder's and the session's diff; writes nothing", async () => {
    const t = new FakeTransport({ ApplySession: preview });
    renderDialog(t);
    const files = await screen.findByRole("list", { name: "Files it brings back" });
    expect(files.textContent).toContain("added.txt");
    const conflict = screen.getByRole("listitem", { name: "notes.txt" });
    expect(conflict.textContent).toContain("The folder changed it; the session changed it.");
    expect(within(conflict).getByRole("region", { name: "The folder’s change to notes.txt" }).textContent).toContain("two from the folder");
    expect(within(conflict).getByRole("region", { name: "The session’s change to notes.txt" }).textContent).toContain("two from the session");
    expect(t.calls).toEqual([{ method: "ApplySession", args: [{ sessionId: "s1", preview: true }] }]);
    // Unasked, the conflict is not taken: Apply writes only the new file.
    expect(screen.getByRole("button", { name: "Apply 1 file" })).toBeTruthy();
  });

  it("takes the session's version of a conflict only when ticked, then shows what was applied", async () => {
    const t = new FakeTransport({ ApplySession: preview });
    const got = renderDialog(t);
    const user = userEvent.setup();
    const take = await screen.findByRole("checkbox", { name: "Take the session’s version" });
    take.focus();
    await user.keyboard(" ");
    expect((take as HTMLInputElement).checked).toBe(true);
    t.replies.ApplySession = { ...preview, applied: ["added.txt", "notes.txt"], conflicts: [] } satisfies ApplyResult;
    await user.click(screen.getByRole("button", { name: "Apply 1 file and the session’s version of 1 conflict" }));
    await screen.findByText("Applied 2 files");
    expect(t.calls[1]).toEqual({ method: "ApplySession", args: [{ sessionId: "s1", take: ["notes.txt"] }] });
    expect(screen.getByRole("list", { name: "Files applied" }).textContent).toContain("notes.txt");
    expect(got.applied).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(got.closed).toBe(1);
  });

  it("says which conflicts stay when none is taken", async () => {
    const t = new FakeTransport({ ApplySession: preview });
    renderDialog(t);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Apply 1 file" }));
    await screen.findByText("Applied 1 file");
    expect(t.calls[1]).toEqual({ method: "ApplySession", args: [{ sessionId: "s1" }] });
    expect(screen.getByRole("list", { name: "Conflicts left" }).textContent).toContain("notes.txt");
  });

  it("says when there is nothing to bring back, and Apply is disabled", async () => {
    const t = new FakeTransport({ ApplySession: { ...preview, applied: [], conflicts: [], same: ["a.txt"] } });
    renderDialog(t);
    expect((await screen.findByText(/^Nothing to bring back/)).getAttribute("role")).toBe("status");
    expect((screen.getByRole("button", { name: "Apply" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows the kernel's error and keeps the choice when applying fails", async () => {
    const t = new FakeTransport({ ApplySession: preview });
    renderDialog(t);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("checkbox", { name: "Take the session’s version" }));
    t.replies.ApplySession = new ApiError("busy", "session s1 is running its setup command");
    await user.click(screen.getByRole("button", { name: /^Apply 1 file and/ }));
    expect((await screen.findByRole("alert")).textContent).toContain("The session is busy: session s1 is running its setup command");
    expect((screen.getByRole("checkbox", { name: "Take the session’s version" }) as HTMLInputElement).checked).toBe(true);
  });

  it("offers Try again when the preview fails", async () => {
    const t = new FakeTransport({ ApplySession: new ApiError("unavailable", "git status failed") });
    renderDialog(t);
    expect((await screen.findByRole("alert")).textContent).toContain("git status failed");
    t.replies.ApplySession = preview;
    await userEvent.setup().click(screen.getByRole("button", { name: "Try again" }));
    await screen.findByRole("list", { name: "Files it brings back" });
  });

  it("names the apply button by what it writes", () => {
    expect(applyLabel(0, 0)).toBe("Apply");
    expect(applyLabel(3, 0)).toBe("Apply 3 files");
    expect(applyLabel(0, 2)).toBe("Apply the session’s version of 2 conflicts");
  });
});
