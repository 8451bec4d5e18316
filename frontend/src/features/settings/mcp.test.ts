// The MCP servers section's pure logic.
import { describe, expect, it } from "vitest";
import { approvalFacts, approveArgs, canRestart, configOf, emptyForm, originWords, parseEnv, stateWords, toolWords } from "./mcp";
import { server } from "./testkit";


describe("MCP server words", () => {
  it.each([
    ["connecting", "Connecting"],
    ["ready", "Ready"],
    ["failed", "Failed"],
    ["stopped", "Stopped"],
    ["unapproved", "Not approved"],
    ["disabled", "Disabled"],
    ["something new", "something new"],
  ])("state %s reads %s", (state, label) => {
    expect(stateWords(server({ state })).label).toBe(label);
  });

  it("says what to do for a failed or an unapproved server", () => {
    expect(stateWords(server({ state: "failed" })).hint).toContain("restart it");
    expect(stateWords(server({ state: "unapproved" })).hint).toContain("approve what it runs");
  });

  it("names where a server comes from", () => {
    expect(originWords(server())).toBe("Yours (added in Foya)");
    expect(originWords(server({ importedFrom: "/home/ada/.cursor/mcp.json" }))).toBe("Yours, imported from /home/ada/.cursor/mcp.json");
    expect(originWords(server({ scope: "project", file: "/w/.mcp.json" }))).toBe("From the project's /w/.mcp.json");
  });

  it.each([
    [server(), "3 tools, offered to the model"],
    [server({ tools: 1 }), "1 tool, offered to the model"],
    [server({ tools: 0 }), "No tools"],
    [server({ deferred: true }), "3 tools, deferred: the model finds them with tool_search"],
    [server({ deferred: true, alwaysLoad: true }), "3 tools, always offered to the model"],
    [server({ state: "failed", tools: 0 }), "No tools while it is not ready"],
    [server({ state: "failed", tools: 3 }), "3 tools (kept from when it was ready)"],
  ])("tools of %o read %s", (s, words) => {
    expect(toolWords(s)).toBe(words);
  });

  it("restarts only servers Foya runs", () => {
    expect(canRestart(server({ state: "failed" }))).toBe(true);
    expect(canRestart(server({ state: "unapproved" }))).toBe(false);
    expect(canRestart(server({ state: "disabled" }))).toBe(false);
  });
});

describe("the add form", () => {
  it("makes a stdio config with arguments one per line and the environment", () => {
    const f = { ...emptyForm(), name: " github ", command: " npx ", args: "-y\n\n @modelcontextprotocol/server-github \n", env: "GITHUB_TOKEN=a=b\n", sandbox: true };
    expect(configOf(f)).toEqual({
      config: { name: "github", command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_TOKEN: "a=b" }, sandbox: true },
    });
  });

  it("makes a URL config with its type and headers, without the stdio fields", () => {
    const f = { ...emptyForm(), name: "remote", kind: "sse" as const, command: "ignored", url: "https://mcp.example.com/sse", headers: "Authorization: Bearer x", alwaysLoad: true };
    expect(configOf(f)).toEqual({
      config: { name: "remote", alwaysLoad: true, url: "https://mcp.example.com/sse", type: "sse", headers: { Authorization: "Bearer x" } },
    });
  });

  it.each([
    [{ name: "" }, "Give the server a name"],
    [{ name: "x" }, "Say which program to start"],
    [{ name: "x", command: "srv", env: "NOEQUALS" }, 'Environment line 1 ("NOEQUALS") is not NAME=value'],
    [{ name: "x", command: "srv", env: "A=1\nA=2" }, "The variable A is given twice (line 2)"],
    [{ name: "x", kind: "http" as const, url: "file:///etc/passwd" }, "starting with http:// or https://"],
    [{ name: "x", kind: "http" as const, url: "http://127.0.0.1:9/mcp", headers: "no colon" }, 'Header line 1 ("no colon") is not "Name: value"'],
  ])("refuses %o: %s", (fields, words) => {
    const c = configOf({ ...emptyForm(), ...fields });
    expect("error" in c && c.error).toContain(words);
  });

  it("reads environment lines, skipping blank ones and spaces around the name, keeping = in values", () => {
    expect(parseEnv("\nA=1\n B = x=y \n")).toEqual({ env: { A: "1", B: "x=y" } });
  });
});

// What approving shows (all that decides what runs) and sends (the
// fingerprint of what was shown, so a server changed since is refused).
describe("approving a project's server", () => {
  const s = server({ scope: "project", command: "python3", args: ["helper_srv.py"], env: { B: "2", A: "1" }, cwd: "/w/srv", code: ["helper_srv.py"], fingerprint: "fp" });

  it("lists everything that decides what runs", () => {
    expect(approvalFacts(s)).toEqual([
      { label: "Transport", value: "stdio" },
      { label: "Command", value: "python3" },
      { label: "Argument 1", value: "helper_srv.py" },
      { label: "Working folder", value: "/w/srv" },
      { label: "Environment", value: "A=1" },
      { label: "Environment", value: "B=2" },
      { label: "Workspace code it runs", value: "helper_srv.py" },
    ]);
    expect(approvalFacts(server({ transport: "sse", url: "https://x/sse", headers: ["Authorization", "X-Key"] }))).toEqual([
      { label: "Transport", value: "sse" },
      { label: "URL", value: "https://x/sse" },
      { label: "Headers", value: "Authorization, X-Key (values not shown)" },
    ]);
    // A project's ${VAR}: the variables it reads are shown, those that
    // decide what runs apart from those only passed on.
    expect(approvalFacts(server({ transport: "http", url: "${BASE}/mcp", headers: ["Authorization"], vars: ["BASE"], passVars: ["TOKEN"] })).slice(3)).toEqual([
      { label: "Reads from your environment", value: "$BASE" },
      { label: "Passes from your environment", value: "$TOKEN (to its environment or headers, as they are when it starts)" },
    ]);
  });

  it("sends the fingerprint shown, and the workspace-code confirmation only with the sandbox lifted", () => {
    expect(approveArgs(s, false, true)).toEqual({ fingerprint: "fp" });
    expect(approveArgs(s, true, false)).toEqual({ fingerprint: "fp", unsandboxed: true });
    expect(approveArgs(s, true, true)).toEqual({ fingerprint: "fp", unsandboxed: true, workspaceCode: true });
    expect(approveArgs(server({ transport: "http", fingerprint: "h" }), true, true)).toEqual({ fingerprint: "h" });
  });
});
