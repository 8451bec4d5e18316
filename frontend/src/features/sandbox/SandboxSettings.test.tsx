// Settings → Sandbox: the open session's grants with Revoke, a folder
// allowed from the form (the kernel's refusal shown at the field, nothing
// listed), the network turned on.
import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import { argsOf, mount } from "../settings/testkit";
import { SandboxSettings } from "./SandboxSettings";

afterEach(cleanup);

const grant = { id: 3, sessionId: "s1", kind: "write", folder: "/home/u/.npm", once: false, createdAt: "2026-12-03T00:00:00Z", text: "/home/u/.npm writable for the session" };
const net = { id: 4, sessionId: "s1", kind: "network", once: false, createdAt: "2026-12-03T00:00:00Z", text: "the network on for the session (files still confined)" };

describe("Settings → Sandbox", () => {
  it("says so when no session is open", () => {
    mount(<SandboxSettings sessionId={null} />, {});
    expect(screen.getByText("No session is open: open one to allow its commands more.")).toBeTruthy();
  });

  it("lists the session's grants and revokes one", async () => {
    const { t } = mount(<SandboxSettings sessionId="s1" />, { SandboxGrants: [grant], RevokeSandbox: null });
    const list = await screen.findByRole("list", { name: "Sandbox grants of this session" });
    expect(within(list).getByText("/home/u/.npm writable for the session")).toBeTruthy();
    t.replies.SandboxGrants = [];
    await userEvent.setup().click(within(list).getByRole("button", { name: "Revoke /home/u/.npm writable for the session" }));
    expect((await screen.findByRole("status")).textContent).toBe("Revoked: /home/u/.npm writable for the session.");
    expect(argsOf(t, "RevokeSandbox")).toEqual([["s1", 3]]);
    await screen.findByText("Nothing more.");
  });

  it("allows a folder, and shows the kernel's refusal at the field", async () => {
    const refused = new ApiError("invalid", "cannot allow /: the whole file system would be writable; pick the folder the command needs");
    const { t } = mount(<SandboxSettings sessionId="s1" />, { SandboxGrants: [], AllowSandbox: refused });
    const user = userEvent.setup();
    const input = await screen.findByRole("textbox", { name: "A folder its commands may write" });
    await user.click(screen.getByRole("button", { name: "Allow for this session" }));
    expect(screen.getByText("Name the folder, as an absolute path.")).toBeTruthy();
    expect(argsOf(t, "AllowSandbox")).toEqual([]);
    await user.type(input, "/");
    await user.click(screen.getByRole("button", { name: "Allow for this session" }));
    expect(await screen.findByText(refused.message)).toBeTruthy();
    expect(input.getAttribute("aria-invalid")).toBe("true");
    t.replies.AllowSandbox = grant;
    t.replies.SandboxGrants = [grant];
    await user.clear(input);
    await user.type(input, "/home/u/.npm");
    await user.click(screen.getByRole("button", { name: "Allow for this session" }));
    expect((await screen.findByRole("status")).textContent).toBe("Allowed: /home/u/.npm writable for the session.");
    expect(argsOf(t, "AllowSandbox")).toEqual([
      ["s1", { kind: "write", folder: "/", once: false }],
      ["s1", { kind: "write", folder: "/home/u/.npm", once: false }],
    ]);
    expect(await within(await screen.findByRole("list", { name: "Sandbox grants of this session" })).findByText(grant.text)).toBeTruthy();
  });

  it("turns the network on, then offers it no more", async () => {
    const { t } = mount(<SandboxSettings sessionId="s1" />, { SandboxGrants: [], AllowSandbox: net });
    t.replies.SandboxGrants = [net];
    await userEvent.setup().click(await screen.findByRole("button", { name: "Turn the network on for this session's commands" }));
    expect((await screen.findByRole("status")).textContent).toBe("Allowed: the network on for the session (files still confined).");
    expect(argsOf(t, "AllowSandbox")).toEqual([["s1", { kind: "network", once: false }]]);
    await screen.findByText(net.text);
    expect(screen.queryByRole("button", { name: "Turn the network on for this session's commands" })).toBeNull();
  });
});
