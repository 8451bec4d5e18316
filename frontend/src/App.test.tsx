import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { ApiError, TransportProvider, type UIReport } from "./backend";
import { FakeTransport, session } from "./backend/fake";

afterEach(cleanup);

const info = { version: "1.2.3-test", dataDir: "/data/foya", dbPath: "/data/foya/foya.db" };

function renderApp(transport: FakeTransport) {
  const reports: UIReport[] = [];
  render(
    <TransportProvider transport={transport}>
      <App onReady={(r) => reports.push(r)} />
    </TransportProvider>,
  );
  return reports;
}

describe("App", () => {
  it("shows the kernel's version, storage and sessions, then reports ready once", async () => {
    const transport = new FakeTransport({
      Info: info,
      Sessions: [session({ id: "a", title: "First" }), session({ id: "b", title: "Second" })],
    });
    const reports = renderApp(transport);

    expect(await screen.findByText("version 1.2.3-test")).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Foya");
    expect(await screen.findByText("First")).toBeTruthy();
    const storage = screen.getByRole("region", { name: "Storage" });
    expect(storage.textContent).toContain("/data/foya");
    expect(storage.textContent).toContain("/data/foya/foya.db");

    await waitFor(() => expect(reports).toEqual([{ version: "1.2.3-test", sessions: 2, error: "" }]));
    expect(transport.calls).toEqual([
      { method: "Info", args: [] },
      { method: "Sessions", args: [] },
    ]);
  });

  it("reports an empty list, and a null one, as zero sessions", async () => {
    for (const sessions of [[], null]) {
      const reports = renderApp(new FakeTransport({ Info: info, Sessions: sessions }));
      expect(await screen.findByText(/No sessions yet/)).toBeTruthy();
      await waitFor(() => expect(reports).toEqual([{ version: "1.2.3-test", sessions: 0, error: "" }]));
      cleanup();
    }
  });

  it("shows a kernel that failed to open instead of a blank window", async () => {
    // What api.Service answers when kernel.Open failed: Info knows only the
    // version, Sessions fails with the reason.
    const transport = new FakeTransport({
      Info: { version: "1.2.3-test", dataDir: "", dbPath: "" },
      Sessions: new ApiError("internal", "open kernel: open /nowhere/foya.db: permission denied"),
    });
    const reports = renderApp(transport);

    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("open kernel: open /nowhere/foya.db: permission denied");
    expect(screen.getByRole("region", { name: "Storage" }).textContent).toContain("not available");
    await waitFor(() =>
      expect(reports).toEqual([
        { version: "1.2.3-test", sessions: 0, error: "open kernel: open /nowhere/foya.db: permission denied" },
      ]),
    );
  });

  it("shows why nothing loads when the backend is unreachable", async () => {
    const gone = new ApiError("unavailable", "Foya's server is not reachable (Failed to fetch): start foya serve");
    const reports = renderApp(new FakeTransport({ Info: gone, Sessions: gone }));
    expect(await screen.findByText("version unknown")).toBeTruthy();
    const storage = screen.getByRole("region", { name: "Storage" });
    expect(within(storage).getByRole("alert").textContent).toContain("Foya's server is not reachable");
    await waitFor(() => expect(reports).toEqual([{ version: "", sessions: 0, error: gone.message }]));
  });

  it("reloads the sessions from the keyboard without reporting ready twice", async () => {
    const transport = new FakeTransport({ Info: info, Sessions: [] });
    const reports = renderApp(transport);
    await screen.findByText(/No sessions yet/);
    await waitFor(() => expect(reports).toHaveLength(1));

    transport.replies["Sessions"] = [session({ id: "new", title: "Just started" })];
    const user = userEvent.setup();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Reload" }));
    await user.keyboard("{Enter}");

    expect(await screen.findByText("Just started")).toBeTruthy();
    expect(transport.callsOf("Sessions")).toBe(2);
    expect(reports).toHaveLength(1);
  });

  it("renders without a ready hook (the browser)", async () => {
    render(
      <TransportProvider transport={new FakeTransport({ Info: info, Sessions: [] })}>
        <App />
      </TransportProvider>,
    );
    expect(await screen.findByText(/No sessions yet/)).toBeTruthy();
  });
});
