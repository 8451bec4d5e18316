import { Facts } from "../../ui/Facts";
import { Notice } from "../../ui/Notice";
import type { InfoState } from "./useInfo";

/** StoragePanel shows where the kernel keeps its data. */
export function StoragePanel(props: { state: InfoState }) {
  const { state } = props;
  return (
    <section className="panel" aria-labelledby="storage-heading">
      <header className="panel-header">
        <h2 id="storage-heading">Storage</h2>
      </header>
      {state.status === "loading" && <Notice kind="status">Loading…</Notice>}
      {state.status === "error" && (
        <Notice kind="alert" title="Could not reach Foya's kernel">
          <p className="error-text">{state.message}</p>
        </Notice>
      )}
      {state.status === "ready" && (
        <Facts
          label="Where Foya keeps its data"
          facts={[
            { label: "Data folder", value: <Path value={state.info.dataDir} /> },
            { label: "Database", value: <Path value={state.info.dbPath} /> },
          ]}
        />
      )}
    </section>
  );
}

function Path(props: { value: string }) {
  if (props.value === "") {
    return <span className="muted">not available</span>;
  }
  return <code className="path">{props.value}</code>;
}
