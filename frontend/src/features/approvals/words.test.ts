import { describe, expect, it } from "vitest";
import * as gen from "../../backend/gen/event";
import { scopeWords, title } from "./words";

// Every action kind, from the generated constants (Kind*).
const KindAll = Object.entries(gen)
  .filter(([k, v]) => k.startsWith("Kind") && typeof v === "string")
  .map(([, v]) => v as string);

describe("scopeWords", () => {
  // One row per scope kind gateway.go's Scopes offers, worded as
  // policy.go's Grant.Matches decides.
  it.each([
    [
      { kind: "shell", prefix: ["go", "test"] },
      "Command prefix `go test`",
      "Commands in the sandbox made only of commands that start with `go test`, for the rest of this session; a command that also runs anything else (`go test && rm x`) is asked about again.",
    ],
    [
      { kind: "shell_escalate", prefix: ["curl"] },
      "Command prefix `curl`",
      "Commands outside the sandbox made only of commands that start with `curl`, for the rest of this session; a command that also runs anything else (`curl && rm x`) is asked about again.",
    ],
    [
      { kind: "shell_weak_sandbox", prefix: ["make"] },
      "Command prefix `make`",
      "Commands in the weaker sandbox made only of commands that start with `make`, for the rest of this session; a command that also runs anything else (`make && rm x`) is asked about again.",
    ],
    [
      { kind: "fetch", host: "go.dev" },
      "Host go.dev",
      "Network fetches of the host go.dev (not its subdomains, not other hosts), for the rest of this session.",
    ],
    [
      { kind: "write", folder: "/home/me/project" },
      "Folder /home/me/project",
      "File writes and edits inside /home/me/project and its subfolders, for the rest of this session.",
    ],
    [
      { kind: "write_protected", folder: "/home/me/project/.git" },
      "Folder /home/me/project/.git",
      "Writes to protected paths inside /home/me/project/.git and its subfolders, for the rest of this session.",
    ],
    [
      { kind: "read_outside", folder: "/etc" },
      "Folder /etc",
      "Reads of files inside /etc and its subfolders, for the rest of this session.",
    ],
    [
      { kind: "delete", folder: "/home/me/project/build" },
      "Folder /home/me/project/build",
      "Moves to the trash of anything inside /home/me/project/build and its subfolders, for the rest of this session.",
    ],
    [{ kind: "shell", tool: "bash" }, "Tool `bash`", "Every command run in the sandbox by the tool `bash`, for the rest of this session."],
    [
      { kind: "write", tool: "edit" },
      "Tool `edit`",
      "Every file write or edit inside the workspace by the tool `edit`, for the rest of this session.",
    ],
    [{ kind: "fetch", tool: "web_fetch" }, "Tool `web_fetch`", "Every fetch of any host by the tool `web_fetch`, for the rest of this session."],
    [{ kind: "mcp", tool: "issues_create" }, "Tool `issues_create`", "Every call by the tool `issues_create`, for the rest of this session."],
  ])("%j is %s", (grant, label, covers) => {
    expect(scopeWords(grant)).toEqual({ label, covers });
  });

  it("names every action kind a tool grant may have", () => {
    // The mode table's 15 kinds, and "hook": a call a hook asks about.
    expect(KindAll).toHaveLength(16);
    // fetch_private has no grant: a private address is asked about on every fetch, so no grant opens the local network.
    for (const kind of KindAll.filter((k) => k !== "fetch_private")) {
      expect(scopeWords({ kind, tool: "t" }).covers).not.toContain(kind + " action");
    }
  });
});

describe("title", () => {
  it("asks a question for every action kind", () => {
    for (const kind of KindAll) {
      const t = title({ kind, tool: "t" });
      expect(t.endsWith("?")).toBe(true);
      expect(t).not.toBe("Allow t?");
    }
    expect(title({ kind: "write", tool: "edit" })).toBe("Edit a file?");
    expect(title({ kind: "future_kind", tool: "t" })).toBe("Allow t?");
  });
});
