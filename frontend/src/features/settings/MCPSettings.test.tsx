// The settings view's "MCP servers" section: mounted as the shell mounts
// it, answered by a FakeTransport.
import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../backend";
import { session } from "../../backend/fake";
import type { List as MCPList } from "../../backend/gen/mcpconfig";
import { SettingsView } from "./index";
import { argsOf, mount, server } from "./testkit";

afterEach(cleanup);

const WORKDIR = "/home/ada/project";

function replies(list: MCPList): Record<string, unknown> {
  return {
    Session: session({ id: "s1", workdir: WORKDIR }),
    DefaultMode: "manual",
    Providers: [],
    Settings: {},
    ImageInput: false,
    MCPServers: list,
    AddMCPServer: null,
    RemoveMCPServer: null,
    SetMCPAlwaysLoad: null,
    RestartMCPServer: server(),
    ApproveMCPServer: server({ scope: "project" }),
    MCPResources: [{ uri: "file:///notes.txt", name: "notes", mimeType: "text/plain" }],
    MCPPrompts: [{ name: "greet", description: "Greet someone.", arguments: [{ name: "name", required: true }] }],
    ReadMCPResource: [{ uri: "file:///notes.txt", mimeType: "text/plain", text: "remember the milk" }],
  };
}

async function openTab() {
  const user = userEvent.setup();
  await user.click(screen.getByRole("tab", { name: "MCP servers" }));
  return user;
}

function item(name: string): HTMLElement {
  return screen.getByRole("listitem", { name });
}

