// Attention: telling a person who is looking elsewhere that Foya waits for
// them. In the desktop window, a system notification through the bound
// App.Notify (app.go, the freedesktop notification service over D-Bus:
// WebKitGTK denies the web Notification API there, since Wails v2.11 does
// not answer its permission request) and the count in the window title
// (runtime.WindowSetTitle); in a browser, the web Notification API once the
// person allowed it, and the count in the page title.
import { toApiError } from "./errors";
import { NotifyApproval, NotifyRunEnded, NotifyRunFailed } from "./gen/settings";
import { hasWails, type WailsWindow } from "./wails";

/** Permission is whether notifications can be shown, as the person decided. */
export type Permission = "granted" | "denied" | "default" | "unsupported";

/** AttentionWindow is the part of the page's globals attention uses. */
export interface AttentionWindow extends WailsWindow {
  Notification?: typeof Notification;
  document: Document;
}

/** baseTitle is the window's own title (main.go's Title, index.html's <title>). */
export const baseTitle = "Foya";

/** focused reports whether the person is looking at this window. */
export function focused(w: AttentionWindow = window as AttentionWindow): boolean {
  return w.document.visibilityState !== "hidden" && w.document.hasFocus();
}

/**
 * permission says whether notify can show a notification: on the desktop
 * always (the system decides how), in a browser as the person decided.
 */
export function permission(w: AttentionWindow = window as AttentionWindow): Permission {
  if (hasWails(w)) return "granted";
  const N = w.Notification;
  if (N === undefined) return "unsupported";
  return N.permission;
}

/** requestPermission asks the browser for notifications; call it from a click. */
export async function requestPermission(w: AttentionWindow = window as AttentionWindow): Promise<Permission> {
  const N = w.Notification;
  if (hasWails(w)) return "granted";
  if (N === undefined) return "unsupported";
  return N.requestPermission();
}

/**
 * NotifyKind is what a notification tells (kernel.NotifyApproval,
 * NotifyRunEnded, NotifyRunFailed); each kind has a setting that turns it
 * off (notifySetting).
 */
export type NotifyKind = "approval" | "run_ended" | "run_failed";

/** notifySetting is the setting of each kind of notification: "false" turns it off. */
export const notifySetting: Record<NotifyKind, string> = {
  approval: NotifyApproval,
  run_ended: NotifyRunEnded,
  run_failed: NotifyRunFailed,
};

const failureListeners = new Set<(message: string) => void>();

/**
 * onNotifyFailure calls fn with the message of each notification that
 * could not be shown, until the returned function is called: whoever shows
 * such failures (the approval queue) listens, whoever notifies need not.
 */
export function onNotifyFailure(fn: (message: string) => void): () => void {
  failureListeners.add(fn);
  return () => failureListeners.delete(fn);
}

/**
 * notify shows a notification of kind titled title with body; tag replaces
 * an earlier one of the same tag. Clicking it brings the window forward.
 * The desktop shows nothing for a kind turned off in the settings (the
 * caller checks them in a browser). It resolves to an error message a
 * person can read when nothing could be shown, also told to
 * onNotifyFailure's listeners, else to "".
 */
export async function notify(
  kind: NotifyKind,
  title: string,
  body: string,
  tag: string,
  w: AttentionWindow = window as AttentionWindow,
): Promise<string> {
  const err = await show(kind, title, body, tag, w);
  if (err !== "") for (const fn of failureListeners) fn(err);
  return err;
}

async function show(kind: NotifyKind, title: string, body: string, tag: string, w: AttentionWindow): Promise<string> {
  if (hasWails(w)) {
    const fn = w.go?.main?.App?.["Notify"];
    if (typeof fn !== "function") return "this desktop build cannot show notifications (no App.Notify)";
    try {
      await fn(kind, title, body);
      return "";
    } catch (e) {
      return `the desktop could not show a notification: ${toApiError(e).message}`;
    }
  }
  const N = w.Notification;
  if (N === undefined) return "this browser has no notifications";
  if (N.permission !== "granted") return "notifications are not allowed for this page";
  const n = new N(title, { body, tag });
  n.onclick = () => {
    window.focus();
    n.close();
  };
  return "";
}

/**
 * setWaitingTitle puts count before the window's title ("(2) Foya"), or
 * takes it out at 0; the rest of the title stays as the shell set it.
 */
export function setWaitingTitle(count: number, w: AttentionWindow = window as AttentionWindow): void {
  const bare = w.document.title.replace(/^\(\d+\) /, "") || baseTitle;
  const t = count > 0 ? `(${count}) ${bare}` : bare;
  if (t === w.document.title) return;
  w.document.title = t;
  const rt = w.runtime as (WailsWindow["runtime"] & { WindowSetTitle?: (title: string) => void }) | undefined;
  if (hasWails(w) && typeof rt?.WindowSetTitle === "function") rt.WindowSetTitle(t);
}
