// Mounting for the settings and background tests: the view inside a
// TransportProvider (a FakeTransport answering by method) and a real
// session store, as the shell mounts it.
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { TransportProvider } from "../../backend";
import { FakeTransport } from "../../backend/fake";
import type { Provider, ProviderCheck } from "../../backend/gen/kernel";
import type { Server as MCPServer } from "../../backend/gen/mcpconfig";
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
