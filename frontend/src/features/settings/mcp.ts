// The MCP servers section's logic, pure: how a server's state, origin and
// tools read, and the add form's fields turned into the kernel's
// MCPServerConfig (or an error naming the field at fault).
import type { Approval as MCPApprove, Server as MCPServer, Config as MCPServerConfig } from "../../backend/gen/mcpconfig";
import { parseHeaders } from "./headers";

/** stateWords is a server's state in words: a short label and, when it helps, what to do. */
export function stateWords(s: MCPServer): { label: string; hint: string } {
  switch (s.state) {
    case "connecting":
      return { label: "Connecting", hint: "Starting it and asking for its tools…" };
    case "ready":
      return { label: "Ready", hint: "" };
    case "failed":
      return { label: "Failed", hint: "Foya retries on its own with a growing wait; fix what the error says, then restart it." };
    case "stopped":
      return { label: "Stopped", hint: "It starts when a session of its scope runs, or when you restart it." };
    case "unapproved":
      return {
        label: "Not approved",
        hint: "A project's server runs only once you approve what it runs (its command, arguments, environment and the workspace code it loads): opening a project starts none of its programs.",
      };
    case "disabled":
      return { label: "Disabled", hint: 'Its entry says "disabled": true; edit the file to enable it.' };
  }
  return { label: s.state, hint: "" };
}

/** originWords says where a server's entry comes from: yours, imported from a file, or a project's file. */
export function originWords(s: MCPServer): string {
  if (s.scope === "project") return `From the project's ${s.file}`;
  if (s.importedFrom !== undefined && s.importedFrom !== "") return `Yours, imported from ${s.importedFrom}`;
  return "Yours (added in Foya)";
}

/** toolWords says how many tools a server offers and how the model sees them. */
export function toolWords(s: MCPServer): string {
  if (s.state !== "ready") return s.tools === 0 ? "No tools while it is not ready" : `${s.tools} tools (kept from when it was ready)`;
  const n = s.tools === 1 ? "1 tool" : `${s.tools} tools`;
  if (s.tools === 0) return "No tools";
  if (s.alwaysLoad) return `${n}, always offered to the model`;
  if (s.deferred) return `${n}, deferred: the model finds them with tool_search`;
  return `${n}, offered to the model`;
}

/** canRestart says whether the restart action applies: a server Foya runs. */
export function canRestart(s: MCPServer): boolean {
  return s.state === "ready" || s.state === "failed" || s.state === "connecting";
}

/** AddForm is what the add form holds, as typed. */
export interface AddForm {
  name: string;
  kind: "stdio" | "http" | "sse";
  command: string;
  /** args is one argument per line. */
  args: string;
  /** env is one NAME=value per line. */
  env: string;
  url: string;
  /** headers is one "Name: value" per line. */
  headers: string;
  sandbox: boolean;
  alwaysLoad: boolean;
}

/** emptyForm is a fresh add form: a stdio server. */
export function emptyForm(): AddForm {
  return { name: "", kind: "stdio", command: "", args: "", env: "", url: "", headers: "", sandbox: false, alwaysLoad: false };
}

/**
 * parseEnv reads NAME=value lines (blank lines skipped). A line without
 * "=" or with an empty name is an error naming the line.
 */
export function parseEnv(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const eq = line.indexOf("=");
    const name = eq < 0 ? "" : line.slice(0, eq).trim();
    if (name === "") {
      return { error: `Environment line ${i + 1} ("${line}") is not NAME=value: write one variable per line, such as GITHUB_TOKEN=ghp_….` };
    }
    if (name in env) return { error: `The variable ${name} is given twice (line ${i + 1}): keep one.` };
    env[name] = line.slice(eq + 1).trimStart();
  }
  return { env };
}

/**
 * configOf turns the form into the kernel's MCPServerConfig, or says what
 * is missing. The kernel validates again (names, URLs, types); this only
 * spares a round trip for what is plainly absent.
 */
