import { useTransport, type UIReport } from "./backend";
import { StoragePanel } from "./features/kernel/StoragePanel";
import { useInfo } from "./features/kernel/useInfo";
import { useReadyReport } from "./features/kernel/useReadyReport";
import { SessionsView } from "./features/sessions/SessionsView";
import { useSessions } from "./features/sessions/useSessions";

/**
 * App is Foya's window: the kernel's version and storage, and the sessions.
 * onReady, if given, is told once what the window first rendered (the
 * desktop smoke test reads it).
 */
export function App(props: { onReady?: (r: UIReport) => void }) {
  const transport = useTransport();
  const info = useInfo(transport);
  const { state: sessions, reload } = useSessions(transport);
  useReadyReport(props.onReady, info, sessions);

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
