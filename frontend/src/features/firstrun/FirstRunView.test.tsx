import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { VirtuosoMockContext } from "react-virtuoso";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "../../App";
import { ApiError, TransportProvider, type Session } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import type { ModelServer } from "../../backend/gen/profiles";
import { FirstRunView } from "./FirstRunView";
import { chosenForm, described } from "./testkit";

afterEach(cleanup);
beforeEach(() => history.replaceState(null, "", "/"));

const server = (s: Partial<ModelServer> & { id: string; name: string }): ModelServer => ({
  baseUrl: `http://127.0.0.1:1/v1`,
  local: true,
  fromEnv: false,
  keyPresent: false,
  status: "",
  message: "",
  models: [],
  millis: 0,
  ...s,
});

const candidates = [
  server({ id: "env", name: "OPENAI_API_KEY and OPENAI_BASE_URL", baseUrl: "https://api.openai.com/v1", local: false, fromEnv: true }),
  server({ id: "ollama", name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1" }),
  server({ id: "lmstudio", name: "LM Studio", baseUrl: "http://127.0.0.1:1234/v1" }),
];

/**
 * ProbeTransport answers ProbeModelServer per candidate ID, each when the
 * test releases it, so a test sees the screen while some are still probing.
 */
class ProbeTransport extends FakeTransport {
  readonly pending = new Map<string, (s: ModelServer) => void>();
  override call<T>(method: string, args: unknown[]): Promise<T> {
    if (method !== "ProbeModelServer") return super.call<T>(method, args);
    this.calls.push({ method, args });
    const id = args[0] as string;
    return new Promise<T>((resolve) => this.pending.set(id, (s) => resolve(s as T)));
  }
  answer(s: ModelServer) {
    const f = this.pending.get(s.id);
    if (f === undefined) throw new Error(`no probe of ${s.id} waits`);
    this.pending.delete(s.id);
    f(s);
  }
}

function renderView(t: FakeTransport) {
  const got = { skipped: 0, created: [] as Session[] };
  render(
    <TransportProvider transport={t}>
      <FirstRunView onSkip={() => got.skipped++} onSessionCreated={(s) => got.created.push(s)} />
    </TransportProvider>,
  );
  return got;
}

const servers = () => screen.getByRole("list", { name: "Model servers" });


describe("FirstRunView", () => {
  it("probes each candidate on its own, shows each answer as it comes, and saves the chosen server and model", async () => {
    const t = new ProbeTransport({
      ModelServers: candidates,
      AddProvider: { name: "ollama", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3-coder" },
    });
    renderView(t);
    await screen.findByRole("listitem", { name: "Ollama: looking…" });
    expect(t.calls.filter((c) => c.method === "ProbeModelServer").map((c) => c.args[0])).toEqual(["env", "ollama", "lmstudio"]);
    // The user can leave at once, while every probe is still out.
    expect(screen.getByRole("button", { name: "Continue without a model" })).toBeTruthy();

    t.answer({ ...candidates[1]!, status: "ok", models: ["llama3.2", "qwen3-coder"], message: "2 models offered" });
    await within(servers()).findByRole("listitem", { name: "Ollama: found, 2 models" });
    expect(within(servers()).getByRole("listitem", { name: "LM Studio: looking…" })).toBeTruthy();
    t.answer({ ...candidates[2]!, status: "down", message: "nothing answers there; start the server" });
    t.answer({ ...candidates[0]!, status: "no-key", message: "OPENAI_API_KEY is not set" });
    await within(servers()).findByRole("listitem", { name: "LM Studio: not running" });
    expect(within(servers()).getByRole("listitem", { name: "LM Studio: not running" }).textContent).toContain("nothing answers on this port");
    // A missing key is said once, not in the row's heading and again in its status.
    const env = await within(servers()).findByRole("listitem", { name: /^OPENAI_API_KEY/ });
    await within(env).findByText(/No key set/);
    expect(env.textContent!.split("is not set").length - 1).toBe(1);

    const form = screen.getByRole("form", { name: "Save a provider profile" });
    expect(within(form).getByRole("radio", { name: "Ollama (found, 2 models)" })).toHaveProperty("checked", true);
    expect(within(form).queryByLabelText(/API key/)).toBeNull(); // a local server that wants none
    const user = userEvent.setup();
    await user.selectOptions(within(form).getByRole("listbox", { name: "Model" }), "qwen3-coder");
    await user.click(within(form).getByRole("button", { name: "Save and start a session" }));
    await screen.findByText("Saved as provider profile “ollama”");
    expect(t.calls.filter((c) => c.method === "AddProvider").map((c) => c.args[0])).toEqual([
      { name: "ollama", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3-coder" },
    ]);
    // Saving leads straight on to the first session's folder.
    expect(await screen.findByRole("dialog", { name: "New session" })).toBeTruthy();
  });

  it("saves a second found server with its own model, not the first one's", async () => {
    const t = new ProbeTransport({
      ModelServers: candidates,
      AddProvider: { name: "lm-studio", baseUrl: "http://127.0.0.1:1234/v1", model: "mistral-small" },
    });
    renderView(t);
    await screen.findByRole("listitem", { name: "Ollama: looking…" });
    t.answer({ ...candidates[1]!, status: "ok", models: ["llama3.2", "qwen3-coder"], message: "2 models offered" });
    const form = await chosenForm("Ollama (found, 2 models)");
    const user = userEvent.setup();
    await user.selectOptions(within(form).getByRole("listbox", { name: "Model" }), "qwen3-coder");
    t.answer({ ...candidates[2]!, status: "ok", models: ["mistral-small", "phi-4"], message: "2 models offered" });
    t.answer({ ...candidates[0]!, status: "no-key", message: "OPENAI_API_KEY is not set" });
    await user.click(await within(form).findByRole("radio", { name: "LM Studio (found, 2 models)" }));
    expect(within(form).getByRole("listbox", { name: "Model" })).toHaveProperty("value", "mistral-small");
    expect(within(form).getByLabelText("Profile name")).toHaveProperty("value", "lm-studio");
    await user.click(within(form).getByRole("button", { name: "Save and start a session" }));
    await screen.findByText("Saved as provider profile “lm-studio”");
    expect(t.calls.filter((c) => c.method === "AddProvider").map((c) => c.args[0])).toEqual([
      { name: "lm-studio", baseUrl: "http://127.0.0.1:1234/v1", model: "mistral-small" },
    ]);
  });

  it("says when no server was found, and still lets the user continue", async () => {
    const t = new ProbeTransport({ ModelServers: candidates });
    const got = renderView(t);
    await screen.findByRole("listitem", { name: "Ollama: looking…" });
    expect(screen.queryByText("No model server found")).toBeNull(); // not before every probe answered
    t.answer({ ...candidates[0]!, status: "no-key", message: "OPENAI_API_KEY is not set" });
    t.answer({ ...candidates[1]!, status: "timeout", message: "no answer within 3s" });
    t.answer({ ...candidates[2]!, status: "failed", message: "not an OpenAI-compatible server" });
    await screen.findByText("No model server found");
    expect(screen.getByText(/Connect to a provider below/)).toBeTruthy();
    expect(within(servers()).getByRole("listitem", { name: "Ollama: no answer in time" })).toBeTruthy();
    expect(within(servers()).getByRole("listitem", { name: "LM Studio: not a model server" })).toBeTruthy();
    // Not a dead end: the providers are offered, none chosen for the user.
    const form = screen.getByRole("form", { name: "Save a provider profile" });
    expect(within(form).queryByRole("group", { name: "Found on this machine" })).toBeNull();
    const offered = within(within(form).getByRole("group", { name: "Providers" })).getAllByRole("radio");
    expect(offered.map((r) => r.closest("label")?.textContent)).toEqual([
      "OpenAI", "OpenRouter", "Groq", "Together", "DeepSeek", "Mistral", "Ollama (local)", "LM Studio (local)", "Other (OpenAI-compatible)",
    ]);
    expect(offered.some((r) => (r as HTMLInputElement).checked)).toBe(false);
    await userEvent.setup().click(screen.getByRole("button", { name: "Continue without a model" }));
    expect(got.skipped).toBe(1);
  });

  it("saves the environment's server with the environment's key, never asking for it", async () => {
    const env = { ...candidates[0]!, keyPresent: true, status: "ok", models: ["gpt-x"], message: "1 model offered" };
    const t = new FakeTransport({
      ModelServers: [env],
      ProbeModelServer: env,
      AddProviderFromEnv: { name: "openai-env", baseUrl: env.baseUrl, model: "gpt-x" },
    });
    renderView(t);
    const form = await chosenForm("OPENAI_API_KEY and OPENAI_BASE_URL (found, 1 model)");
    expect(within(form).getByRole("checkbox", { name: /Use the key in OPENAI_API_KEY/ })).toHaveProperty("checked", true);
    expect(within(form).queryByLabelText(/API key/)).toBeNull();
    await userEvent.setup().click(within(form).getByRole("button", { name: "Save and start a session" }));
    await screen.findByText("Saved as provider profile “openai-env”");
    expect(t.calls.filter((c) => c.method === "AddProviderFromEnv").map((c) => c.args[0])).toEqual([
      { name: "openai-env", baseUrl: "https://api.openai.com/v1", model: "gpt-x" },
    ]);
    expect(t.callsOf("AddProvider")).toBe(0);
  });

  it("asks for a key when a server wants one, and shows the kernel's refusal in words at its field", async () => {
    const locked = { ...candidates[2]!, status: "unauthorized", message: "the server wants an API key (401)" };
    const t = new FakeTransport({
      ModelServers: [locked],
      ProbeModelServer: locked,
      AddProvider: new ApiError("conflict", "provider exists: lm-studio already exists: remove it first, or change it with foya providers edit"),
    });
    renderView(t);
    const form = await chosenForm("LM Studio (found, wants an API key)");
    const user = userEvent.setup();
    await user.click(within(form).getByRole("button", { name: "Save and start a session" }));
    // Each missing value is said at its own field, and the first one gets the focus.
    const key = within(form).getByLabelText("API key");
    expect(key.getAttribute("aria-invalid")).toBe("true");
    expect(described(key)).toContain("This server wants an API key: paste yours here.");
    expect(document.activeElement).toBe(key);
    expect(described(within(form).getByRole("textbox", { name: "Model" }))).toContain("Type the model's name");
    expect(t.callsOf("AddProvider")).toBe(0);
    await user.type(within(form).getByRole("textbox", { name: "Model" }), "my-model");
    await user.type(key, "sk-typed");
    expect(key.getAttribute("aria-invalid")).toBeNull();
    await user.click(within(form).getByRole("button", { name: "Save and start a session" }));
    const name = within(form).getByLabelText("Profile name");
    await waitFor(() => expect(name.getAttribute("aria-invalid")).toBe("true"));
    expect(described(name)).toContain("A profile named “lm-studio” exists already: choose another name.");
    expect(within(form).queryByRole("alert")).toBeNull(); // not a line at the bottom
    expect(t.calls.filter((c) => c.method === "AddProvider").map((c) => c.args[0])).toEqual([
      { name: "lm-studio", baseUrl: "http://127.0.0.1:1234/v1", model: "my-model", apiKey: "sk-typed" },
    ]);
  });

  it("shows why it could not list the candidates", async () => {
    renderView(new FakeTransport({ ModelServers: new ApiError("unavailable", "the kernel is not open: see foya doctor") }));
    expect((await screen.findByRole("alert")).textContent).toContain("the kernel is not open: see foya doctor");
    expect(screen.getByRole("button", { name: "Continue without a model" })).toBeTruthy();
  });
});

describe("the shell's first run", () => {
  const renderApp = (t: FakeTransport) =>
    render(
      <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
        <TransportProvider transport={t}>
          <App />
        </TransportProvider>
      </VirtuosoMockContext.Provider>,
    );
  const info = { version: "1", commit: "", date: "", dataDir: "/d", dbPath: "/d/foya.db" };

  it("opens on the setup when there is no provider profile and no session, and leaves it on continue", async () => {
    const t = new FakeTransport({ Info: info, Sessions: [], Providers: [], ModelServers: [] });
    renderApp(t);
    await screen.findByRole("heading", { level: 2, name: "Set up Foya" });
    await userEvent.setup().click(screen.getByRole("button", { name: "Continue without a model" }));
    await screen.findByRole("heading", { level: 2, name: "Start your first session" });
    // Reachable again from the sidebar.
    await userEvent.setup().click(screen.getByRole("button", { name: "Set up a model" }));
    await screen.findByRole("heading", { level: 2, name: "Set up Foya" });
  });

  it.each([
    ["a provider profile", { Providers: [{ name: "p", baseUrl: "http://127.0.0.1:1/v1", model: "m" }], Sessions: [] }],
    ["a session", { Providers: [], Sessions: [session({ id: "s", title: "Mine" })] }],
    ["a failed Providers call", { Providers: new ApiError("unavailable", "no kernel"), Sessions: [] }],
  ])("does not open on it with %s", async (_, replies) => {
    renderApp(new FakeTransport({ Info: info, ModelServers: [], ...replies }));
    await screen.findByRole("heading", { level: 2 });
    await waitFor(() => expect(screen.queryByRole("heading", { level: 2, name: "Set up Foya" })).toBeNull());
    expect(screen.getByRole("heading", { level: 2 }).textContent).not.toBe("Set up Foya");
  });
});