export function configOf(f: AddForm): { config: MCPServerConfig } | { error: string } {
  const name = f.name.trim();
  if (name === "") return { error: "Give the server a name, such as github: its tools are called mcp__<name>__<tool>." };
  const config: MCPServerConfig = { name };
  if (f.alwaysLoad) config.alwaysLoad = true;
  if (f.kind === "stdio") {
    const command = f.command.trim();
    if (command === "") return { error: "Say which program to start, such as npx or /usr/local/bin/my-server." };
    config.command = command;
    const args = f.args
      .split("\n")
      .map((a) => a.trim())
      .filter((a) => a !== "");
    if (args.length > 0) config.args = args;
    const env = parseEnv(f.env);
    if ("error" in env) return env;
    if (Object.keys(env.env).length > 0) config.env = env.env;
    if (f.sandbox) config.sandbox = true;
    return { config };
  }
  const url = f.url.trim();
  if (!/^https?:\/\//.test(url)) return { error: "Give the server's address, starting with http:// or https://." };
  config.url = url;
  config.type = f.kind;
  const headers = parseHeaders(f.headers);
  if ("error" in headers) return headers;
  if (Object.keys(headers.headers).length > 0) config.headers = headers.headers;
  return { config };
}

/** ApprovalFact is one line of what approving a project's server covers. */
export interface ApprovalFact {
  label: string;
  value: string;
}

/**
 * approvalFacts lists everything that decides what a project's server
 * runs, as the approval covers it (a person approves all of it, nothing
 * hidden): transport, command, each argument, working folder, environment
 * (the kernel masks values that look secret), URL, headers by name, and
 * the workspace code it runs.
 */
export function approvalFacts(s: MCPServer): ApprovalFact[] {
  const out: ApprovalFact[] = [{ label: "Transport", value: s.transport }];
  if (s.transport === "stdio") {
    out.push({ label: "Command", value: s.command ?? s.commandLine });
    (s.args ?? []).forEach((a, i) => out.push({ label: `Argument ${i + 1}`, value: a }));
  } else {
    out.push({ label: "URL", value: s.url ?? s.commandLine });
    if ((s.headers ?? []).length > 0) out.push({ label: "Headers", value: `${(s.headers ?? []).join(", ")} (values not shown)` });
  }
  if (s.cwd !== undefined && s.cwd !== "") out.push({ label: "Working folder", value: s.cwd });
  for (const name of Object.keys(s.env ?? {}).sort()) out.push({ label: "Environment", value: `${name}=${s.env![name]}` });
  if ((s.code ?? []).length > 0) out.push({ label: "Workspace code it runs", value: (s.code ?? []).join(", ") });
  // ${VAR} is expanded from your environment when it starts: the values of
  // these decide what it runs, and a new value asks again.
  if ((s.vars ?? []).length > 0) out.push({ label: "Reads from your environment", value: (s.vars ?? []).map((v) => "$" + v).join(", ") });
  if ((s.passVars ?? []).length > 0)
    out.push({ label: "Passes from your environment", value: `${(s.passVars ?? []).map((v) => "$" + v).join(", ")} (to its environment or headers, as they are when it starts)` });
  return out;
}

/** runsWorkspaceCode says whether a server runs code from the workspace, which then decides what it does. */
export function runsWorkspaceCode(s: MCPServer): boolean {
  return (s.code ?? []).length > 0;
}

/**
 * approveArgs is what the approve action sends: the fingerprint that was
 * shown (the kernel refuses if the server changed since), and whether the
 * sandbox is lifted, with the confirmation a server running workspace
 * code needs for that.
 */
export function approveArgs(s: MCPServer, unsandboxed: boolean, workspaceCode: boolean): MCPApprove {
  const a: MCPApprove = { fingerprint: s.fingerprint ?? "" };
  if (unsandboxed && s.transport === "stdio") {
    a.unsandboxed = true;
    if (workspaceCode && runsWorkspaceCode(s)) a.workspaceCode = true;
  }
  return a;
}
