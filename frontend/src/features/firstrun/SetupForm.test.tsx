import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { TransportProvider, type Session } from "../../backend";
import { FakeTransport } from "../../backend/fake";
import type { ModelServer, ServerCheck, ServerProbe } from "../../backend/gen/profiles";
import { FirstRunView } from "./FirstRunView";
import { chosenForm, described } from "./testkit";
import { urlProblem } from "./presets";

afterEach(cleanup);

// spec: W4

const server = (s: Partial<ModelServer> & { id: string; name: string }): ModelServer => ({
  baseUrl: `http://127.0.0.1:1/v1`,
  local: true,
  fromEnv: false,
  keyPresent: false,
  status: "ok",
  message: "",
  models: [],
  millis: 0,
  ...s,
});

const ok = (baseUrl: string, models: string[]): ServerCheck => ({
  baseUrl,
  status: "ok",
  message: `Reachable: the server lists ${models.length} models.`,
  detail: `GET ${baseUrl}/models: 200 OK`,
  models,
  millis: 3,
});

/** CheckTransport answers CheckServer with what answer makes of the probe. */
class CheckTransport extends FakeTransport {
  constructor(
    replies: Record<string, unknown>,
    readonly answer: (p: ServerProbe) => ServerCheck,
  ) {
    super(replies);
  }
  override call<T>(method: string, args: unknown[]): Promise<T> {
    if (method !== "CheckServer") return super.call<T>(method, args);
    this.calls.push({ method, args });
    return Promise.resolve(this.answer(args[0] as ServerProbe) as T);
  }
  probes(): ServerProbe[] {
    return this.calls.filter((c) => c.method === "CheckServer").map((c) => c.args[0] as ServerProbe);
  }
}

function renderView(t: FakeTransport) {
  const got = { created: [] as Session[] };
  render(
    <TransportProvider transport={t}>
      <FirstRunView onSkip={() => {}} onSessionCreated={(s) => got.created.push(s)} />
    </TransportProvider>,
  );
  return got;
}

/** nothingFound is a machine where no candidate answers. */
const nothingFound = { ModelServers: [], DefaultMode: "manual" };

