// Saving a text the UI made (an exported patch) as a file. The browser
// downloads it (a Blob behind a link with a download name); the desktop
// window's web view does not save such downloads, so there the bound
// App.SaveText (app_save.go) shows the system's save dialog and writes it.
import { toApiError } from "./errors";
import { hasWails, type WailsWindow } from "./wails";

/** Saved is what saveText did: downloaded (the browser), saved to path, or cancelled by the user. */
export type Saved = { kind: "downloaded" } | { kind: "saved"; path: string } | { kind: "cancelled" };

/**
 * saveText saves text as a file named name (a proposal the user may change
 * on the desktop). It rejects with an ApiError when the desktop could not
 * save it.
 */
export async function saveText(name: string, text: string, w: WailsWindow & Window = window as WailsWindow & Window): Promise<Saved> {
  if (hasWails(w)) {
    const fn = w.go?.main?.App?.SaveText;
    if (typeof fn === "function") {
      let path: unknown;
      try {
        path = await fn(name, text);
      } catch (e) {
        throw toApiError(e);
      }
      return typeof path === "string" && path !== "" ? { kind: "saved", path } : { kind: "cancelled" };
    }
  }
  const url = URL.createObjectURL(new Blob([text], { type: "text/x-diff" }));
  try {
    const a = w.document.createElement("a");
    a.href = url;
    a.download = name;
    a.style.display = "none";
    w.document.body.appendChild(a);
    a.click();
    a.remove();
  } finally {
    // The click has started the download; the URL is no longer needed
    // once the current task ends.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
  return { kind: "downloaded" };
}
