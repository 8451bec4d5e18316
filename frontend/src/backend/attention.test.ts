import { afterEach, describe, expect, it, vi } from "vitest";
import { focused, notify, permission, requestPermission, setWaitingTitle, type AttentionWindow } from "./attention";

/** FakeNotification records the notifications a page shows, as the web API makes them. */
class FakeNotification {
  static permission: NotificationPermission = "default";
  static shown: { title: string; body: string | undefined; tag: string | undefined }[] = [];
  static requestPermission = vi.fn(async () => {
    FakeNotification.permission = "granted";
    return "granted" as NotificationPermission;
  });
  onclick: (() => void) | null = null;
  constructor(title: string, opts: NotificationOptions = {}) {
    FakeNotification.shown.push({ title, body: opts.body, tag: opts.tag });
  }
  close() {}
}

function browser(perm: NotificationPermission): AttentionWindow {
  FakeNotification.permission = perm;
  FakeNotification.shown = [];
  return { Notification: FakeNotification as unknown as typeof Notification, document } as AttentionWindow;
}

function desktop(notifyFn: (...a: unknown[]) => Promise<unknown>, setTitle = vi.fn()): AttentionWindow {
  return {
    document,
    go: { main: { App: { Notify: notifyFn } } },
    runtime: { EventsOn: () => () => {}, WindowSetTitle: setTitle } as AttentionWindow["runtime"],
  } as AttentionWindow;
}

afterEach(() => {
  document.title = "Foya";
});

describe("attention in a browser", () => {
  it("shows a notification only once the person allowed it", async () => {
    const w = browser("default");
    expect(permission(w)).toBe("default");
    expect(await notify("approval", "Foya: Run a command?", "go test", "apr_1", w)).toBe("notifications are not allowed for this page");
    expect(FakeNotification.shown).toEqual([]);
    expect(await requestPermission(w)).toBe("granted");
    expect(await notify("approval", "Foya: Run a command?", "go test", "apr_1", w)).toBe("");
    expect(FakeNotification.shown).toEqual([{ title: "Foya: Run a command?", body: "go test", tag: "apr_1" }]);
  });

  it("says so where there are no notifications", async () => {
    const w = { document } as AttentionWindow;
    expect(permission(w)).toBe("unsupported");
    expect(await requestPermission(w)).toBe("unsupported");
    expect(await notify("run_ended", "t", "b", "x", w)).toBe("this browser has no notifications");
  });

  it("counts waiting requests in the title and keeps the rest of it", () => {
    const w = browser("denied");
    document.title = "Fix the flaky test · Foya";
    setWaitingTitle(2, w);
    expect(document.title).toBe("(2) Fix the flaky test · Foya");
    setWaitingTitle(1, w);
    expect(document.title).toBe("(1) Fix the flaky test · Foya");
    setWaitingTitle(0, w);
    expect(document.title).toBe("Fix the flaky test · Foya");
  });

  it("reads focus from the document", () => {
    vi.spyOn(document, "hasFocus").mockReturnValue(false);
    expect(focused()).toBe(false);
    vi.spyOn(document, "hasFocus").mockReturnValue(true);
    expect(focused()).toBe(true);
  });
});

describe("attention on the desktop", () => {
  it("notifies through the bound App.Notify and sets the window title", async () => {
    const sent: unknown[][] = [];
    const setTitle = vi.fn();
    const w = desktop(async (...a) => void sent.push(a), setTitle);
    expect(permission(w)).toBe("granted");
    expect(await notify("approval", "Foya: Write a file?", "/w/a.txt", "apr_1", w)).toBe("");
    expect(sent).toEqual([["approval", "Foya: Write a file?", "/w/a.txt"]]);
    setWaitingTitle(3, w);
    expect(setTitle).toHaveBeenCalledWith("(3) Foya");
  });

  it("reports a notification the desktop could not show", async () => {
    const w = desktop(async () => {
      throw '{"code":"unavailable","message":"no notification service on the session bus"}';
    });
    expect(await notify("run_ended", "t", "b", "x", w)).toContain("no notification service on the session bus");
    const old = { document, go: { main: { App: {} } }, runtime: { EventsOn: () => () => {} } } as AttentionWindow;
    expect(await notify("run_ended", "t", "b", "x", old)).toBe("this desktop build cannot show notifications (no App.Notify)");
  });
});