describe("the first run's provider form", () => {
  it("connects to any OpenAI-compatible server: test, pick a model from the searched list, save, and go on to the session's folder", async () => {
    const url = "http://127.0.0.1:9999/v1";
    const t = new CheckTransport(
      {
        ...nothingFound,
        AddProvider: { name: "custom", baseUrl: url, model: "coder-large", keyStore: "" },
        Providers: [{ name: "other-one", baseUrl: "http://x/v1", model: "m", default: true }, { name: "custom", baseUrl: url, model: "coder-large" }],
      },
      (p) => ok(p.baseUrl, ["chat-small", "coder-large", "coder-small"]),
    );
    renderView(t);
    const form = await screen.findByRole("form", { name: "Save a provider profile" });
    const user = userEvent.setup();
    await user.click(within(form).getByRole("radio", { name: "Other (OpenAI-compatible)" }));
    const base = within(form).getByRole("textbox", { name: "Base URL" });
    expect(base).toHaveProperty("value", "");
    await user.type(base, url + "/");
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    expect((await within(form).findByRole("status")).textContent).toContain("Reachable: the server lists 3 models.");
    expect(t.probes()).toEqual([{ baseUrl: url + "/" }]); // no key typed, none sent
    // The technical detail is there, folded.
    expect(within(form).getByText("Technical detail").closest("details")?.open).toBe(false);

    await user.type(within(form).getByRole("searchbox", { name: "Search models" }), "coder");
    const list = within(form).getByRole("listbox", { name: "Model" });
    expect(within(list).getAllByRole("option").map((o) => o.textContent)).toEqual(["Choose a model…", "coder-large", "coder-small"]);
    expect(described(list)).toContain("2 of 3 models shown.");
    await user.selectOptions(list, "coder-large");
    await user.click(within(form).getByRole("button", { name: "Save and start a session" }));
    await screen.findByText("Saved as provider profile “custom”");
    expect(t.calls.filter((c) => c.method === "AddProvider").map((c) => c.args[0])).toEqual([{ name: "custom", baseUrl: url, model: "coder-large" }]);
    // The new-session dialog opens at once, on the profile just saved (not the default one).
    const dialog = await screen.findByRole("dialog", { name: "New session" });
    await waitFor(() => expect(within(dialog).getByRole("combobox", { name: "Provider profile" })).toHaveProperty("value", "custom"));
  });

  it("says what a test found at the field it concerns, with the detail folded below", async () => {
    const results: Record<string, ServerCheck> = {
      "http://127.0.0.1:1/v1": {
        baseUrl: "http://127.0.0.1:1/v1",
        status: "down",
        field: "baseUrl",
        message: "Nothing answers at 127.0.0.1:1: the connection was refused. Start the server, or check the port in the base URL.",
        detail: 'Get "http://127.0.0.1:1/v1/models": dial tcp 127.0.0.1:1: connect: connection refused',
        models: [],
        millis: 1,
      },
      "http://127.0.0.1:2/v1": {
        baseUrl: "http://127.0.0.1:2/v1",
        status: "not-models",
        field: "baseUrl",
        message: "Something answers there, but not with a model list: this does not look like an OpenAI-compatible server; check the base URL (it usually ends in /v1).",
        detail: 'GET http://127.0.0.1:2/v1/models: 200 OK, Content-Type "text/html", body: <html>It works!</html>',
        models: [],
        millis: 1,
      },
      "https://api.openai.com/v1": {
        baseUrl: "https://api.openai.com/v1",
        status: "unauthorized",
        field: "apiKey",
        message: "The server refused this API key: check that it is whole and still valid, or make a new one.",
        detail: "GET https://api.openai.com/v1/models: 401 Unauthorized: Incorrect API key provided",
        httpStatus: 401,
        models: [],
        millis: 1,
      },
    };
    const t = new CheckTransport(nothingFound, (p) => results[p.baseUrl]!);
    renderView(t);
    const form = await screen.findByRole("form", { name: "Save a provider profile" });
    const user = userEvent.setup();
    await user.click(within(form).getByRole("radio", { name: "Other (OpenAI-compatible)" }));
    const base = within(form).getByRole("textbox", { name: "Base URL" });
    const test = within(form).getByRole("button", { name: "Test connection" });

    // Not a URL: said before anything is asked.
    await user.type(base, "localhost:8080");
    await user.click(test);
    expect(base.getAttribute("aria-invalid")).toBe("true");
    expect(described(base)).toContain("This is not a web address: give one that starts with http:// or https://");
    expect(t.probes()).toEqual([]);

    // A dead server.
    await user.clear(base);
    expect(base.getAttribute("aria-invalid")).toBeNull(); // an edit takes the old sentence away
    await user.type(base, "http://127.0.0.1:1/v1");
    await user.click(test);
    expect((await within(form).findByRole("alert")).textContent).toBe("Not reachable. See the base URL above.");
    expect(described(base)).toContain("the connection was refused. Start the server");
    const detail = within(form).getByText("Technical detail").closest("details")!;
    expect(detail.open).toBe(false);
    expect(detail.textContent).toContain("connect: connection refused");
    expect(base.getAttribute("aria-invalid")).toBe("true");

    // Something that is not a model server.
    await user.clear(base);
    await user.type(base, "http://127.0.0.1:2/v1");
    await user.click(test);
    expect((await within(form).findByRole("alert")).textContent).toBe("Not a model server. See the base URL above.");
    expect(described(base)).toContain("not with a model list");

    // A refused key: said at the key, not at the URL.
    await user.click(within(form).getByRole("radio", { name: "OpenAI" }));
    expect(within(form).getByRole("textbox", { name: "Base URL" })).toHaveProperty("value", "https://api.openai.com/v1");
    const key = within(form).getByLabelText("API key");
    await user.type(key, "sk-wrong");
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    expect((await within(form).findByRole("alert")).textContent).toBe("Key refused. See the API key above.");
    expect(key.getAttribute("aria-invalid")).toBe("true");
    expect(described(key)).toContain("The server refused this API key");
    expect(within(form).getByRole("textbox", { name: "Base URL" }).getAttribute("aria-invalid")).toBeNull();
    expect(key).toHaveProperty("type", "password");
  });

  it("keeps what was typed and picked for each server to that server", async () => {
    const found = server({ id: "ollama", name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", models: ["llama3.2", "qwen3-coder"] });
    const t = new CheckTransport(
      {
        ModelServers: [found],
        ProbeModelServer: found,
        AddProvider: { name: "ollama", baseUrl: found.baseUrl, model: "qwen3-coder" },
      },
      (p) => ok(p.baseUrl, ["gpt-a", "gpt-b"]),
    );
    renderView(t);
    const form = await chosenForm("Ollama (found, 2 models)");
    const user = userEvent.setup();
    await user.selectOptions(within(form).getByRole("listbox", { name: "Model" }), "qwen3-coder");

    // A second server: its own models, its own key; nothing of the first.
    await user.click(within(form).getByRole("radio", { name: "OpenAI" }));
    expect(within(form).queryByRole("listbox", { name: "Model" })).toBeNull();
    expect(within(form).getByRole("textbox", { name: "Model" })).toHaveProperty("value", "");
    await user.type(within(form).getByLabelText("API key"), "sk-for-openai");
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    const list = await within(form).findByRole("listbox", { name: "Model" });
    expect(list).toHaveProperty("value", "");
    await user.selectOptions(list, "gpt-b");
    expect(within(form).getByLabelText("Profile name")).toHaveProperty("value", "openai");

    // A key typed for one provider is never offered to another.
    await user.click(within(form).getByRole("radio", { name: "Groq" }));
    expect(within(form).getByLabelText("API key")).toHaveProperty("value", "");
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    expect(t.probes().at(-1)).toEqual({ baseUrl: "https://api.groq.com/openai/v1" });

    // Back to the first: its model, not the one picked since.
    await user.click(within(form).getByRole("radio", { name: "Ollama (found, 2 models)" }));
    expect(within(form).getByRole("listbox", { name: "Model" })).toHaveProperty("value", "qwen3-coder");
    await user.click(within(form).getByRole("button", { name: "Save and start a session" }));
    await screen.findByText("Saved as provider profile “ollama”");
    expect(t.calls.filter((c) => c.method === "AddProvider").map((c) => c.args[0])).toEqual([
      { name: "ollama", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3-coder" },
    ]);
  });

  it("drops a test's answer about an address edited since", async () => {
    let release: (c: ServerCheck) => void = () => {};
    const t = new (class extends FakeTransport {
      override call<T>(method: string, args: unknown[]): Promise<T> {
        if (method !== "CheckServer") return super.call<T>(method, args);
        this.calls.push({ method, args });
        return new Promise<T>((resolve) => (release = (c) => resolve(c as T)));
      }
    })(nothingFound);
    renderView(t);
    const form = await screen.findByRole("form", { name: "Save a provider profile" });
    const user = userEvent.setup();
    await user.click(within(form).getByRole("radio", { name: "Other (OpenAI-compatible)" }));
    const base = within(form).getByRole("textbox", { name: "Base URL" });
    await user.type(base, "http://127.0.0.1:1/v1");
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    await within(form).findByRole("button", { name: "Testing…" });
    await user.type(base, "0");
    await act(async () =>
      release({ baseUrl: "http://127.0.0.1:1/v1", status: "down", field: "baseUrl", message: "Nothing answers at 127.0.0.1:1.", models: [], millis: 1 }),
    );
    expect(base.getAttribute("aria-invalid")).toBeNull();
    expect(within(form).queryByRole("alert")).toBeNull();
  });

  it("asks a hosted provider for its key at the key field before saving", async () => {
    const t = new CheckTransport(nothingFound, (p) => ok(p.baseUrl, []));
    renderView(t);
    const form = await screen.findByRole("form", { name: "Save a provider profile" });
    const user = userEvent.setup();
    await user.click(within(form).getByRole("radio", { name: "Mistral" }));
    expect(within(form).getByRole("textbox", { name: "Base URL" })).toHaveProperty("value", "https://api.mistral.ai/v1");
    await user.type(within(form).getByRole("textbox", { name: "Model" }), "mistral large");
    await user.click(within(form).getByRole("button", { name: "Save and start a session" }));
    const key = within(form).getByLabelText("API key");
    expect(key.getAttribute("aria-invalid")).toBe("true");
    expect(described(key)).toContain("Mistral needs an API key: paste yours here");
    expect(document.activeElement).toBe(key);
    expect(described(within(form).getByRole("textbox", { name: "Model" }))).toContain("A model name has no spaces.");
    expect(t.callsOf("AddProvider")).toBe(0);
  });
});

describe("urlProblem", () => {
  it.each([
    ["", "Give the server's base URL"],
    ["api.openai.com/v1", "This is not a web address"],
    ["localhost:8080/v1", "such as http://localhost:8080/v1."],
    ["ftp://host/v1", "not ftp://"],
    ["http://user:pw@host/v1", "Leave the user name and password out"],
    ["http://host/v1?x=1", "Leave the ?query"],
    ["http://127.0.0.1:8080/v1", ""],
    [" https://api.groq.com/openai/v1 ", ""],
  ])("urlProblem(%j)", (url, want) => {
    const got = urlProblem(url);
    if (want === "") expect(got).toBe("");
    else expect(got).toContain(want);
  });
});
