import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { TransportProvider } from "../../backend";
import { FakeTransport } from "../../backend/fake";
import { Log } from "../eventstest";
import { SessionStoreProvider } from "../session/hooks";
import { createSessionStore } from "../session/store";
import { ModeMenu } from "./ModeMenu";

afterEach(cleanup);

// spec: W4 — the approval mode is switched from the header too.
function mount(mode: string) {
  const t = new FakeTransport({ SetMode: null });
  const store = createSessionStore("s1", { mode });
  render(
    <TransportProvider transport={t}>
      <SessionStoreProvider store={store}>
        <ModeMenu sessionId="s1" listed={mode} />
      </SessionStoreProvider>
    </TransportProvider>,
  );
  const setModes = () => t.calls.filter((c) => c.method === "SetMode").map((c) => c.args);
  return { t, store, setModes };
}

describe("ModeMenu", () => {
  it("lists the three modes with their meaning and switches through SetMode, focus back on the pill", async () => {
    const { setModes } = mount("manual");
    const user = userEvent.setup();
    const pill = screen.getByRole("button", { name: "Approval mode: Manual" });
    await user.click(pill);
    const items = await screen.findAllByRole("menuitemradio");
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringMatching(/^Manual.*Asks before every change/),
      expect.stringMatching(/^Auto.*without asking/),
      expect.stringMatching(/^Full Access.*without the sandbox/),
    ]);
    expect(screen.getByRole("menuitemradio", { name: /Manual/ }).getAttribute("aria-checked")).toBe("true");
    await user.click(screen.getByRole("menuitemradio", { name: /Auto/ }));
    await waitFor(() => expect(setModes()).toEqual([["s1", "auto"]]));
    await waitFor(() => expect(document.activeElement).toBe(pill));
  });

  it("asks before Full Access, naming what it allows; Cancel keeps the mode", async () => {
    const { setModes } = mount("auto");
    const user = userEvent.setup();
    const pill = screen.getByRole("button", { name: "Approval mode: Auto" });
    await user.click(pill);
    await user.click(await screen.findByRole("menuitemradio", { name: /Full Access/ }));
    const dialog = await screen.findByRole("alertdialog", { name: "Switch this session to Full Access?" });
    expect(dialog.textContent).toMatch(/without the sandbox/);
    expect(setModes()).toEqual([]);
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(setModes()).toEqual([]);
    expect(document.activeElement).toBe(pill);

    await user.click(pill);
    await user.click(await screen.findByRole("menuitemradio", { name: /Full Access/ }));
    await user.click(await screen.findByRole("button", { name: "Switch to Full Access" }));
    await waitFor(() => expect(setModes()).toEqual([["s1", "full_access"]]));
    await waitFor(() => expect(document.activeElement).toBe(pill));
  });

  it("opens with Ctrl+Shift+M and follows session.mode events", async () => {
    const { store } = mount("manual");
    const user = userEvent.setup();
    await user.keyboard("{Control>}{Shift>}M{/Shift}{/Control}");
    expect(await screen.findByRole("menu", { name: "Approval mode: Manual" })).toBeTruthy();
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("menu")).toBeNull());
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Approval mode: Manual" }));

    const log = new Log("s1");
    log.add("session.mode", { from: "manual", to: "full_access" });
    act(() => store.getState().apply(log.events));
    const pill = await screen.findByRole("button", { name: "Approval mode: Full Access" });
    expect(pill.className).toContain("mode-full_access");
  });

  it("says so when the switch fails, and keeps the mode", async () => {
    const { t } = mount("manual");
    t.replies.SetMode = new Error("session s1 not found: see foya sessions");
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Approval mode: Manual" }));
    await user.click(await screen.findByRole("menuitemradio", { name: /Auto/ }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/The mode was not changed: .*not found/);
    expect(screen.getByRole("button", { name: "Approval mode: Manual" })).toBeTruthy();
  });
});
