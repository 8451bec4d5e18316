// "Discard": an isolated session's copy removed (DiscardSession), after a
// confirmation that says what goes with it. The conversation stays.
import { useState } from "react";
import { toApiError, useApi, type Session } from "../../backend";
import { Button } from "../../ui/Button";
import { Dialog } from "../../ui/Dialog";
import { Notice } from "../../ui/Notice";
import "./isolation.css";

/** DiscardDialog confirms discarding session's isolated copy; Cancel has the focus first. */
export function DiscardDialog(props: { session: Session; open: boolean; onClose: () => void; onDiscarded?: () => void }) {
  const iso = props.session.isolation;
  const worktree = iso?.kind === "worktree";
  return (
    <Dialog
      open={props.open}
      onOpenChange={(o) => {
        if (!o) props.onClose();
      }}
      role="alertdialog"
      title="Discard the isolated copy?"
      description={
        worktree
          ? `The worktree, its branch ${iso?.branch ?? ""} and the commits on it are removed for good. What was not applied to the folder is lost. The conversation stays, and the session cannot run again.`
          : "The copy of the folder is removed for good. What was not applied to the folder is lost. The conversation stays, and the session cannot run again."
      }
      onOpenAutoFocus={(e) => {
        // Cancel, not Discard, takes focus: Enter must not discard by accident.
        e.preventDefault();
        document.querySelector<HTMLButtonElement>("[data-discard-cancel]")?.focus();
      }}
    >
      {props.open && <DiscardBody {...props} />}
    </Dialog>
  );
}

function DiscardBody(props: { session: Session; onClose: () => void; onDiscarded?: () => void }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const discard = () => {
    setBusy(true);
    setError("");
    api.DiscardSession(props.session.id).then(
      () => {
        props.onDiscarded?.();
        props.onClose();
      },
      (e: unknown) => {
        setBusy(false);
        const ae = toApiError(e);
        setError(
          ae.code === "busy"
            ? `The session is busy: ${ae.message}. Wait for its run or setup to end (or stop it), then discard.`
            : `Could not discard the copy: ${ae.message}`,
        );
      },
    );
  };
  return (
    <div className="discard-body">
      <p className="mono path-line">{props.session.isolation?.dir ?? props.session.workdir}</p>
      {error !== "" && (
        <Notice kind="alert">
          <p className="error-text">{error}</p>
        </Notice>
      )}
      <div className="dialog-actions">
        <Button data-discard-cancel onClick={props.onClose}>
          Cancel
        </Button>
        <Button variant="danger" disabled={busy} onClick={discard}>
          {busy ? "Discarding…" : "Discard the copy"}
        </Button>
      </div>
    </div>
  );
}
