import * as App from "../../wailsjs/go/main/App";
import { toError } from "./errors";
import type { Backend, Info, Session, UIReport } from "./types";

/** hasWails reports whether the page runs inside the Wails desktop window. */
export function hasWails(): boolean {
  const w = window as { go?: { main?: { App?: unknown } } };
  return w.go?.main?.App !== undefined;
}

/** wailsBackend implements Backend over the bindings of the Go App (app.go). */
export const wailsBackend: Backend = {
  async info(): Promise<Info> {
    try {
      const i = await App.Info();
      return { version: i.version, dataDir: i.dataDir, dbPath: i.dbPath };
    } catch (e) {
      throw toError(e);
    }
  },

  async sessions(): Promise<Session[]> {
    try {
      const list = (await App.Sessions()) ?? [];
      return list.map((s) => ({
        id: s.id,
        title: s.title,
        workdir: s.workdir,
        model: s.model,
        approvalMode: s.approvalMode,
        createdAt: String(s.createdAt),
        updatedAt: String(s.updatedAt),
        runs: s.runs,
      }));
    } catch (e) {
      throw toError(e);
    }
  },

  async uiReady(report: UIReport): Promise<void> {
    try {
      await App.UIReady(report);
    } catch (e) {
      throw toError(e);
    }
  },
};
