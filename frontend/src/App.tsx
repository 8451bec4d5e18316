import { useBackend } from "./backend";
import { StoragePanel } from "./features/kernel/StoragePanel";
import { useInfo } from "./features/kernel/useInfo";
import { useReadyReport } from "./features/kernel/useReadyReport";
import { SessionsView } from "./features/sessions/SessionsView";
import { useSessions } from "./features/sessions/useSessions";

/** App is Foya's window: the kernel's version and storage, and the sessions. */
export function App() {
  const backend = useBackend();
  const info = useInfo(backend);
  const { state: sessions, reload } = useSessions(backend);
  useReadyReport(backend, info, sessions);

  return (
    <div className="app">
      <header className="app-header">
        <h1>Foya</h1>
        <p className="version" aria-label="Kernel version">
          {info.status === "ready" ? `version ${info.info.version}` : info.status === "loading" ? "…" : "version unknown"}
        </p>
      </header>
      <main className="app-main">
        <SessionsView state={sessions} onReload={reload} />
        <StoragePanel state={info} />
      </main>
    </div>
  );
}
