// Mounting for the settings and background tests: the view inside a
// TransportProvider (a FakeTransport answering by method) and a real
// session store, as the shell mounts it.
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { TransportProvider } from "../../backend";
import { FakeTransport } from "../../backend/fake";
import type { Provider, ProviderCheck } from "../../backend/gen/profiles";
import type { Server as MCPServer } from "../../backend/gen/mcpconfig";
import type { Entry, Setting } from "../../backend/gen/settings";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore, type SessionStore } from "../session/store";

export function mount(ui: ReactNode, replies: Record<string, unknown>, sessionId = "s1"): { t: FakeTransport; store: SessionStore } {
  const t = new FakeTransport(replies);
  const store = createSessionStore(sessionId);
  render(
    <TransportProvider transport={t}>
      <SessionStoreProvider store={store}>{ui}</SessionStoreProvider>
    </TransportProvider>,
  );
  return { t, store };
}

/** argsOf returns the arguments of every call of one method, in order. */
export function argsOf(t: FakeTransport, method: string): unknown[][] {
  return t.calls.filter((c) => c.method === method).map((c) => c.args);
}

export function provider(fields: Partial<Provider> = {}): Provider {
  return { name: "local", baseUrl: "http://127.0.0.1:8080/v1", model: "qwen-coder", keyStore: "keyring", default: true, ...fields };
}

export function check(fields: Partial<ProviderCheck> = {}): ProviderCheck {
  return {
    provider: "local",
    baseUrl: "http://127.0.0.1:8080/v1",
    model: "qwen-coder",
    models: { status: "ok", httpStatus: 200, message: "reachable; 3 models listed, qwen-coder among them", millis: 4 },
    stream: { status: "ok", message: 'model qwen-coder answered "ok"', millis: 30 },
    ...fields,
  };
}

/** server returns one of the user's MCP servers, ready, overridden by fields. */
export function server(fields: Partial<MCPServer> = {}): MCPServer {
  return {
    name: "local",
    scope: "user",
    file: "/home/ada/.local/share/foya/mcp.json",
    transport: "stdio",
    commandLine: "my-server --stdio",
    state: "ready",
    tools: 3,
    deferred: false,
    sandbox: false,
    alwaysLoad: false,
    restarts: 0,
    ...fields,
  };
}

/**
 * declared stands for the backend's settings table (backend/settings), in
 * its order, with the keys these tests use.
 */
export const declared: Setting[] = [
  { key: "approval.default", label: "Default approval mode", kind: "mode", default: "manual", doc: "The approval mode new sessions start in." },
  { key: "providers.default", label: "Default provider", kind: "profile", default: "", doc: "The provider profile a run uses." },
  { key: "run.max_steps", label: "Step limit", kind: "steps", default: "500", doc: "The most model steps one turn takes: a whole number." },
  { key: "files.maxWriteBytes", label: "Largest write", kind: "bytes", default: "67108864", doc: "The most content one write may hold." },
  { key: "provider.idleTimeout", label: "Model idle timeout", kind: "duration", default: "2m0s", doc: "How long a model may send nothing." },
  { key: "workspace.maxFileBytes", label: "Largest file kept", kind: "bytes", default: "8388608", doc: "The largest file the index keeps." },
  { key: "workspace.maxTotalBytes", label: "Most kept per session", kind: "bytes", default: "2147483648", doc: "The most one session keeps." },
  { key: "workspace.maxKeptBytes", label: "Most kept on disk", kind: "bytes", default: "4294967296", doc: "The most disk the kept contents take." },
  { key: "sessions.autoTitle", label: "Titles from the model", kind: "bool", default: "true", doc: "Whether the model titles a session after its first run." },
  { key: "model.images.", family: "MODEL", label: "Image input", kind: "bool", default: "", doc: "Whether the model is sent images." },
];

/**
 * settingList is api.SettingList's answer: every setting of table with
 * its value in values (a family gets the keys of values it starts).
 */
export function settingList(values: Record<string, string>, table: Setting[] = declared): Entry[] {
  return table.map((s) => {
    if (!s.family) return { ...s, value: values[s.key] ?? "" };
    const set = Object.fromEntries(Object.entries(values).filter(([k]) => k.startsWith(s.key) && k.length > s.key.length));
    return { ...s, value: "", set };
  });
}
