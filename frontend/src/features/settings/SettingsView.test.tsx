import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../backend";
import { session } from "../../backend/fake";
import { described } from "../firstrun/testkit";
import { SettingsView } from "./index";
import { argsOf, check, declared, mount, provider, settingList } from "./testkit";

afterEach(cleanup);

const values = { "approval.default": "manual", "run.max_steps": "500", "files.maxWriteBytes": "67108864", "provider.idleTimeout": "5m0s" };

const base = (): Record<string, unknown> => ({
  Session: session({ id: "s1", approvalMode: "manual" }),
  DefaultMode: "manual",
  SetMode: null,
  SetDefaultMode: null,
  Providers: [provider()],
  SettingList: settingList(values),
  ImageInput: false,
  SetSetting: null,
});

function radio(group: string, name: string): HTMLElement {
  return within(screen.getByRole("radiogroup", { name: group })).getByRole("radio", { name });
}

const sessionGroup = "Approval mode of this session";
const defaultGroup = "Default approval mode for new sessions";

describe("SettingsView: approval modes", () => {
  it("explains each mode in one sentence and shows the session's mode", async () => {
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, base());
    const dialog = screen.getByRole("dialog", { name: "Settings" });
    await waitFor(() => expect(radio(sessionGroup, "Manual").getAttribute("aria-checked")).toBe("true"));
    const full = radio(sessionGroup, "Full Access");
    const why = document.getElementById(full.getAttribute("aria-describedby")!)!;
    expect(why.textContent).toContain("without the sandbox");
    expect(within(dialog).getAllByRole("radio")).toHaveLength(6); // this session and new sessions
  });

  it("asks before Full Access: cancel keeps the mode, confirm switches; Auto switches at once", async () => {
    const user = userEvent.setup();
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, base());
    await waitFor(() => radio(sessionGroup, "Manual"));

    await user.click(radio(sessionGroup, "Full Access"));
    const ask = await screen.findByRole("alertdialog", { name: "Switch this session to Full Access?" });
    expect(ask.textContent).toContain("run commands without the sandbox");
    expect(ask.textContent).toContain("outside the workspace");
    await user.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(t.callsOf("SetMode")).toBe(0);
    expect(radio(sessionGroup, "Manual").getAttribute("aria-checked")).toBe("true");
    expect(radio(sessionGroup, "Full Access").getAttribute("aria-checked")).toBe("false");

    await user.click(radio(sessionGroup, "Full Access"));
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Switch to Full Access" }));
    await waitFor(() => expect(argsOf(t, "SetMode")).toEqual([["s1", "full_access"]]));
    expect((await screen.findByText(/This session is now in Full Access/)).textContent).toContain("shows in the conversation");
    expect(radio(sessionGroup, "Full Access").getAttribute("aria-checked")).toBe("true");

    await user.click(radio(sessionGroup, "Auto"));
    expect(screen.queryByRole("alertdialog")).toBeNull();
    await waitFor(() => expect(argsOf(t, "SetMode")).toEqual([["s1", "full_access"], ["s1", "auto"]]));
  });

  it("shows the kernel's error when the switch fails, and keeps the mode", async () => {
    const user = userEvent.setup();
    const replies = base();
    replies.SetMode = new ApiError("not_found", 'session "s1" not found: see foya sessions');
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    await waitFor(() => radio(sessionGroup, "Manual"));
    await user.click(radio(sessionGroup, "Auto"));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe('The mode was not changed: session "s1" not found: see foya sessions');
    expect(radio(sessionGroup, "Manual").getAttribute("aria-checked")).toBe("true");
  });

  it("sets the default mode for new sessions, Full Access after confirmation", async () => {
    const user = userEvent.setup();
    const { t } = mount(<SettingsView sessionId={null} onClose={() => {}} />, base());
    expect(screen.getByText("No session is open: open one to change its approval mode.")).toBeTruthy();
    await waitFor(() => expect(radio(defaultGroup, "Manual").getAttribute("aria-checked")).toBe("true"));
    await user.click(radio(defaultGroup, "Auto"));
    await waitFor(() => expect(argsOf(t, "SetDefaultMode")).toEqual([["auto"]]));
    expect((await screen.findByRole("status")).textContent).toContain("New sessions start in Auto");

    await user.click(radio(defaultGroup, "Full Access"));
    const ask = await screen.findByRole("alertdialog", { name: "Switch new sessions to Full Access?" });
    await user.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(argsOf(t, "SetDefaultMode")).toEqual([["auto"]]);
    expect(radio(defaultGroup, "Auto").getAttribute("aria-checked")).toBe("true");
    expect(t.callsOf("SetMode")).toBe(0);
  });

  it("closes on Escape and with the close button", async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    mount(<SettingsView sessionId="s1" onClose={onClose} />, base());
    await user.click(screen.getByRole("button", { name: "Close settings" }));
    expect(onClose).toHaveBeenCalledTimes(1);
    await user.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  // The shell mounts the dialog while its state says so (a button, Ctrl+,):
  // no radix Trigger, so the dialog itself gives focus back.
  it("gives focus back to the button that opened it when it closes", async () => {
    const user = userEvent.setup();
    mount(<Opener />, base());
    const opener = screen.getByRole("button", { name: "Settings" });
    await user.click(opener);
    await screen.findByRole("dialog", { name: "Settings" });
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(opener));
    await user.click(opener);
    await user.click(await screen.findByRole("button", { name: "Close settings" }));
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });
});

