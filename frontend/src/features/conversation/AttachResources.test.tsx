// Attaching MCP resources from the composer (a resource goes with a user
// message, read through the MCP API, spec M3), the view mounted as the shell
// mounts it, answered by a FakeTransport.
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { VirtuosoMockContext } from "react-virtuoso";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import type { Server as MCPServer } from "../../backend/gen/mcpconfig";
import { SESSION, WORKDIR } from "../eventstest";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore } from "../session/store";
import { ConversationView } from "./ConversationView";

afterEach(cleanup);

function mcpServer(fields: Partial<MCPServer>): MCPServer {
  return { name: "local", scope: "user", file: "mcp.json", transport: "stdio", commandLine: "srv", state: "ready", tools: 1, deferred: false, sandbox: false, alwaysLoad: false, restarts: 0, ...fields };
}

function mount(replies: Record<string, unknown>) {
  const t = new FakeTransport({
    Session: session({ id: SESSION, workdir: WORKDIR, provider: "local", model: "m" }),
    Providers: [{ name: "local", baseUrl: "http://127.0.0.1:9/v1", model: "m", default: true }],
    Run: "run_1",
    RunWithResources: "run_1",
    ...replies,
  });
  render(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 10_000, itemHeight: 40 }}>
      <TransportProvider transport={t}>
        <SessionStoreProvider store={createSessionStore(SESSION)}>
          <ConversationView sessionId={SESSION} />
        </SessionStoreProvider>
      </TransportProvider>
    </VirtuosoMockContext.Provider>,
  );
  return t;
}

describe("attaching MCP resources to a message", () => {
  it("lists the ready servers' resources, attaches one, and sends the message with it", async () => {
    const user = userEvent.setup();
    const t = mount({
      MCPServers: {
        servers: [mcpServer({ name: "local" }), mcpServer({ name: "proj", scope: "project" }), mcpServer({ name: "down", state: "failed" })],
        problems: [],
      },
      MCPResources: [{ uri: "file:///notes.txt", name: "notes", mimeType: "text/plain" }],
    });
    await user.click(screen.getByRole("button", { name: "Attach…" }));
    const dialog = await screen.findByRole("dialog", { name: "Attach an MCP resource" });
    await within(dialog).findByRole("region", { name: "Resources of local" });
    expect(within(dialog).queryByRole("region", { name: "Resources of down" })).toBeNull(); // not ready
    expect(t.calls.filter((c) => c.method === "MCPServers").map((c) => c.args)).toEqual([[WORKDIR]]);
    expect(t.calls.filter((c) => c.method === "MCPResources").map((c) => c.args)).toEqual([
      ["", "local"],
      [WORKDIR, "proj"],
    ]);
    await user.click(within(dialog).getByRole("button", { name: "Attach file:///notes.txt from local" }));
    expect(within(dialog).getByRole("button", { name: "file:///notes.txt is attached" })).toHaveProperty("disabled", true);
    await user.click(within(dialog).getByRole("button", { name: "Done" }));

    const chips = screen.getByRole("list", { name: "Attached resources" });
    expect(chips.textContent).toContain("notes file:///notes.txt from local");
    await user.type(screen.getByRole("textbox", { name: "Message" }), "what do my notes say?{Enter}");
    await waitFor(() =>
      expect(t.calls.filter((c) => c.method === "RunWithResources").map((c) => c.args)).toEqual([
        [SESSION, "what do my notes say?", [{ server: "local", uri: "file:///notes.txt" }]],
      ]),
    );
    expect(t.callsOf("Run")).toBe(0);
    await waitFor(() => expect(screen.queryByRole("list", { name: "Attached resources" })).toBeNull());
  });

  it("detaches, and then sends a plain message", async () => {
    const user = userEvent.setup();
    const t = mount({ MCPServers: { servers: [mcpServer({})], problems: [] }, MCPResources: [{ uri: "file:///a.txt", name: "a" }] });
    await user.click(screen.getByRole("button", { name: "Attach…" }));
    const dialog = await screen.findByRole("dialog");
    await user.click(await within(dialog).findByRole("button", { name: "Attach file:///a.txt from local" }));
    await user.click(within(dialog).getByRole("button", { name: "Done" }));
    await user.click(screen.getByRole("button", { name: "Detach file:///a.txt from local" }));
    expect(screen.queryByRole("list", { name: "Attached resources" })).toBeNull();
    await user.type(screen.getByRole("textbox", { name: "Message" }), "hi{Enter}");
    await waitFor(() => expect(t.callsOf("Run")).toBe(1));
    expect(t.callsOf("RunWithResources")).toBe(0);
  });

  it("says when no server is ready, and shows a refused attachment's reason", async () => {
    const user = userEvent.setup();
    const t = mount({ MCPServers: { servers: [mcpServer({ state: "failed" })], problems: [] } });
    await user.click(screen.getByRole("button", { name: "Attach…" }));
    expect((await screen.findByText(/No MCP server is ready/)).textContent).toContain("Settings → MCP servers");
    await user.click(screen.getByRole("button", { name: "Done" }));

    t.replies.MCPServers = { servers: [mcpServer({})], problems: [] };
    t.replies.MCPResources = [{ uri: "file:///gone.txt", name: "gone" }];
    t.replies.RunWithResources = new ApiError("invalid", "attach file:///gone.txt from the MCP server local: resource not found");
    await user.click(screen.getByRole("button", { name: "Attach…" }));
    await user.click(await screen.findByRole("button", { name: "Attach file:///gone.txt from local" }));
    await user.click(screen.getByRole("button", { name: "Done" }));
    await user.type(screen.getByRole("textbox", { name: "Message" }), "read it{Enter}");
    expect((await screen.findByRole("alert")).textContent).toContain("resource not found");
    // The draft and its attachment stay, to fix and send again.
    expect(screen.getByRole("list", { name: "Attached resources" }).textContent).toContain("file:///gone.txt");
  });
});
