import type { Backend } from "./types";

const message =
  "Foya's backend is not reachable from this page: open it in the Foya desktop app";

/**
 * unavailableBackend answers every call with a clear error. The UI uses it
 * when the page is opened outside the desktop window (for example straight
 * from the Vite dev server), so it shows why nothing loads.
 */
export const unavailableBackend: Backend = {
  info: () => Promise.reject(new Error(message)),
  sessions: () => Promise.reject(new Error(message)),
  uiReady: () => Promise.resolve(),
};