function Opener() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Settings
      </button>
      {open && <SettingsView sessionId="s1" onClose={() => setOpen(false)} />}
    </>
  );
}

async function openTab(name: string) {
  const user = userEvent.setup();
  await user.click(screen.getByRole("tab", { name }));
  return user;
}

describe("SettingsView: providers", () => {
  it("lists profiles with where each key is kept, never a key", async () => {
    const replies = base();
    replies.Providers = [
      provider(),
      provider({ name: "work", default: false, keyStore: "file", headers: { "X-Org": "42" }, secretHeaders: ["Authorization"] }),
      provider({ name: "open", default: false, keyStore: "" }),
    ];
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    await openTab("Providers");
    const list = await screen.findByRole("list", { name: "Provider profiles" });
    const [local, work, open] = within(list).getAllByRole("listitem");
    expect(local!.textContent).toContain("Default");
    expect(local!.textContent).toContain("Key kept in the system keyring.");
    expect(work!.textContent).toContain("readable by you only (mode 0600)");
    expect(work!.textContent).toContain("X-Org: 42");
    expect(work!.textContent).toContain("Authorization (kept with the key, not shown)");
    expect(open!.textContent).toContain("No API key stored.");
    expect(within(work!).getByRole("button", { name: "Make work the default" })).toBeTruthy();
    expect(within(local!).queryByRole("button", { name: "Make local the default" })).toBeNull();
  });

  it("adds a profile: the API's errors in words at their field, the key sent once and never shown back", async () => {
    const key = "sk-secret-0123456789abcdef";
    const replies = base();
    replies.Providers = [];
    replies.AddProvider = new ApiError("invalid", 'base URL "ftp://host": want an http:// or https:// URL with a host, such as http://127.0.0.1:8080/v1');
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Add a provider" }));
    const form = screen.getByRole("form", { name: "Add a provider" });
    await user.type(within(form).getByLabelText("Name"), "local");
    await user.type(within(form).getByLabelText("Base URL"), "ftp://host");
    await user.type(within(form).getByLabelText("Model"), "qwen-coder");
    await user.type(within(form).getByLabelText("Extra headers"), "X-Org: 42");
    const keyField = within(form).getByLabelText("API key") as HTMLInputElement;
    expect(keyField.type).toBe("password");
    await user.type(keyField, key);
    await user.click(within(form).getByRole("button", { name: "Add provider" }));
    const urlField = within(form).getByLabelText("Base URL");
    await waitFor(() => expect(urlField.getAttribute("aria-invalid")).toBe("true"));
    expect(described(urlField)).toContain("want an http:// or https:// URL with a host");
    expect(within(form).queryByRole("alert")).toBeNull(); // at its field, not a line at the bottom
    expect(keyField.value).toBe(""); // not kept in the page after it was sent

    // The name exists.
    replies.AddProvider = new ApiError("conflict", "provider exists: local already exists: remove it first, or change it with foya providers edit");
    const url = within(form).getByLabelText("Base URL");
    await user.clear(url);
    await user.type(url, "http://127.0.0.1:8080/v1");
    await user.type(keyField, key);
    await user.click(within(form).getByRole("button", { name: "Add provider" }));
    const nameField = within(form).getByLabelText("Name");
    await waitFor(() => expect(described(nameField)).toContain("local already exists"));
    expect(nameField.getAttribute("aria-invalid")).toBe("true");
    expect(url.getAttribute("aria-invalid")).toBeNull();

    // The keyring is locked.
    replies.AddProvider = new ApiError(
      "unavailable",
      "store the API key of provider local: the keyring is locked: unlock it (your desktop's keyring or passwords app) and try again",
    );
    await user.type(keyField, key);
    await user.click(within(form).getByRole("button", { name: "Add provider" }));
    await waitFor(() => expect(within(form).getByRole("alert").textContent).toContain("the keyring is locked: unlock it"));

    replies.AddProvider = provider({ headers: { "X-Org": "42" } });
    replies.Providers = [provider({ headers: { "X-Org": "42" } })];
    await user.type(keyField, key);
    await user.click(within(form).getByRole("button", { name: "Add provider" }));
    expect((await screen.findByRole("status")).textContent).toBe("Provider local added. Key kept in the system keyring.");
    expect(screen.queryByRole("form", { name: "Add a provider" })).toBeNull();
    const sent = argsOf(t, "AddProvider");
    expect(sent).toHaveLength(4);
    expect(sent[3]).toEqual([
      { name: "local", baseUrl: "http://127.0.0.1:8080/v1", model: "qwen-coder", headers: { "X-Org": "42" }, apiKey: key },
    ]);
    expect(document.body.innerHTML).not.toContain(key);
    for (const input of document.querySelectorAll("input")) expect(input.value).not.toBe(key);
  });

  it("edits only what changed, with the model picked from the server's list; the key field starts empty", async () => {
    const replies = base();
    replies.ProviderModels = ["llama-3", "qwen-coder", "qwen-large"];
    replies.EditProvider = provider({ model: "qwen-large" });
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Edit local" }));
    const form = screen.getByRole("form", { name: "Edit local" });
    expect((within(form).getByLabelText("API key") as HTMLInputElement).value).toBe("");
    expect(within(form).getByText(/leave it empty to keep the stored key/)).toBeTruthy();

    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    expect(within(form).getByRole("alert").textContent).toBe("Nothing changed: change a field, or cancel.");
    expect(t.callsOf("EditProvider")).toBe(0);

    await user.click(within(form).getByRole("button", { name: "List the server's models" }));
    await user.selectOptions(await within(form).findByLabelText("Models the server lists"), "qwen-large");
    expect((within(form).getByLabelText("Model") as HTMLInputElement).value).toBe("qwen-large");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(argsOf(t, "EditProvider")).toEqual([["local", { model: "qwen-large" }]]));
    expect((await screen.findByRole("status")).textContent).toContain("Provider local saved.");
  });

  it("offers the tool-call mode as a select: shown in the list, sent on add only when not Auto, on edit only when changed", async () => {
    const replies = base();
    replies.Providers = [provider({ toolCalls: "text" })];
    replies.EditProvider = provider({ toolCalls: "native" });
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    expect(await screen.findByText("Parse from text")).toBeTruthy();
    await user.click(await screen.findByRole("button", { name: "Edit local" }));
    const form = screen.getByRole("form", { name: "Edit local" });
    const select = within(form).getByLabelText("Tool calls") as HTMLSelectElement;
    expect(select.value).toBe("text");
    expect(Array.from(select.options).map((o) => o.text)).toEqual(["Auto", "Native only", "Parse from text"]);
    expect(described(select)).toContain("Local servers without a tool parser");
    await user.selectOptions(select, "Native only");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(argsOf(t, "EditProvider")).toEqual([["local", { toolCalls: "native" }]]));
  });

  it("shows a refused tool-call mode at its field", async () => {
    const replies = base();
    replies.EditProvider = new ApiError("invalid", 'tool-call mode "x": want auto, native or text');
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Edit local" }));
    const form = screen.getByRole("form", { name: "Edit local" });
    const select = within(form).getByLabelText("Tool calls");
    await user.selectOptions(select, "Parse from text");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(described(select)).toContain("want auto, native or text"));
    expect(select.getAttribute("aria-invalid")).toBe("true");
  });

  // Issue 28, item 1: the context window and output limit of a profile.
  it("sets the context window and output limit: a number checked in the form, the kernel's refusal at its field", async () => {
    const replies = base();
    replies.EditProvider = new ApiError("invalid", "a context window of 100 tokens is too small for any conversation: give at least 256 (or 0 to leave it unset)");
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Edit local" }));
    const form = screen.getByRole("form", { name: "Edit local" });
    const win = within(form).getByLabelText("Context window (tokens)");
    await user.type(win, "lots");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    expect(described(win)).toContain("a whole number of tokens");
    expect(t.callsOf("EditProvider")).toBe(0);
    await user.clear(win);
    await user.type(win, "100");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(described(win)).toContain("too small for any conversation"));
    expect(win.getAttribute("aria-invalid")).toBe("true");

    replies.EditProvider = provider({ contextWindow: 32768, maxOutput: 4096 });
    replies.Providers = [provider({ contextWindow: 32768, maxOutput: 4096 })];
    await user.clear(win);
    await user.type(win, "32,768");
    await user.type(within(form).getByLabelText("Output limit (tokens)"), "4096");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(argsOf(t, "EditProvider")[1]).toEqual(["local", { contextWindow: 32768, maxOutput: 4096 }]));
    const list = await screen.findByRole("list", { name: "Provider profiles" });
    await waitFor(() => expect(list.textContent).toContain("32,768 tokens, when the server does not say"));
  });

  // Issue 25, item 7: a profile's prices, for the meter's cost.
  it("sets the prices: a number checked in the form, the kernel's refusal at its field, shown in the list", async () => {
    const replies = base();
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Edit local" }));
    const form = screen.getByRole("form", { name: "Edit local" });
    const inField = within(form).getByLabelText("Input price (US$ per million tokens)");
    const outField = within(form).getByLabelText("Output price (US$ per million tokens)");
    await user.type(inField, "three");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    expect(described(inField)).toContain("a number such as 3 or 0.15");
    expect(inField.getAttribute("aria-invalid")).toBe("true");
    await user.clear(inField);
    await user.type(inField, "3");
    await user.type(outField, "-1");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    expect(described(outField)).toContain("a number such as 15 or 0.6");
    expect(t.callsOf("EditProvider")).toBe(0);

    // The kernel refuses one price without the other: said at the missing one.
    replies.EditProvider = new ApiError("invalid", "give an output price as well as the input one ($3 per million tokens), or 0 for both to leave them unset");
    await user.clear(outField);
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(described(outField)).toContain("give an output price as well as the input one"));
    expect(outField.getAttribute("aria-invalid")).toBe("true");
    expect(inField.getAttribute("aria-invalid")).not.toBe("true");
    replies.EditProvider = new ApiError("invalid", "an input price of 3000: give US dollars per million tokens, from 0 (not set) to 1000, such as 3 or 0.15");
    await user.type(outField, "15");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(described(inField)).toContain("an input price of 3000"));

    replies.EditProvider = provider({ inputPrice: 3, outputPrice: 15 });
    replies.Providers = [provider({ inputPrice: 3, outputPrice: 15 })];
    await user.clear(inField);
    await user.type(inField, "$3");
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(argsOf(t, "EditProvider").at(-1)).toEqual(["local", { inputPrice: 3, outputPrice: 15 }]));
    const list = await screen.findByRole("list", { name: "Provider profiles" });
    await waitFor(() => expect(list.textContent).toContain("$3 per million input tokens, $15 per million output tokens"));

    // Emptied, both are unset (0); an edit form starts with the prices.
    replies.EditProvider = provider();
    replies.Providers = [provider()];
    await user.click(await screen.findByRole("button", { name: "Edit local" }));
    const again = screen.getByRole("form", { name: "Edit local" });
    const inAgain = within(again).getByLabelText("Input price (US$ per million tokens)") as HTMLInputElement;
    expect(inAgain.value).toBe("3");
    await user.clear(inAgain);
    await user.clear(within(again).getByLabelText("Output price (US$ per million tokens)"));
    await user.click(within(again).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(argsOf(t, "EditProvider").at(-1)).toEqual(["local", { inputPrice: 0, outputPrice: 0 }]));
    await waitFor(() => expect(list.textContent).not.toContain("per million"));
  });

  it("shows why the model list is not there, and removes the stored key on request", async () => {
    const replies = base();
    replies.ProviderModels = new ApiError(
      "unavailable",
      "models of provider local: no answer from http://127.0.0.1:8080/v1: connection refused or unreachable; is the server running, and is the base URL right?",
    );
    replies.EditProvider = provider({ keyStore: "" });
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Edit local" }));
    const form = screen.getByRole("form", { name: "Edit local" });
    await user.click(within(form).getByRole("button", { name: "List the server's models" }));
    expect((await within(form).findByRole("alert")).textContent).toContain("is the server running");
    await user.click(within(form).getByRole("checkbox", { name: "Remove the stored key" }));
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(argsOf(t, "EditProvider")).toEqual([["local", { apiKey: "" }]]));
  });

  it("tests the connection and shows each step's result", async () => {
    const replies = base();
    replies.TestProvider = check({
      stream: {
        status: "unauthorized",
        httpStatus: 401,
        message: "model: 401 invalid api key; set a new key with foya providers edit NAME --api-key-stdin",
        millis: 12,
      },
    });
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Test connection to local" }));
    const res = await screen.findByRole("region", { name: "Connection test of local" });
    const steps = within(res).getAllByRole("listitem");
    expect(steps[0]!.textContent).toBe(
      "Model list (GET /models): OK (HTTP 200) in 4 ms: reachable; 3 models listed, qwen-coder among them",
    );
    expect(steps[1]!.textContent).toContain("One streamed reply: Key refused (HTTP 401) in 12 ms: model: 401");
    expect(steps[1]!.textContent).toContain("set a new key");
    expect(res.textContent).toContain("local does not work yet");
  });

  it("shows a test that could not be made", async () => {
    const replies = base();
    replies.TestProvider = new ApiError("unavailable", "the keyring is locked: unlock it (your desktop's keyring or passwords app) and try again");
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Test connection to local" }));
    expect((await screen.findByRole("alert")).textContent).toContain("The test could not be made: the keyring is locked");
  });

  it("removes after confirmation (cancel keeps it) and sets the default", async () => {
    const replies = base();
    replies.Providers = [provider(), provider({ name: "work", default: false })];
    replies.RemoveProvider = null;
    replies.SetDefaultProvider = null;
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Remove local" }));
    let ask = await screen.findByRole("alertdialog", { name: "Remove provider local?" });
    expect(ask.textContent).toContain("from the system keyring");
    await user.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(t.callsOf("RemoveProvider")).toBe(0);

    await user.click(screen.getByRole("button", { name: "Remove local" }));
    ask = await screen.findByRole("alertdialog", { name: "Remove provider local?" });
    replies.Providers = [provider({ name: "work", default: false })];
    await user.click(within(ask).getByRole("button", { name: "Remove local" }));
    await waitFor(() => expect(argsOf(t, "RemoveProvider")).toEqual([["local"]]));
    expect((await screen.findByRole("status")).textContent).toBe("Provider local removed, with its key.");

    replies.Providers = [provider({ name: "work", default: true })];
    await user.click(await screen.findByRole("button", { name: "Make work the default" }));
    await waitFor(() => expect(argsOf(t, "SetDefaultProvider")).toEqual([["work"]]));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Make work the default" })).toBeNull());
  });

  it("shows a failed removal in words", async () => {
    const replies = base();
    replies.RemoveProvider = new ApiError("not_found", 'no such provider "local": see foya providers list');
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Providers");
    await user.click(await screen.findByRole("button", { name: "Remove local" }));
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Remove local" }));
    expect((await screen.findByRole("alert")).textContent).toBe('local was not removed: no such provider "local": see foya providers list');
  });
});

