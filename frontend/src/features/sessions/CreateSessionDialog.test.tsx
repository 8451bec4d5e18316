import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, TransportProvider, type Session } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import { CreateSessionDialog, validate } from "./CreateSessionDialog";

afterEach(cleanup);

const profiles = [
  { name: "work", baseUrl: "https://llm.example/v1", model: "big-model" },
  { name: "local", baseUrl: "http://127.0.0.1:8080/v1", model: "small-model", default: true },
];

function renderDialog(transport: FakeTransport) {
  const created: Session[] = [];
  let closed = 0;
  render(
    <TransportProvider transport={transport}>
      <CreateSessionDialog open onClose={() => closed++} onCreated={(s) => created.push(s)} />
    </TransportProvider>,
  );
  return { created, closed: () => closed };
}

const createCalls = (t: FakeTransport) => t.calls.filter((c) => c.method === "CreateSession").map((c) => c.args[0]);

describe("validate", () => {
  it.each([
    [{ folder: "", title: "", model: "" }, "folder", "Choose the folder"],
    [{ folder: "  ", title: "", model: "" }, "folder", "Choose the folder"],
    [{ folder: "project", title: "", model: "" }, "folder", "is not a full path"],
    [{ folder: "./x", title: "", model: "" }, "folder", "is not a full path"],
    [{ folder: "/p", title: "x".repeat(201), model: "" }, "title", "at most 200"],
    [{ folder: "/p", title: "", model: "two words" }, "model", "no spaces"],
  ] as const)("%j: %s says %j", (form, field, want) => {
    expect(validate(form)[field]).toContain(want);
  });

  it.each(["/home/ada/p", "~", "~/p", "C:\\work", "D:/x", "\\\\server\\share"])("takes %j", (folder) => {
    expect(validate({ folder, title: "", model: "" })).toEqual({ folder: "", title: "", model: "", branch: "" });
  });
});

