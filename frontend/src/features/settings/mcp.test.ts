// The MCP servers section's pure logic (issue 13 item 1, the UI's MCP view).
import { describe, expect, it } from "vitest";
import { anyConnecting, canRestart, configOf, emptyForm, originWords, parseEnv, stateWords, toolWords } from "./mcp";
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
    expect(stateWords(server({ state: "unapproved" })).hint).toContain("approve its command line");
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

  it("restarts only servers Foya runs, and polls while one connects", () => {
    expect(canRestart(server({ state: "failed" }))).toBe(true);
    expect(canRestart(server({ state: "unapproved" }))).toBe(false);
    expect(canRestart(server({ state: "disabled" }))).toBe(false);
    expect(anyConnecting([server(), server({ name: "b", state: "connecting" })])).toBe(true);
    expect(anyConnecting([server()])).toBe(false);
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
