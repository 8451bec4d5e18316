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
