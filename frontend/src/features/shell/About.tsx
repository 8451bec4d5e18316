import { Info as InfoIcon } from "lucide-react";
import { useState } from "react";
import { Dialog } from "../../ui/Dialog";
import { Facts } from "../../ui/Facts";
import { ErrorNotice } from "../../ui/ErrorNotice";
import { Button } from "../../ui/Button";
import type { InfoState } from "../kernel/useInfo";

/**
 * About is the sidebar footer's version line and the dialog behind it: the
 * kernel's version and build, and where it keeps its data.
 */
export function About(props: { state: InfoState }) {
  const [open, setOpen] = useState(false);
  const { state } = props;
  const version = state.status === "ready" ? `Foya ${state.info.version}` : state.status === "loading" ? "Foya …" : "Foya, version unknown";
  return (
    <>
      <button type="button" className="about-button" onClick={() => setOpen(true)} aria-haspopup="dialog" title={version}>
        <InfoIcon size={14} aria-hidden="true" />
        <span aria-label="Kernel version">{version}</span>
        <span className="visually-hidden">: about Foya</span>
      </button>
      <Dialog open={open} onOpenChange={setOpen} title="About Foya">
        {state.status === "loading" && <p>Loading…</p>}
        {state.status === "error" && (
          <ErrorNotice title="Could not reach Foya's kernel" error={state.message} />
        )}
        {state.status === "ready" && (
          <Facts
            label="Foya's build and data"
            facts={[
              { label: "Version", value: state.info.version },
              { label: "Commit", value: state.info.commit === "" ? <span className="muted">not known</span> : <code>{state.info.commit}</code> },
              { label: "Built", value: state.info.date === "" ? <span className="muted">not known</span> : state.info.date },
              { label: "Data folder", value: <Path value={state.info.dataDir} /> },
              { label: "Database", value: <Path value={state.info.dbPath} /> },
            ]}
          />
        )}
        <div className="dialog-actions">
          <Button onClick={() => setOpen(false)}>Close</Button>
        </div>
      </Dialog>
    </>
  );
}

function Path(props: { value: string }) {
  if (props.value === "") {
    return <span className="muted">not available (the kernel did not open)</span>;
  }
  return <code className="path">{props.value}</code>;
}
