// The settings view's "Hooks" section (docs/hooks.md): mounted as the shell
// mounts it, answered by a FakeTransport.
import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { session } from "../../backend/fake";
import type { Hooks, HooksFile } from "../../backend/gen/kernel";
import { SettingsView } from "./index";
import { argsOf, mount } from "./testkit";
import { statusWords } from "./HookSettings";

afterEach(cleanup);

const WORKDIR = "/home/ada/project";
const CONTENT = '{"hooks":[{"name":"guard","event":"before_tool","match":"bash","command":"sh .foya/guard.sh"}]}';
const HASH = "ab".repeat(32);

function hooks(project: Partial<HooksFile>): Hooks {
  return {
    workdir: WORKDIR,
    user: {
      source: "user",
      file: "/home/ada/.local/share/foya/hooks.json",
      status: "active",
      hooks: [{ name: "ping", event: "turn_end", command: "notify-send done", timeoutSeconds: 30, sandbox: false }],
    },
    project: {
      source: "project",
      file: WORKDIR + "/.foya/hooks.json",
      status: "unapproved",
      content: CONTENT,
      hash: HASH,
      hooks: [{ name: "guard", event: "before_tool", match: "bash", command: "sh .foya/guard.sh", timeoutSeconds: 30, sandbox: true }],
      ...project,
    },
  };
}

function replies(h: Hooks): Record<string, unknown> {
  return { Session: session({ id: "s1", workdir: WORKDIR }), DefaultMode: "manual", Providers: [], Settings: {}, ImageInput: false, Hooks: h, TrustProjectHooks: null, RevokeProjectHooks: null };
}

async function openTab() {
  const user = userEvent.setup();
  await user.click(screen.getByRole("tab", { name: "Hooks" }));
  return user;
}

describe("SettingsView: Hooks", () => {
  it("lists your hooks and the project's with whether they run, and approves the project's file as shown", async () => {
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies(hooks({})));
    const user = await openTab();
    const mine = await screen.findByRole("region", { name: "Your hooks" });
    expect(mine.textContent).toContain("Its hooks run, outside the sandbox");
    expect(within(mine).getByText("notify-send done")).toBeTruthy();
    const project = screen.getByRole("region", { name: "This project's hooks" });
    expect(project.textContent).toContain("Not approved: its hooks do not run");
    expect(project.textContent).toContain("sandboxed");
    expect(argsOf(t, "Hooks")).toEqual([[WORKDIR]]);

    await user.click(within(project).getByRole("button", { name: "Review and approve…" }));
    const dialog = await screen.findByRole("alertdialog");
    expect(within(dialog).getByLabelText("The hooks file to approve").textContent).toBe(CONTENT);
    expect(dialog.textContent).toContain(HASH);
    await user.click(within(dialog).getByRole("button", { name: "Approve" }));
    expect(await screen.findByRole("status")).toHaveProperty("textContent", "Approved: the project's hooks run from the next turn, in the sandbox.");
    expect(argsOf(t, "TrustProjectHooks")).toEqual([[WORKDIR, HASH]]);
  });

  it("offers to revoke an approved file, and says a changed one does not run", async () => {
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies(hooks({ status: "approved", approvedAt: "2026-12-01T10:00:00Z" })));
    const user = await openTab();
    const project = await screen.findByRole("region", { name: "This project's hooks" });
    expect(project.textContent).toContain("Approved by you: its hooks run, in the sandbox.");
    await user.click(within(project).getByRole("button", { name: "Revoke" }));
    await screen.findByRole("status");
    expect(argsOf(t, "RevokeProjectHooks")).toEqual([[WORKDIR]]);
    expect(statusWords({ source: "project", file: "f", status: "changed", hooks: [] })).toContain("Changed since you approved it");
    expect(statusWords({ source: "project", file: "f", status: "invalid", error: 'hook 1: no "command"', hooks: [] })).toContain('no "command"');
  });
  it("shows how to write a hooks file when there is none, and not once there is one", async () => {
    const none: Hooks = {
      workdir: WORKDIR,
      user: { source: "user", file: "/home/ada/.local/share/foya/hooks.json", status: "none", hooks: [] },
      project: { source: "project", file: WORKDIR + "/.foya/hooks.json", status: "none", hooks: [] },
    };
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies(none));
    await openTab();
    const example = await screen.findByRole("region", { name: "Writing a hooks file" });
    expect(example.textContent).toContain('"event": "turn_end"');
    expect(example.textContent).toContain("approved it here, and always in the sandbox");
    cleanup();
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies(hooks({})));
    await openTab();
    await screen.findByRole("region", { name: "Your hooks" });
    expect(screen.queryByRole("region", { name: "Writing a hooks file" })).toBeNull();
  });
});