describe("CreateSessionDialog", () => {
  it("refuses to create without a folder, or with a relative one, and says why", async () => {
    const t = new FakeTransport({ Providers: profiles, DefaultMode: "manual", CompletePath: [] });
    renderDialog(t);
    const user = userEvent.setup();
    const create = await screen.findByRole("button", { name: "Create session" });
    await user.click(create);
    expect(screen.getByText("Choose the folder the session works in.")).toBeTruthy();
    const folder = screen.getByRole("combobox", { name: "Folder" });
    expect(folder.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(folder);
    await user.type(folder, "project");
    await user.click(create);
    expect(screen.getByText(/“project” is not a full path/)).toBeTruthy();
    expect(createCalls(t)).toEqual([]);
  });

  it("creates with the default profile's model and the default mode, trimming what was typed", async () => {
    const made = session({ id: "new" });
    const t = new FakeTransport({ Providers: profiles, DefaultMode: "auto", CompletePath: [], CreateSession: made });
    const got = renderDialog(t);
    const user = userEvent.setup();
    const provider = (await screen.findByRole("combobox", { name: "Provider profile" })) as HTMLSelectElement;
    expect(provider.value).toBe("local");
    expect((screen.getByRole("textbox", { name: "Model" }) as HTMLInputElement).value).toBe("small-model");
    expect((screen.getByRole("radio", { name: /^Auto \(default\)/ }) as HTMLInputElement).checked).toBe(true);

    await user.type(screen.getByRole("combobox", { name: "Folder" }), " /home/ada/project ");
    await user.type(screen.getByRole("textbox", { name: "Title (optional)" }), " Tidy up ");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    await waitFor(() => expect(got.created).toEqual([made]));
    expect(createCalls(t)).toEqual([
      { workdir: "/home/ada/project", approvalMode: "auto", provider: "local", model: "small-model", title: "Tidy up" },
    ]);
  });

  it("takes another profile (its model follows), a typed model and Manual", async () => {
    const t = new FakeTransport({ Providers: profiles, DefaultMode: "full_access", CompletePath: [], CreateSession: session() });
    renderDialog(t);
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByRole("combobox", { name: "Provider profile" }), "work");
    const model = screen.getByRole("textbox", { name: "Model" });
    expect((model as HTMLInputElement).value).toBe("big-model");
    await user.clear(model);
    await user.type(model, "bigger-model");
    await user.click(screen.getByRole("radio", { name: /^Manual/ }));
    await user.type(screen.getByRole("combobox", { name: "Folder" }), "~/code");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    await waitFor(() => expect(createCalls(t)).toEqual([{ workdir: "~/code", approvalMode: "manual", provider: "work", model: "bigger-model" }]));
  });

  it("without profiles, says the environment's model server is used and sends no provider", async () => {
    const t = new FakeTransport({ Providers: [], DefaultMode: "manual", CompletePath: [], CreateSession: session() });
    renderDialog(t);
    const user = userEvent.setup();
    expect(await screen.findByText(/The environment’s model server/)).toBeTruthy();
    expect(screen.queryByRole("combobox", { name: "Provider profile" })).toBeNull();
    await user.type(screen.getByRole("combobox", { name: "Folder" }), "/p");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    await waitFor(() => expect(createCalls(t)).toEqual([{ workdir: "/p", approvalMode: "manual" }]));
  });

  it("chooses Manual, and says so, when the default mode cannot be read", async () => {
    const t = new FakeTransport({ Providers: [], DefaultMode: new ApiError("internal", "database is locked"), CompletePath: [] });
    renderDialog(t);
    expect(await screen.findByText(/the default mode could not be read \(database is locked\), so Manual is chosen/)).toBeTruthy();
    expect((screen.getByRole("radio", { name: /^Manual/ }) as HTMLInputElement).checked).toBe(true);
  });

  it("offers the kernel's completions of the typed folder", async () => {
    const t = new FakeTransport({ Providers: [], DefaultMode: "manual", CompletePath: ["/home/ada", "/home/bob"] });
    renderDialog(t);
    const user = userEvent.setup();
    const folder = await screen.findByRole("combobox", { name: "Folder" });
    await user.type(folder, "/home/");
    await waitFor(() => expect(t.calls.some((c) => c.method === "CompletePath" && c.args[0] === "/home/")).toBe(true));
    const list = document.getElementById(folder.getAttribute("list") ?? "")!;
    await waitFor(() => expect([...list.querySelectorAll("option")].map((o) => o.value)).toEqual(["/home/ada", "/home/bob"]));
  });

  it("on the desktop, fills the folder from the system's folder dialog", async () => {
    const t = new FakeTransport({ Providers: [], DefaultMode: "manual", CompletePath: [] });
    t.pickFolder = () => Promise.resolve("/home/ada/picked");
    renderDialog(t);
    await userEvent.setup().click(await screen.findByRole("button", { name: "Choose…" }));
    await waitFor(() => expect((screen.getByRole("combobox", { name: "Folder" }) as HTMLInputElement).value).toBe("/home/ada/picked"));
  });

  it("shows the kernel's refusal (a folder that does not exist) and stays open", async () => {
    const t = new FakeTransport({
      Providers: [],
      DefaultMode: "manual",
      CompletePath: [],
      CreateSession: new ApiError("invalid", 'workdir "/nope": no such folder'),
    });
    const got = renderDialog(t);
    const user = userEvent.setup();
    await user.type(await screen.findByRole("combobox", { name: "Folder" }), "/nope");
    await user.click(screen.getByRole("button", { name: "Create session" }));
    const dialog = screen.getByRole("dialog", { name: "New session" });
    expect((await within(dialog).findByRole("alert")).textContent).toContain('workdir "/nope": no such folder. Check the folder exists');
    expect(got.created).toEqual([]);
    expect((screen.getByRole("button", { name: "Create session" }) as HTMLButtonElement).disabled).toBe(false);
  });
});
