import type { Session } from "../../backend";
import { Notice } from "../../ui/Notice";
import { Button } from "../../ui/Button";
import type { SessionsState } from "./useSessions";
import { formatTime } from "./format";

/** SessionsView shows the stored sessions, or why there are none to show. */
export function SessionsView(props: { state: SessionsState; onReload: () => void }) {
  const { state, onReload } = props;
  return (
    <section className="panel" aria-labelledby="sessions-heading">
      <header className="panel-header">
        <h2 id="sessions-heading">Sessions</h2>
        <Button onClick={onReload} disabled={state.status === "loading"}>
          Reload
        </Button>
      </header>
      <SessionsBody state={state} onReload={onReload} />
    </section>
  );
}

function SessionsBody(props: { state: SessionsState; onReload: () => void }) {
  const { state } = props;
  switch (state.status) {
    case "loading":
      return <Notice kind="status">Loading sessions…</Notice>;
    case "error":
      return (
        <Notice kind="alert" title="Could not load sessions">
          <p className="error-text">{state.message}</p>
          <Button onClick={props.onReload}>Try again</Button>
        </Notice>
      );
    case "ready":
      if (state.sessions.length === 0) {
        return (
          <Notice kind="status">
            <p className="empty">
              No sessions yet — run <code>foya exec "…"</code> to start one.
            </p>
          </Notice>
        );
      }
      return <SessionsTable sessions={state.sessions} />;
    default: {
      const unreachable: never = state;
      return unreachable;
    }
  }
}

function SessionsTable(props: { sessions: Session[] }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Stored sessions">
      <table className="sessions">
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Workdir</th>
            <th scope="col">Model</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {props.sessions.map((s) => (
            <tr key={s.id}>
              <th scope="row">{s.title.trim() === "" ? <span className="muted">Untitled</span> : s.title}</th>
              <td>
                <code className="path">{s.workdir}</code>
              </td>
              <td className="nowrap">{s.model === "" ? <span className="muted">—</span> : s.model}</td>
              <td className="nowrap">
                <time dateTime={s.updatedAt}>{formatTime(s.updatedAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
