// What the sandbox refused, on a bash card: each refusal in words; a write
// and the network offered for the next command or the session, allowed
// through AllowSandbox and then said allowed, a refused folder saying why;
// a hidden path and a socket saying why nothing can allow them.
import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import { Log, SESSION } from "../eventstest";
import { mountConversation } from "../conversation/mounttest";
import { coveredBy, sentence } from "./DenialList";

afterEach(cleanup);

const R = "run_1";

function deniedLog(): Log {
  const l = new Log();
  l.runStart(R, "go");
  l.stepStart(R, 1);
  l.call(R, 1, 0, "c1", "bash", JSON.stringify({ command: "npm install" }));
  l.running(R, 1, "c1");
  l.end(R, 1, 0, "c1", "bash", "done", "npm ERR! EROFS\n\nExit code 1 after 5ms.", {
    exitCode: 1,
    denials: [
      { kind: "write", path: "/home/u/.npm/_cacache", text: "write to ~/.npm/_cacache refused: outside the workspace", allow: "write", folder: "/home/u/.npm" },
      { kind: "network", host: "registry.example:443", text: "connection to registry.example:443 refused: the network is off for commands", allow: "network" },
      { kind: "hidden", path: "/home/u/.ssh/id_ed25519", text: "read of ~/.ssh/id_ed25519 refused: the sandbox hides it" },
      { kind: "socket", path: "/run/docker.sock", text: "connection to the socket /run/docker.sock refused: other programs' sockets are out of reach of commands" },
    ],
  });
  l.stepEnd(R, 1, "tool_calls", 1);
  l.runEnd(R, "completed", "", 1);
  return l;
}

const grant = { id: 7, sessionId: SESSION, kind: "write", folder: "/home/u/.npm", once: false, createdAt: "2026-12-03T00:00:00Z", text: "/home/u/.npm writable for the session" };

describe("sandbox denials on a card", () => {
  it("are said in words, with what may be allowed and why the rest may not", async () => {
    await mountConversation(deniedLog().events, { replies: { SandboxGrants: [] } });
    const card = screen.getByRole("article", { name: "bash npm install" });
    const list = within(card).getByRole("region", { name: "Refused by the sandbox" });
    expect(list.textContent).toContain("Write to ~/.npm/_cacache refused: outside the workspace.");
    expect(list.textContent).toContain("Connection to registry.example:443 refused: the network is off for commands.");
    expect(within(list).getByRole("button", { name: "Allow writes to /home/u/.npm for this session" })).toBeTruthy();
    expect(within(list).getByRole("button", { name: "Allow the network for commands for the next command" })).toBeTruthy();
    expect(list.textContent).toContain("“Readable in the sandbox” in Settings");
    expect(list.textContent).toContain("Other programs' sockets stay out of reach");
    expect(within(list).getAllByRole("button")).toHaveLength(4);
  });

  it("allow a folder for the session through AllowSandbox, then say it is allowed", async () => {
    const { t } = await mountConversation(deniedLog().events, { replies: { SandboxGrants: [], AllowSandbox: grant } });
    const user = userEvent.setup();
    const list = screen.getByRole("region", { name: "Refused by the sandbox" });
    t.replies.SandboxGrants = [grant];
    await user.click(within(list).getByRole("button", { name: "Allow writes to /home/u/.npm for this session" }));
    expect((await within(list).findByRole("status")).textContent).toBe(
      "Allowed: /home/u/.npm writable for the session. Ask the agent to run the command again.",
    );
    expect(t.calls.filter((c) => c.method === "AllowSandbox").map((c) => c.args)).toEqual([[SESSION, { kind: "write", folder: "/home/u/.npm", once: false }]]);
  });

  it("show the kernel's refusal of a folder, and allow nothing", async () => {
    const refused = new ApiError("invalid", "cannot allow /home/u/.npm: it holds /home/u/.npm/token, which the sandbox keeps from commands");
    await mountConversation(deniedLog().events, { replies: { SandboxGrants: [], AllowSandbox: refused } });
    const user = userEvent.setup();
    const list = screen.getByRole("region", { name: "Refused by the sandbox" });
    await user.click(within(list).getByRole("button", { name: "Allow the network for commands for the next command" }));
    expect((await within(list).findByRole("alert")).textContent).toBe(`Not allowed: ${refused.message}`);
    expect(within(list).queryByRole("status")).toBeNull();
  });

  it("say what a grant of the session already allows", async () => {
    await mountConversation(deniedLog().events, { replies: { SandboxGrants: [grant] } });
    const list = screen.getByRole("region", { name: "Refused by the sandbox" });
    expect((await within(list).findByText(/Allowed since: \/home\/u\/.npm writable for the session/)).textContent).toContain("run the command again");
  });
});

describe("denial words", () => {
  it("make a sentence of a denial's text", () => {
    expect(sentence("write to ~/x refused: outside the workspace")).toBe("Write to ~/x refused: outside the workspace.");
    expect(sentence("")).toBe("");
  });

  it("find the grant that covers a denial: a folder holding it, or the network", () => {
    const d = { kind: "write", text: "", allow: "write", folder: "/home/u/.npm/sub" };
    expect(coveredBy(d, [grant])?.id).toBe(7);
    expect(coveredBy({ ...d, folder: "/home/u/.npmrc" }, [grant])).toBeUndefined();
    expect(coveredBy({ kind: "network", text: "", allow: "network" }, [grant])).toBeUndefined();
  });
});
