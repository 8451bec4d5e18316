// Words for approval requests: what a request asks, and exactly what an
// "allow for this session" scope covers, as backend/approval decides it
// (policy.go Grant.Matches, gateway.go Scopes). Pure: the request and its
// tests read the same sentences.
import type { Action, ApprovalRequestData, Grant } from "../../backend/gen/event";

/** title is the request's question for an action, by its kind. */
export function title(a: Action): string {
  switch (a.kind) {
    case "read":
      return "Read in the workspace?";
    case "write":
      return a.tool === "edit" ? "Edit a file?" : "Write a file?";
    case "write_protected":
      return "Write to a protected path?";
    case "read_outside":
      return "Read outside the workspace?";
    case "delete":
    case "delete_protected":
      return "Move to the trash?";
    case "delete_root":
      return "Delete the filesystem root?";
    case "shell":
      return "Run a command?";
    case "shell_escalate":
      return "Run a command outside the sandbox?";
    case "shell_weak_sandbox":
      return "Run a command in a weaker sandbox?";
    case "shell_permanent_delete":
      return "Run a command that deletes files for good?";
    case "fetch":
      return "Reach a host on the network?";
    case "fetch_private":
      return "Reach this machine or the local network?";
    case "mcp":
      return "Call an MCP tool?";
    case "subagent":
      return "Start a sub-agent?";
    case "hook":
      // A hook answered "ask" (docs/hooks.md): asked in every mode.
      return `A hook asks first: run ${a.tool}?`;
  }
  return `Allow ${a.tool}?`;
}

/** isShell says the action runs a shell command (its preview is the command). */
export function isShell(kind: string): boolean {
  return kind.startsWith("shell");
}

/** isDelete says the action moves paths to the trash. */
export function isDelete(kind: string): boolean {
  return kind === "delete" || kind === "delete_protected" || kind === "delete_root";
}

/** isDiff says the request's preview is the diff a write or edit would make. */
export function isDiff(r: ApprovalRequestData): boolean {
  const k = r.request.action.kind;
  return (k === "write" || k === "write_protected") && (r.request.preview ?? "") !== "";
}

// every names what a grant of a kind with no narrower field (a tool grant)
// covers: "every <phrase>".
const every: Record<string, string> = {
  read: "read inside the workspace",
  read_outside: "read outside the workspace",
  write: "file write or edit inside the workspace",
  write_protected: "write to a protected path (.git, .agents, .foya) or outside the workspace",
  delete: "move to the trash inside the workspace",
  delete_protected: "move to the trash of the workspace root, a protected folder or an outside path",
  delete_root: "attempt to delete the filesystem root (still never done)",
  shell: "command run in the sandbox",
  shell_escalate: "command run outside the sandbox",
  shell_weak_sandbox: "command run in the weaker sandbox",
  shell_permanent_delete: "command that deletes files for good",
  fetch: "fetch of any host",
  mcp: "call",
  subagent: "sub-agent it starts",
  // A hook's ask has no scope to offer: each call is asked.
  hook: "call a hook asks about",
};

// inFolder names what a folder grant of a kind covers: "<phrase> <folder>".
const inFolder: Record<string, string> = {
  read_outside: "reads of files inside",
  write: "file writes and edits inside",
  write_protected: "writes to protected paths inside",
  delete: "moves to the trash of anything inside",
};

// shellWhere says where a granted command prefix runs.
const shellWhere: Record<string, string> = {
  shell: "in the sandbox",
  shell_escalate: "outside the sandbox",
  shell_weak_sandbox: "in the weaker sandbox",
};

/** Scope is a grant in words: a short label and exactly what it covers. */
export interface Scope {
  /** label names the scope: "Command prefix `go test`", "Folder /w", "Host go.dev", "Tool `bash`". */
  label: string;
  /** covers is one sentence saying what this session will no longer ask about. */
  covers: string;
}

/** scopeWords describes a grant of "allow for this session". */
export function scopeWords(g: Grant): Scope {
  if (g.prefix !== undefined && g.prefix.length > 0) {
    const p = g.prefix.join(" ");
    const where = shellWhere[g.kind] ?? `of kind ${g.kind}`;
    return {
      label: `Command prefix \`${p}\``,
      covers:
        `Commands ${where} made only of commands that start with \`${p}\`, for the rest of this session; ` +
        `a command that also runs anything else (\`${p} && rm x\`) is asked about again.`,
    };
  }
  if (g.host !== undefined && g.host !== "") {
    return {
      label: `Host ${g.host}`,
      covers: `Network fetches of the host ${g.host} (not its subdomains, not other hosts), for the rest of this session.`,
    };
  }
  if (g.folder !== undefined && g.folder !== "") {
    const what = inFolder[g.kind] ?? `${g.kind} actions whose paths all lie inside`;
    return {
      label: `Folder ${g.folder}`,
      covers: `${capital(what)} ${g.folder} and its subfolders, for the rest of this session.`,
    };
  }
  const tool = g.tool ?? "";
  return {
    label: `Tool \`${tool}\``,
    covers: `Every ${every[g.kind] ?? `${g.kind} action`} by the tool \`${tool}\`, for the rest of this session.`,
  };
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * mcpNote says what the server declares of an MCP tool: its read-only
 * annotation (the action also names the server and its tool, mcpServer
 * and mcpTool, which the request shows as their own rows).
 */
export function mcpNote(a: Action): string {
  return a.readOnly === true ? "its server marks it read-only" : "its server does not mark it read-only: it may change things";
}
