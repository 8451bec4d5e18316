import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { BackendProvider } from "./backend";
import { FakeBackend, session } from "./backend/fake";

afterEach(cleanup);

function renderApp(backend: FakeBackend) {
  return render(
    <BackendProvider backend={backend}>
      <App />
    </BackendProvider>,
  );
}

describe("App", () => {
  it("shows the kernel's version, storage and sessions, then reports ready once", async () => {
    const backend = new FakeBackend({
      sessions: [session({ id: "a", title: "First" }), session({ id: "b", title: "Second" })],
    });
    renderApp(backend);

    expect(await screen.findByText("version 1.2.3-test")).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Foya");
    expect(await screen.findByText("First")).toBeTruthy();
    const storage = screen.getByRole("region", { name: "Storage" });
    expect(storage.textContent).toContain("/data/foya");
    expect(storage.textContent).toContain("/data/foya/foya.db");

    await waitFor(() => expect(backend.reports).toEqual([{ version: "1.2.3-test", sessions: 2, error: "" }]));
  });

  it("reports an empty list as zero sessions", async () => {
    const backend = new FakeBackend({ sessions: [] });
    renderApp(backend);
    expect(await screen.findByText(/No sessions yet/)).toBeTruthy();
    await waitFor(() => expect(backend.reports).toEqual([{ version: "1.2.3-test", sessions: 0, error: "" }]));
  });

  it("shows a kernel that failed to open instead of a blank window", async () => {
    // What app.go answers when kernel.Open failed: Info knows only the version.
    const backend = new FakeBackend({
      info: { version: "1.2.3-test", dataDir: "", dbPath: "" },
      sessions: new Error("open kernel: open /nowhere/foya.db: permission denied"),
    });
    renderApp(backend);

    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("open kernel: open /nowhere/foya.db: permission denied");
    expect(screen.getByRole("region", { name: "Storage" }).textContent).toContain("not available");
    await waitFor(() =>
      expect(backend.reports).toEqual([
        { version: "1.2.3-test", sessions: 0, error: "open kernel: open /nowhere/foya.db: permission denied" },
      ]),
    );
  });

  it("shows why nothing loads when the backend is unreachable", async () => {
    const backend = new FakeBackend({ info: new Error("backend gone"), sessions: new Error("backend gone") });
    renderApp(backend);
    expect(await screen.findByText("version unknown")).toBeTruthy();
    const storage = screen.getByRole("region", { name: "Storage" });
    expect(within(storage).getByRole("alert").textContent).toContain("backend gone");
    await waitFor(() => expect(backend.reports).toEqual([{ version: "", sessions: 0, error: "backend gone" }]));
  });

  it("reloads the sessions from the keyboard without reporting ready twice", async () => {
    const backend = new FakeBackend({ sessions: [] });
    renderApp(backend);
    await screen.findByText(/No sessions yet/);
    await waitFor(() => expect(backend.reports).toHaveLength(1));

    backend.sessionsReply = [session({ id: "new", title: "Just started" })];
    const user = userEvent.setup();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Reload" }));
    await user.keyboard("{Enter}");

    expect(await screen.findByText("Just started")).toBeTruthy();
    expect(backend.reports).toHaveLength(1);
  });
});