describe("SettingsView: MCP servers", () => {
  it("lists the user's and the project's servers with state, tools, origin and the failed one's error and stderr", async () => {
    const list: MCPList = {
      servers: [
        server({ name: "local", tools: 12, deferred: true }),
        server({ name: "cursor", importedFrom: "/home/ada/.cursor/mcp.json", state: "failed", tools: 0, error: "the server stopped: exit status 3", stderr: "cannot open the database: permission denied" }),
        server({ name: "web", scope: "project", file: WORKDIR + "/.mcp.json", transport: "http", commandLine: "http://127.0.0.1:9/mcp", state: "unapproved", tools: 0 }),
      ],
      problems: [WORKDIR + "/.foya/mcp.json: line 3, column 5: not valid JSON: invalid character '}'"],
    };
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies(list));
    await openTab();
    await screen.findByRole("list", { name: "MCP servers" });
    expect(argsOf(t, "MCPServers")).toEqual([[WORKDIR]]);

    const local = item("local");
    expect(within(local).getByText("Ready")).toBeTruthy();
    expect(local.textContent).toContain("12 tools, deferred: the model finds them with tool_search");
    expect(local.textContent).toContain("Yours (added in Foya)");
    expect(within(local).getByRole("button", { name: "Restart local" })).toBeTruthy();
    expect(within(local).getByRole("checkbox", { name: /Always load/ })).toBeTruthy();

    const cursor = item("cursor");
    expect(cursor.textContent).toContain("Yours, imported from /home/ada/.cursor/mcp.json");
    expect(within(cursor).getByRole("alert").textContent).toBe("Why it failed: the server stopped: exit status 3");
    expect(cursor.textContent).toContain("cannot open the database: permission denied");

    const web = item("web");
    expect(web.textContent).toContain("From the project's " + WORKDIR + "/.mcp.json");
    expect(within(web).queryByRole("button", { name: "Remove web" })).toBeNull(); // a project's entry is not ours to delete
    expect(within(web).queryByRole("checkbox")).toBeNull();

    expect(screen.getByText(/line 3, column 5: not valid JSON/)).toBeTruthy();
  });

  it("adds a stdio server from the form and shows the list again", async () => {
    const r = replies({ servers: [], problems: [] });
    const { t } = mount(<SettingsView sessionId={null} onClose={() => {}} />, r);
    const user = await openTab();
    await user.click(await screen.findByRole("button", { name: "Add an MCP server" }));
    const form = screen.getByRole("form", { name: "Add an MCP server" });
    await user.click(within(form).getByRole("button", { name: "Add server" }));
    expect(within(form).getByRole("alert").textContent).toContain("Give the server a name");
    expect(t.callsOf("AddMCPServer")).toBe(0);

    await user.type(within(form).getByLabelText("Name"), "github");
    await user.type(within(form).getByLabelText("Command"), "npx");
    await user.type(within(form).getByLabelText("Arguments"), "-y{Enter}@modelcontextprotocol/server-github");
    await user.type(within(form).getByLabelText("Environment"), "GITHUB_TOKEN=x");
    r.MCPServers = { servers: [server({ name: "github", commandLine: "npx -y @modelcontextprotocol/server-github" })], problems: [] };
    await user.click(within(form).getByRole("button", { name: "Add server" }));
    await waitFor(() =>
      expect(argsOf(t, "AddMCPServer")).toEqual([
        [{ name: "github", command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_TOKEN: "x" } }],
      ]),
    );
    expect((await screen.findByRole("status")).textContent).toBe("MCP server github added; it starts at once.");
    expect(item("github").textContent).toContain("npx -y @modelcontextprotocol/server-github");
    expect(argsOf(t, "MCPServers")).toEqual([[""], [""]]);
  });

  it("adds a URL server with headers, and shows the kernel's refusal in words", async () => {
    const r = replies({ servers: [], problems: [] });
    r.AddMCPServer = new ApiError("invalid", 'MCP server "remote": url "http//x": want an http:// or https:// address');
    const { t } = mount(<SettingsView sessionId={null} onClose={() => {}} />, r);
    const user = await openTab();
    await user.click(await screen.findByRole("button", { name: "Add an MCP server" }));
    const form = screen.getByRole("form", { name: "Add an MCP server" });
    await user.click(within(form).getByRole("radio", { name: /Connect to a URL \(streamable HTTP\)/ }));
    expect(within(form).queryByLabelText("Command")).toBeNull();
    await user.type(within(form).getByLabelText("Name"), "remote");
    await user.type(within(form).getByLabelText("URL"), "https://mcp.example.com/mcp");
    await user.type(within(form).getByLabelText("Headers"), "Authorization: Bearer t");
    await user.click(within(form).getByRole("button", { name: "Add server" }));
    await waitFor(() =>
      expect(argsOf(t, "AddMCPServer")).toEqual([[{ name: "remote", url: "https://mcp.example.com/mcp", type: "http", headers: { Authorization: "Bearer t" } }]]),
    );
    expect((await within(form).findByRole("alert")).textContent).toContain("want an http:// or https:// address");
  });

  it("shows an HTTP server's sign-in state and signs in and out, with the failure's text", async () => {
    const r = replies({
      servers: [
        server({ name: "remote", transport: "http", commandLine: "https://mcp.example.com/mcp", state: "failed", tools: 0, signIn: "sign-in-needed", error: "the server needs you to sign in" }),
        server({ name: "other", transport: "http", commandLine: "https://other.example.com/mcp", signIn: "signed-in" }),
      ],
      problems: [],
    });
    r.SignInMCPServer = new ApiError("unavailable", "sign in to https://mcp.example.com/mcp: the sign-in answer carries another state than the one Foya sent");
    r.SignOutMCPServer = server({ name: "other" });
    const { t } = mount(<SettingsView sessionId={null} onClose={() => {}} />, r);
    const user = await openTab();
    await screen.findByRole("list", { name: "MCP servers" });
    expect(within(item("remote")).getByText("Sign-in needed")).toBeTruthy();
    expect(within(item("other")).getByText("Signed in")).toBeTruthy();

    await user.click(within(item("remote")).getByRole("button", { name: "Sign in to remote" }));
    await waitFor(() => expect(argsOf(t, "SignInMCPServer")).toEqual([["", "remote"]]));
    await waitFor(() => expect(screen.getAllByRole("alert").some((a) => a.textContent?.includes("Could not sign in to remote: sign in to https://mcp.example.com/mcp: the sign-in answer carries another state"))).toBe(true));

    await user.click(within(item("other")).getByRole("button", { name: "Sign out of other" }));
    await waitFor(() => expect(argsOf(t, "SignOutMCPServer")).toEqual([["", "other"]]));
    expect((await screen.findByRole("status")).textContent).toBe("Signed out of MCP server other.");
  });

  it("removes a server after confirmation, restarts one, and sets always load", async () => {
    const r = replies({ servers: [server({ name: "local" })], problems: [] });
    const { t } = mount(<SettingsView sessionId={null} onClose={() => {}} />, r);
    const user = await openTab();
    await screen.findByRole("list", { name: "MCP servers" });

    await user.click(within(item("local")).getByRole("button", { name: "Restart local" }));
    await waitFor(() => expect(argsOf(t, "RestartMCPServer")).toEqual([["", "local"]]));
    expect((await screen.findByRole("status")).textContent).toBe("MCP server local restarted.");

    await user.click(within(item("local")).getByRole("checkbox", { name: /Always load/ }));
    await waitFor(() => expect(argsOf(t, "SetMCPAlwaysLoad")).toEqual([["local", true]]));

    await user.click(within(item("local")).getByRole("button", { name: "Remove local" }));
    const ask = await screen.findByRole("alertdialog", { name: "Remove MCP server local?" });
    await user.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(t.callsOf("RemoveMCPServer")).toBe(0);
    await user.click(within(item("local")).getByRole("button", { name: "Remove local" }));
    r.MCPServers = { servers: [], problems: [] };
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Remove local" }));
    await waitFor(() => expect(argsOf(t, "RemoveMCPServer")).toEqual([["local"]]));
    await waitFor(() => expect(screen.queryByRole("listitem", { name: "local" })).toBeNull());
    expect(screen.getByText(/No MCP servers yet/)).toBeTruthy();
  });

  // The dialog shows everything that decides what runs
  // and sends back the fingerprint it showed.
  it("approves a project's server only after showing what it runs, with the fingerprint shown, sandboxed unless lifted", async () => {
    const tools = server({
      name: "tools",
      scope: "project",
      file: WORKDIR + "/.mcp.json",
      commandLine: "./bin/tools --serve 'a b'",
      command: "./bin/tools",
      args: ["--serve", "a b"],
      cwd: WORKDIR + "/srv",
      env: { MODE: "fast", GITHUB_TOKEN: "•••••• (40 characters, hidden: it looks like a secret)" },
      code: ["bin", "bin/tools"],
      fingerprint: "f1nger",
      state: "unapproved",
      sandbox: true,
      tools: 0,
    });
    const r = replies({ servers: [tools], problems: [] });
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, r);
    const user = await openTab();
    await user.click(await screen.findByRole("button", { name: "Approve tools" }));
    const ask = await screen.findByRole("alertdialog", { name: "Approve the project's MCP server tools?" });
    expect(within(ask).getByLabelText("Command line to approve").textContent).toBe("./bin/tools --serve 'a b'");
    expect(ask.textContent).toContain(WORKDIR + "/.mcp.json");
    const facts = within(ask).getByLabelText("What the approval covers").textContent;
    for (const want of ["Transportstdio", "Command./bin/tools", "Argument 1--serve", "Argument 2a b", "Working folder" + WORKDIR + "/srv", "EnvironmentMODE=fast", "GITHUB_TOKEN=•••••• (40 characters", "Workspace code it runsbin, bin/tools"]) {
      expect(facts).toContain(want);
    }
    expect(facts).not.toContain("ghp_");
    expect((within(ask).getByRole("checkbox", { name: /outside the sandbox/ }) as HTMLInputElement).checked).toBe(false);
    await user.click(within(ask).getByRole("button", { name: "Approve tools" }));
    await waitFor(() => expect(argsOf(t, "ApproveMCPServer")).toEqual([[WORKDIR, "tools", { fingerprint: "f1nger" }]]));
    expect((await screen.findByRole("status")).textContent).toBe("MCP server tools approved; it runs in the sandbox.");
  });

  // Lifting the sandbox of a server that runs workspace
  // code needs that exact risk confirmed.
  it("lifts the sandbox of a server running workspace code only once that risk is confirmed", async () => {
    const tools = server({ name: "tools", scope: "project", file: WORKDIR + "/.mcp.json", command: "python3", args: ["helper_srv.py"], code: ["helper_srv.py"], fingerprint: "f2", state: "unapproved", tools: 0 });
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies({ servers: [tools], problems: [] }));
    const user = await openTab();
    await user.click(await screen.findByRole("button", { name: "Approve tools" }));
    const ask = await screen.findByRole("alertdialog", { name: "Approve the project's MCP server tools?" });
    await user.click(within(ask).getByRole("checkbox", { name: /outside the sandbox/ }));
    const approve = within(ask).getByRole("button", { name: "Approve tools" }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    await user.click(within(ask).getByRole("checkbox", { name: /runs code from the workspace \(\s*helper_srv.py\)/ }));
    expect(approve.disabled).toBe(false);
    await user.click(approve);
    await waitFor(() => expect(argsOf(t, "ApproveMCPServer")).toEqual([[WORKDIR, "tools", { fingerprint: "f2", unsandboxed: true, workspaceCode: true }]]));
    expect((await screen.findByRole("status")).textContent).toBe("MCP server tools approved, outside the sandbox.");
  });

  it("shows a URL server's address and headers by name only", async () => {
    const web = server({ name: "web", scope: "project", file: WORKDIR + "/.mcp.json", transport: "http", commandLine: "https://x.example/mcp", url: "https://x.example/mcp", headers: ["Authorization"], fingerprint: "f3", state: "unapproved", tools: 0 });
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies({ servers: [web], problems: [] }));
    const user = await openTab();
    await user.click(await screen.findByRole("button", { name: "Approve web" }));
    const ask = await screen.findByRole("alertdialog", { name: "Approve the project's MCP server web?" });
    const facts = within(ask).getByLabelText("What the approval covers").textContent;
    expect(facts).toContain("URLhttps://x.example/mcp");
    expect(facts).toContain("HeadersAuthorization (values not shown)");
    expect(within(ask).queryByRole("checkbox")).toBeNull();
  });

  it("browses a ready server's resources and prompts, and reads a resource", async () => {
    const { t } = mount(<SettingsView sessionId={null} onClose={() => {}} />, replies({ servers: [server({ name: "local" })], problems: [] }));
    const user = await openTab();
    await user.click(await screen.findByRole("button", { name: "Resources and prompts of local" }));
    const resources = await screen.findByRole("region", { name: "Resources of local" });
    await within(resources).findByText("file:///notes.txt");
    const prompts = screen.getByRole("region", { name: "Prompts of local" });
    expect((await within(prompts).findByText("greet")).closest("li")!.textContent).toContain("Arguments: name (required)");
    await user.click(within(resources).getByRole("button", { name: "Show file:///notes.txt" }));
    expect((await within(resources).findByLabelText("Contents of file:///notes.txt")).textContent).toBe("remember the milk");
    expect(argsOf(t, "ReadMCPResource")).toEqual([["", "local", "file:///notes.txt"]]);
  });

  // The list follows mcp.changed notices alone: no timer reads it again.
  it("reads the list again on an mcp.changed notice, and on no timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval"] });
    try {
      const r = replies({ servers: [server({ name: "slow", state: "connecting", tools: 0 })], problems: [] });
      const { t } = mount(<SettingsView sessionId={null} onClose={() => {}} />, r);
      await vi.waitFor(() => screen.getByRole("tab", { name: "MCP servers" }));
      screen.getByRole("tab", { name: "MCP servers" }).dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
      screen.getByRole("tab", { name: "MCP servers" }).click();
      await vi.waitFor(() => screen.getByText("Connecting"));
      const reads = t.callsOf("MCPServers");
      vi.advanceTimersByTime(60_000);
      expect(t.callsOf("MCPServers")).toBe(reads);

      r.MCPServers = { servers: [server({ name: "slow", tools: 4 })], problems: [] };
      act(() => t.notice({ type: "mcp.changed", sessionId: "", seq: 0, time: "2026-12-01T11:00:00Z", data: { change: "state", server: "slow", state: "ready" } }));
      await vi.waitFor(() => expect(item("slow").textContent).toContain("4 tools, offered to the model"));
      expect(t.callsOf("MCPServers")).toBe(reads + 1);

      // Notices that are not the MCP servers' change nothing here.
      act(() => t.notice({ type: "background.changed", sessionId: "s1", seq: 0, time: "2026-12-01T11:00:00Z",
        data: { change: "started", id: "bg1", sessionId: "s1", command: "x", pid: 1, startedAt: "2026-12-01T11:00:00Z", running: true, exitCode: 0, sandbox: "none", outputBytes: 0 } }));
      vi.advanceTimersByTime(60_000);
      expect(t.callsOf("MCPServers")).toBe(reads + 1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("says so when the list cannot be read, and tries again", async () => {
    const r = replies({ servers: [], problems: [] });
    r.MCPServers = new ApiError("internal", "the kernel is not open");
    mount(<SettingsView sessionId={null} onClose={() => {}} />, r);
    const user = await openTab();
    expect((await screen.findByRole("alert")).textContent).toContain("the kernel is not open");
    r.MCPServers = { servers: [server()], problems: [] };
    await user.click(screen.getByRole("button", { name: "Try again" }));
    await screen.findByRole("list", { name: "MCP servers" });
  });
});
