import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import { DeleteSessionDialog } from "./DeleteSessionDialog";

afterEach(cleanup);

const cmd = (id: string, command: string, running: boolean) => ({
  id,
  sessionId: "s1",
  command,
  pid: 1,
  startedAt: "2026-12-01T11:00:00Z",
  running,
  exitCode: 0,
  sandbox: "landlock",
});

function renderDialog(t: FakeTransport) {
  const got = { deleted: [] as string[], closed: 0 };
  render(
    <TransportProvider transport={t}>
      <DeleteSessionDialog session={session({ id: "s1", title: "Old work" })} onClose={() => got.closed++} onDeleted={(id) => got.deleted.push(id)} />
    </TransportProvider>,
  );
  return got;
}

describe("DeleteSessionDialog", () => {
  it("says first which background commands it stops, with Cancel focused; Delete deletes", async () => {
    const t = new FakeTransport({
      BackgroundCommands: [cmd("bg1", "npm run dev", true), cmd("bg2", "make old", false), cmd("bg3", "tail -f log", true)],
      DeleteSession: null,
    });
    const got = renderDialog(t);
    const dialog = screen.getByRole("alertdialog", { name: "Delete “Old work”?" });
    expect(dialog.textContent).toContain("deleted for good");
    const list = await screen.findByRole("list", { name: "Background commands that will be stopped" });
    expect(list.textContent).toContain("npm run dev");
    expect(list.textContent).toContain("tail -f log");
    expect(list.textContent).not.toContain("make old"); // ended already
    expect(dialog.textContent).toContain("Deleting stops its 2 background commands");
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Cancel" }));

    await userEvent.setup().click(screen.getByRole("button", { name: "Delete session" }));
    await waitFor(() => expect(got.deleted).toEqual(["s1"]));
    expect(t.calls.map((c) => c.method)).toEqual(["BackgroundCommands", "DeleteSession"]);
  });

  it("Cancel and Escape delete nothing", async () => {
    const t = new FakeTransport({ BackgroundCommands: [] });
    const got = renderDialog(t);
    expect(await screen.findByText("It has no background commands running.")).toBeTruthy();
    const user = userEvent.setup();
    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(got.closed).toBe(2);
    expect(t.callsOf("DeleteSession")).toBe(0);
  });

  it("says what to do when a run is going (busy), and when the commands cannot be listed", async () => {
    const t = new FakeTransport({
      BackgroundCommands: new ApiError("internal", "shell gone"),
      DeleteSession: new ApiError("busy", "delete: session s1 has a run going; cancel the run first, then delete the session"),
    });
    const got = renderDialog(t);
    expect(await screen.findByText(/could not be listed \(shell gone\); deleting stops any that still run/)).toBeTruthy();
    await userEvent.setup().click(screen.getByRole("button", { name: "Delete session" }));
    expect((await screen.findByRole("alert")).textContent).toContain("The session has a run going: stop it first");
    expect(got.deleted).toEqual([]);
  });
});
