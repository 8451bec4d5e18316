// The data the kernel hands to front ends, as the UI sees it. The types are
// generated from the Go types (make bindings: ./gen from tygo.yaml, the
// Wails models from app.go); nothing here copies a Go type by hand.

import type { main } from "../../wailsjs/go/models";
import type { Info, Session } from "./gen/kernel";

export type { Info, Session };

/**
 * UIReport tells the host what the window rendered once it first showed the
 * kernel's info and sessions (or the error it shows instead). The desktop
 * smoke test reads it; otherwise the host ignores it.
 */
export type UIReport = main.UIReport;

/**
 * Backend is the one transport the UI talks to. The desktop app implements
 * it over Wails bindings (wails.ts); `foya serve` will implement it over
 * HTTP. Every method rejects with an Error whose message a person can read.
 */
export interface Backend {
  info(): Promise<Info>;
  sessions(): Promise<Session[]>;
  uiReady(report: UIReport): Promise<void>;
}