describe("SettingsView: models and limits", () => {
  // Settings save at once, as the dialog says: on Enter or when the field
  // loses focus; a refusal is said at the field and the text stays.
  it("shows the step limit's validation error at its field, the text kept", async () => {
    const replies = base();
    replies.SetSetting = new ApiError("invalid", "run.max_steps: 0: a turn needs at least 1 model step; give 1 to 100000");
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Models and limits");
    const field = await screen.findByRole("textbox", { name: "Step limit" });
    expect((field as HTMLInputElement).value).toBe("500");
    expect(screen.queryByRole("button", { name: /^Save/ })).toBeNull();
    await user.clear(field);
    await user.type(field, "0{Enter}");
    await waitFor(() => expect(field.getAttribute("aria-invalid")).toBe("true"));
    expect(described(field)).toContain("Step limit was not changed: run.max_steps: 0: a turn needs at least 1 model step; give 1 to 100000");
    expect((field as HTMLInputElement).value).toBe("0");
    expect(argsOf(t, "SetSetting")).toEqual([["run.max_steps", "0"]]);
  });

  it("shows a field for every setting the backend declares, a new one included, with its doc and default", async () => {
    const replies = base();
    const added = { key: "example.newKey", label: "New thing", kind: "names", default: "", doc: "A setting this view has never heard of." };
    replies.SettingList = settingList(values, [...declared, added]);
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Models and limits");
    const form = await screen.findByRole("form", { name: "New thing" });
    expect(form.textContent).toContain("A setting this view has never heard of. example.newKey, default none. Now: not set.");
    for (const own of ["Default approval mode", "Default provider", "Image input"]) expect(screen.queryByRole("form", { name: own })).toBeNull();
    await user.type(within(form).getByRole("textbox", { name: "New thing" }), "AWS_*");
    await user.tab();
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["example.newKey", "AWS_*"]]));
    expect((await within(form).findByRole("status")).textContent).toBe("Saved");
  });

  it("switches a true-or-false setting at once, and says at the switch when the kernel refuses", async () => {
    const replies = base();
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Models and limits");
    const section = await screen.findByRole("region", { name: "Sessions" });
    const box = within(section).getByRole("checkbox", { name: "Titles from the model" });
    expect((box as HTMLInputElement).checked).toBe(true); // not set: the default
    expect(described(box)).toContain("Whether the model titles a session after its first run. sessions.autoTitle, default true.");
    await user.click(box);
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["sessions.autoTitle", "false"]]));
    expect((await within(section).findByRole("status")).textContent).toBe("Saved");
    expect(screen.queryByRole("textbox", { name: "Titles from the model" })).toBeNull();

    replies.SetSetting = new ApiError("internal", "the database is read-only");
    await user.click(box);
    expect((await within(section).findByRole("alert")).textContent).toBe("Titles from the model was not changed: the database is read-only");
    expect(box.getAttribute("aria-invalid")).toBe("true");
  });

  it("shows sizes in MB and saves what is typed in units as bytes, on Enter", async () => {
    const replies = base();
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Models and limits");
    const form = await screen.findByRole("form", { name: "Largest write" });
    expect(form.textContent).toContain("Now: 64 MB (67,108,864 bytes).");
    const field = within(form).getByRole("textbox", { name: "Largest write" });
    expect((field as HTMLInputElement).value).toBe("64 MB");
    await user.clear(field);
    await user.type(field, "8 MB");
    replies.SettingList = settingList({ ...values, "files.maxWriteBytes": "8388608" });
    await user.keyboard("{Enter}");
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["files.maxWriteBytes", "8388608"]]));
    await waitFor(() => expect(form.textContent).toContain("Now: 8 MB (8,388,608 bytes)."));
    expect(within(form).getByRole("status").textContent).toBe("Saved");
    expect(field.hasAttribute("aria-invalid")).toBe(false);
  });

  it("says at the field when a size cannot be read, and sends nothing", async () => {
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, base());
    const user = await openTab("Models and limits");
    const field = await screen.findByRole("textbox", { name: "Largest write" });
    await user.clear(field);
    await user.type(field, "lots");
    await user.tab();
    await waitFor(() => expect(field.getAttribute("aria-invalid")).toBe("true"));
    expect(described(field)).toContain("“lots” is not a size: write a number with KB, MB or GB, such as 64 MB.");
    expect((field as HTMLInputElement).value).toBe("lots");
    expect(argsOf(t, "SetSetting")).toEqual([]);
  });

  it("shows the idle timeout in seconds and saves seconds typed as a duration", async () => {
    const replies = base();
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Models and limits");
    const form = await screen.findByRole("form", { name: "Model idle timeout" });
    expect(form.textContent).toContain("default 120 s. Now: 300 s.");
    const field = within(form).getByRole("textbox", { name: "Model idle timeout" });
    expect((field as HTMLInputElement).value).toBe("300 s");
    await user.clear(field);
    await user.type(field, "90{Enter}");
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["provider.idleTimeout", "90s"]]));
  });

  // The workspace index's limits sit beside its disk use.
  it("shows the workspace index's limits and its disk use", async () => {
    const replies = base();
    replies.SettingList = settingList({ ...values, "workspace.maxFileBytes": "8388608", "workspace.maxTotalBytes": "2147483648" });
    replies.WorkspaceUsage = { dir: "/data/workspace", blobs: 12, blobBytes: 3 << 20, indexes: 2, indexBytes: 1 << 20 };
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    await openTab("Models and limits");
    const form = await screen.findByRole("form", { name: "Largest file kept" });
    expect(form.textContent).toContain("Now: 8 MB");
    expect((await screen.findByRole("form", { name: "Most kept per session" })).textContent).toContain("Now: 2 GB");
    const disk = await screen.findByLabelText("Workspace index disk use");
    expect(disk.textContent).toContain("4 MB in 12 kept contents and 2 session indexes");
  });

  // The bound on the kept copies is a setting, and the disk use shows the
  // kept bytes against it, asked again once it changes.
  it("shows the kept contents against workspace.maxKeptBytes and sets the bound", async () => {
    const replies = base();
    const kept = { ...values, "workspace.maxTotalBytes": "2147483648", "workspace.maxKeptBytes": "4294967296" };
    replies.SettingList = settingList(kept);
    replies.WorkspaceUsage = { dir: "/data/workspace", blobs: 12, blobBytes: 3 << 20, indexes: 2, indexBytes: 1 << 20, maxKeptBytes: 4294967296 };
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Models and limits");
    const form = await screen.findByRole("form", { name: "Most kept on disk" });
    expect(form.textContent).toContain("Now: 4 GB");
    const disk = await screen.findByLabelText("Workspace index disk use");
    expect(disk.textContent).toContain("Kept contents: 3 MB of the 4 GB allowed.");
    await user.clear(within(form).getByRole("textbox", { name: "Most kept on disk" }));
    await user.type(within(form).getByRole("textbox", { name: "Most kept on disk" }), "1GiB");
    replies.SettingList = settingList({ ...kept, "workspace.maxKeptBytes": "1073741824" });
    replies.WorkspaceUsage = { ...(replies.WorkspaceUsage as object), maxKeptBytes: 1073741824 };
    await user.tab();
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["workspace.maxKeptBytes", "1073741824"]]));
    await waitFor(() => expect(screen.getByLabelText("Workspace index disk use").textContent).toContain("of the 1 GB allowed."));
  });

  it("switches image input per model: the session's, the profiles' and those set before", async () => {
    const replies = base();
    replies.Session = session({ id: "s1", model: "gpt-4o" });
    replies.SettingList = settingList({ "run.max_steps": "500", "model.images.tiny": "false" });
    const { t } = mount(<SettingsView sessionId="s1" onClose={() => {}} />, replies);
    const user = await openTab("Models and limits");
    const list = await screen.findByRole("list", { name: "Image input per model" });
    expect(within(list).getAllByRole("listitem").map((li) => li.querySelector("code")!.textContent)).toEqual(["gpt-4o", "qwen-coder", "tiny"]);
    const sw = within(list).getByRole("switch", { name: "Images for qwen-coder" });
    await waitFor(() => expect(sw.hasAttribute("disabled")).toBe(false));
    expect(sw.getAttribute("aria-checked")).toBe("false");
    expect(document.getElementById(sw.getAttribute("aria-describedby")!)!.textContent).toBe("guessed from the model's name");
    expect(document.getElementById(within(list).getByRole("switch", { name: "Images for tiny" }).getAttribute("aria-describedby")!)!.textContent).toBe(
      "set by you",
    );
    await user.click(sw);
    await waitFor(() => expect(argsOf(t, "SetSetting")).toEqual([["model.images.qwen-coder", "true"]]));
    await waitFor(() => expect(sw.getAttribute("aria-checked")).toBe("true"));

    await user.type(screen.getByRole("textbox", { name: "Another model" }), "llava-13b");
    await user.click(within(screen.getByRole("form", { name: "Another model" })).getByRole("button", { name: "Add" }));
    expect(within(list).getByRole("switch", { name: "Images for llava-13b" })).toBeTruthy();
  });
});

describe("SettingsView: theme", () => {
  it("applies light, dark and system", async () => {
    mount(<SettingsView sessionId="s1" onClose={() => {}} />, base());
    const user = await openTab("Theme");
    const group = screen.getByRole("radiogroup", { name: "Theme" });
    await user.click(within(group).getByRole("radio", { name: "Dark" }));
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(within(group).getByRole("radio", { name: "Dark" }).getAttribute("aria-checked")).toBe("true");
    await user.click(within(group).getByRole("radio", { name: "Light" }));
    expect(document.documentElement.dataset.theme).toBe("light");
    await user.click(within(group).getByRole("radio", { name: "System" }));
    expect(document.documentElement.dataset.theme).toBe("light"); // the system's (happy-dom prefers light)
    expect(localStorage.getItem("foya.theme")).toBe("system");
  });
});
