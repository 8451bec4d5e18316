// The data the kernel hands to front ends, as the UI sees it. Field names
// follow the kernel's JSON (backend/kernel).

/** Info describes the running kernel: its version and where it keeps data. */
export interface Info {
  version: string;
  /** The data folder; empty when the kernel could not be opened. */
  dataDir: string;
  /** The SQLite database file; empty when the kernel could not be opened. */
  dbPath: string;
}

/** Session is one stored session. Times are RFC 3339 strings. */
export interface Session {
  id: string;
  title: string;
  workdir: string;
  model: string;
  approvalMode: string;
  createdAt: string;
  updatedAt: string;
  runs: number;
}

/**
 * UIReport tells the host what the window rendered once it first showed the
 * kernel's info and sessions (or the error it shows instead). The desktop
 * smoke test reads it; otherwise the host ignores it.
 */
export interface UIReport {
  version: string;
  sessions: number;
  /** The error the window shows instead of the sessions, or "". */
  error: string;
}

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
