// A server's "Log" in the settings view's "MCP servers" section: mounted
// as the shell mounts it, answered by a FakeTransport.
import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import { session } from "../../backend/fake";
import type { ServerLog } from "../../backend/gen/mcpconfig";
import { SettingsView } from "./index";
import { levelClass } from "./MCPLog";
import { argsOf, mount, server } from "./testkit";

afterEach(cleanup);

const WORKDIR = "/home/ada/project";

const log: ServerLog = {
  level: "info",
  entries: [
    { time: "2026-12-01T10:00:00Z", level: "info", logger: "indexer", data: "indexed 12 files" },
    { time: "2026-12-01T10:00:01Z", level: "error", logger: "db", data: "cannot open the database" },
  ],
  stderr: "warning: config file not found",
};

function replies(): Record<string, unknown> {
  return {
    Session: session({ id: "s1", workdir: WORKDIR }),
    DefaultMode: "manual",
    Providers: [],
    Settings: {},
    ImageInput: false,
    MCPServers: {
      servers: [
        server({ name: "local" }),
        server({ name: "web", scope: "project", file: WORKDIR + "/.mcp.json", transport: "http", commandLine: "http://127.0.0.1:9/mcp", state: "unapproved", tools: 0 }),
        server({ name: "tools", scope: "project", file: WORKDIR + "/.mcp.json", state: "ready" }),
      ],
      problems: [],
    },
    MCPServerLog: log,
  };
}

async function openTab() {
  const user = userEvent.setup();
  await user.click(screen.getByRole("tab", { name: "MCP servers" }));
  await screen.findByRole("list", { name: "MCP servers" });
  return user;
}

const notice = (srv: string) => ({ type: "mcp.changed" as const, sessionId: "", seq: 0, time: "2026-12-01T11:00:00Z", data: { change: "state", server: srv, state: "ready" } });

describe("SettingsView: an MCP server's log", () => {
  it("shows the messages with their level and logger, newest last, and the end of standard error; a project's server is read in its project", async () => {
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies());
    const user = await openTab();
    // A server Foya does not run has no log.
    expect(within(screen.getByRole("listitem", { name: "web" })).queryByRole("button", { name: "Log of web" })).toBeNull();

    const button = screen.getByRole("button", { name: "Log of local" });
    expect(button.getAttribute("aria-expanded")).toBe("false");
    await user.click(button);
    const entries = await screen.findByRole("list", { name: "Log messages of local, newest last" });
    const items = within(entries).getAllByRole("listitem");
    expect(items.map((li) => li.textContent)).toEqual([
      expect.stringMatching(/info indexer\s*indexed 12 files$/),
      expect.stringMatching(/error db\s*cannot open the database$/),
    ]);
    expect(items[1]?.querySelector(".mcp-log-level-error")).not.toBeNull();
    expect(screen.getByLabelText("Standard error of local").textContent).toBe("warning: config file not found");
    expect(argsOf(t, "MCPServerLog")).toEqual([["", "local"]]);
    expect(screen.getByRole("button", { name: "Log of local" }).getAttribute("aria-expanded")).toBe("true");

    await user.click(screen.getByRole("button", { name: "Log of tools" }));
    await screen.findByRole("list", { name: "Log messages of tools, newest last" });
    expect(argsOf(t, "MCPServerLog")[1]).toEqual([WORKDIR, "tools"]);
  });

  it("reads the log again on Refresh and when a notice names the server, not for another server's", async () => {
    const r = replies();
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, r);
    const user = await openTab();
    await user.click(screen.getByRole("button", { name: "Log of local" }));
    await screen.findByText("indexed 12 files");
    const reads = t.callsOf("MCPServerLog");

    r.MCPServerLog = { ...log, entries: [...log.entries, { time: "2026-12-01T10:00:02Z", level: "warning", data: '{"disk":"low"}' }] };
    act(() => t.notice(notice("local")));
    await screen.findByText('{"disk":"low"}');
    expect(t.callsOf("MCPServerLog")).toBe(reads + 1);

    act(() => t.notice(notice("other")));
    await waitFor(() => expect(t.callsOf("MCPServers")).toBeGreaterThan(1));
    expect(t.callsOf("MCPServerLog")).toBe(reads + 1);

    r.MCPServerLog = { level: "info", entries: [] };
    await user.click(screen.getByRole("button", { name: "Refresh the log of local" }));
    await screen.findByText(/No log messages\. Foya asks servers that declare logging for level info and up/);
    expect(t.callsOf("MCPServerLog")).toBe(reads + 2);
  });

  it("says in words why the log could not be read, and reads it again on Refresh", async () => {
    const r = replies();
    r.MCPServerLog = new ApiError("not_found", 'no MCP server "local": see foya mcp list');
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, r);
    const user = await openTab();
    await user.click(screen.getByRole("button", { name: "Log of local" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain('Could not read its log: no MCP server "local": see foya mcp list');
    r.MCPServerLog = log;
    await user.click(screen.getByRole("button", { name: "Refresh the log of local" }));
    await screen.findByText("indexed 12 files");
    expect(screen.queryByText(/Could not read its log/)).toBeNull();
  });

  it("groups levels for their badge", () => {
    expect(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", "odd"].map(levelClass)).toEqual([
      "info", "info", "info", "warning", "error", "error", "error", "error", "info",
    ]);
  });
});
