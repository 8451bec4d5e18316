import type { main } from "../../wailsjs/go/models";
import type { WailsWindow } from "./wails";

/** UIReport is what the window first rendered (app.go's UIReport). */
export type UIReport = main.UIReport;

/**
 * reportReady sends the desktop smoke test's report to the Go App
 * (App.UIReady, which prints it in smoke mode and ignores it otherwise).
 * It is not part of any Transport: in a browser, or a window without the
 * hook, it does nothing.
 */
export function reportReady(report: UIReport, w: WailsWindow = window as WailsWindow): void {
  const uiReady = w.go?.main?.App?.UIReady;
  if (typeof uiReady !== "function") {
    return;
  }
  uiReady(report).catch((e: unknown) => {
    console.error("foya: report ui ready:", e);
  });
}
