// mountConversation renders ConversationView for tests: inside a
// VirtuosoMockContext, a TransportProvider over a FakeTransport and a real
// session store, with events pushed through the transport's subscription.
// Test code only (imported by *.test.tsx files).
import { act, render } from "@testing-library/react";
import type { ReactNode } from "react";
import { VirtuosoMockContext } from "react-virtuoso";
import { TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import type { Event } from "../../backend/gen/event";
import type { Transport } from "../../backend/transport";
import { SESSION } from "../eventstest";
import { SessionStoreProvider, useFollow } from "../session/hooks";
import { createSessionStore, type Subscribe } from "../session/store";
import { ConversationView } from "./ConversationView";

export const testProviders = [{ name: "local", baseUrl: "http://127.0.0.1:9/v1", model: "m", default: true }];

/** mountConversation renders the view for sessionId (the first event's by default) with events pushed through the transport. */
export async function mountConversation(
  events: Event[],
  opts: { sessionId?: string; replies?: Record<string, unknown>; transport?: FakeTransport } = {},
) {
  const sessionId = opts.sessionId ?? events[0]?.sessionId ?? SESSION;
  const t =
    opts.transport ??
    new FakeTransport({ Session: session({ id: sessionId, provider: "local", model: "m" }), Providers: testProviders, ...opts.replies });
  const store = createSessionStore(sessionId);
  // A stable subscribe, as the shell passes the transport's bound method.
  const subscribe = t.subscribe.bind(t) as Subscribe;
  const transport: Transport = { call: t.call.bind(t), subscribe, subscribeAll: t.subscribeAll.bind(t), subscribeNotices: t.subscribeNotices.bind(t), pickFolder: null };
  function Follows(props: { children: ReactNode }) {
    useFollow(store, subscribe);
    return <>{props.children}</>;
  }
  const view = render(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <Follows>
            <ConversationView sessionId={sessionId} />
          </Follows>
        </SessionStoreProvider>
      </TransportProvider>
    </VirtuosoMockContext.Provider>,
  );
  const push = async (evs: Event[]) => {
    await act(async () => {
      for (const ev of evs) t.push(ev);
      await Promise.resolve();
    });
  };
  await push(events);
  return { t, store, view, push };
}
