// Fork from here (issue 29 item 2): each prompt of the open session has
// the action; it forks before that prompt (its place among the prompts),
// opens the fork with the prompt in its message box, and says why when
// the kernel refuses.
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { VirtuosoMockContext } from "react-virtuoso";
import { ApiError, TransportProvider } from "../../backend";
import { FakeTransport, session } from "../../backend/fake";
import type { Forked } from "../../backend/gen/kernel";
import type { Transport } from "../../backend/transport";
import { Log, SESSION } from "../eventstest";
import { SessionStoreProvider, useFollow } from "../session/hooks";
import { createSessionStore, type Subscribe } from "../session/store";
import { ConversationView } from "./ConversationView";
import { ForkProvider, promptNumber, setForkDraft, takeForkDraft } from "./Fork";
import { mountConversation, testProviders } from "./mounttest";
import type { ReactNode } from "react";

afterEach(cleanup);

/** twoPrompts is a session of two completed turns. */
function twoPrompts(): Log {
  const log = new Log();
  for (const [id, prompt] of [
    ["run_1", "Write the parser"],
    ["run_2", "Now add tests"],
  ] as const) {
    log.runStart(id, prompt);
    log.stepStart(id, 1);
    log.text(id, 1, `done: ${prompt}`);
    log.stepEnd(id, 1, "stop", 0);
    log.runEnd(id, "completed");
  }
  return log;
}

const forked: Forked = {
  session: session({ id: "ses_fork", title: "Fix the flaky test (fork)", forkedFrom: SESSION, forkedAt: 2 }),
  draft: "Now add tests",
};

/** mount renders the conversation of SESSION with the Fork action on. */
async function mount(replies: Record<string, unknown>) {
  const t = new FakeTransport({ Session: session({ id: SESSION, provider: "local", model: "m" }), Providers: testProviders, ...replies });
  const store = createSessionStore(SESSION);
  const subscribe = t.subscribe.bind(t) as Subscribe;
  const transport: Transport = { call: t.call.bind(t), subscribe, subscribeAll: t.subscribeAll.bind(t), subscribeNotices: t.subscribeNotices.bind(t), pickFolder: null };
  const opened: Forked[] = [];
  function Follows(props: { children: ReactNode }) {
    useFollow(store, subscribe);
    return <>{props.children}</>;
  }
  render(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 100_000, itemHeight: 40 }}>
      <TransportProvider transport={transport}>
        <SessionStoreProvider store={store}>
          <Follows>
            <ForkProvider value={{ sessionId: SESSION, onForked: (f) => opened.push(f) }}>
              <ConversationView sessionId={SESSION} />
            </ForkProvider>
          </Follows>
        </SessionStoreProvider>
      </TransportProvider>
    </VirtuosoMockContext.Provider>,
  );
  await act(async () => {
    for (const ev of twoPrompts().events) t.push(ev);
    await Promise.resolve();
  });
  return { t, opened };
}

describe("Fork from here", () => {
  it("forks before the prompt it is on and opens the fork with that prompt as its draft", async () => {
    const { t, opened } = await mount({ ForkSession: forked });
    const user = userEvent.setup();
    expect(screen.getByRole("button", { name: "Fork from here (prompt 1)" })).toBeTruthy();
    const second = screen.getByRole("button", { name: "Fork from here (prompt 2)" });
    // Reached by the keyboard like any button.
    second.focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(opened).toHaveLength(1));
    expect(t.calls.filter((c) => c.method === "ForkSession").map((c) => c.args)).toEqual([[SESSION, 2]]);
    expect(opened[0]!.session.id).toBe("ses_fork");
    expect(takeForkDraft("ses_fork")).toBe("Now add tests");
    expect(takeForkDraft("ses_fork")).toBe(""); // taken once
  });

  it("says why when the kernel refuses, and can be tried again", async () => {
    const { t, opened } = await mount({ ForkSession: new ApiError("invalid", "fork at prompt 2: session ses_01 has 1 prompt") });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Fork from here (prompt 2)" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe("Not forked: fork at prompt 2: session ses_01 has 1 prompt. Try again.");
    expect(opened).toHaveLength(0);
    const again = screen.getByRole("button", { name: "Fork from here (prompt 2)" }) as HTMLButtonElement;
    expect(again.disabled).toBe(false);
    await user.click(again);
    await waitFor(() => expect(t.callsOf("ForkSession")).toBe(2));
  });

  it("is not offered where no fork can be opened", async () => {
    await mountConversation(twoPrompts().events);
    expect(screen.getAllByRole("button", { name: "Copy message" })).toHaveLength(2);
    expect(screen.queryByRole("button", { name: /Fork from here/ })).toBeNull();
  });

  it("opens the fork's message box with the draft, focused", async () => {
    setForkDraft("ses_fork", "Now add tests");
    await mountConversation([], { sessionId: "ses_fork" });
    const box = screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
    expect(box.value).toBe("Now add tests");
    // Focused, the caret at the end: typing goes on from the keyboard.
    expect(document.activeElement).toBe(box);
    expect(box.selectionStart).toBe("Now add tests".length);
    expect(takeForkDraft("ses_fork")).toBe(""); // taken once it showed
  });
});

describe("promptNumber", () => {
  it("counts the prompts (turns), not mode switches or compactions; 0 for one not among them", () => {
    const entries = [
      { kind: "turn" as const, id: "r1" },
      { kind: "compact" as const, id: "cmp_1", seq: 9 },
      { kind: "turn" as const, id: "r2" },
    ];
    expect(promptNumber(entries, "r1")).toBe(1);
    expect(promptNumber(entries, "r2")).toBe(2);
    expect(promptNumber(entries, "sub")).toBe(0);
  });
});
