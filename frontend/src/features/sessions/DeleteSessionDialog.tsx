import { useState } from "react";
import { toApiError, useApi, type Session } from "../../backend";
import { Button } from "../../ui/Button";
import { Dialog } from "../../ui/Dialog";
import { Notice } from "../../ui/Notice";
import { Spinner } from "../../ui/Spinner";
import { titleOf } from "./search";
import { useLoad } from "../useLoad";


/**
 * DeleteSessionDialog confirms deleting a session and says first what goes
 * with it: its history, and its background commands that still run (from
 * BackgroundCommands), which DeleteSession stops. Focus starts on Cancel;
 * once the session is deleted, onFocusAfter says where it goes (the row that
 * opened the dialog is gone with it).
 */
export function DeleteSessionDialog(props: {
  session: Session | null;
  onClose: () => void;
  onDeleted: (id: string) => void;
  /** onFocusAfter puts the focus somewhere once the session's row, which opened the dialog, is gone. */
  onFocusAfter?: () => void;
}) {
  const s = props.session;
  return (
    <Dialog
      open={s !== null}
      onOpenChange={(o) => {
        if (!o) props.onClose();
      }}
      role="alertdialog"
      {...(props.onFocusAfter !== undefined ? { onOpenerGone: props.onFocusAfter } : {})}
      title={s === null ? "Delete session" : `Delete “${titleOf(s)}”?`}
      description="Its conversation, file-change history and approvals are deleted for good. The files in its folder stay as they are."
      onOpenAutoFocus={(e) => {
        // Cancel, not Delete, takes focus: Enter must not delete by accident.
        e.preventDefault();
        document.querySelector<HTMLButtonElement>("[data-delete-cancel]")?.focus();
      }}
    >
      {s !== null && <DeleteBody key={s.id} session={s} onClose={props.onClose} onDeleted={props.onDeleted} />}
    </Dialog>
  );
}

function DeleteBody(props: { session: Session; onClose: () => void; onDeleted: (id: string) => void }) {
  const api = useApi();
  const { session: s } = props;
  const { state: commands } = useLoad(async () => ((await api.BackgroundCommands(s.id)) ?? []).filter((c) => c.running), [api, s.id]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");

  const remove = () => {
    setBusy(true);
    setError("");
    api.DeleteSession(s.id).then(
      () => props.onDeleted(s.id),
      (e: unknown) => {
        setBusy(false);
        const ae = toApiError(e);
        setError(
          ae.code === "busy"
            ? `The session has a run going: stop it first (the stop button in the conversation), then delete. (${ae.message})`
            : `Could not delete the session: ${ae.message}`,
        );
      },
    );
  };

  return (
    <div className="delete-body">
      <p className="mono path-line">{s.workdir}</p>
      <div className="delete-commands">
        {commands.status === "loading" && <Spinner label="Checking its background commands…" visible />}
        {commands.status === "error" && (
          <p>
            Its background commands could not be listed ({commands.error.message}); deleting stops any that still run.
          </p>
        )}
        {commands.status === "ready" && commands.value.length === 0 && <p>It has no background commands running.</p>}
        {commands.status === "ready" && commands.value.length > 0 && (
          <>
            <p>
              <strong>
                Deleting stops {commands.value.length === 1 ? "its background command" : `its ${commands.value.length} background commands`}
              </strong>{" "}
              (with every process they started):
            </p>
            <ul className="command-list" aria-label="Background commands that will be stopped">
              {commands.value.map((c) => (
                <li key={c.id} className="mono">
                  {c.command}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      {error !== "" && (
        <Notice kind="alert">
          <p className="error-text">{error}</p>
        </Notice>
      )}
      <div className="dialog-actions">
        <Button data-delete-cancel="" onClick={props.onClose}>
          Cancel
        </Button>
        <Button variant="danger" disabled={busy || commands.status === "loading"} onClick={remove}>
          {busy ? "Deleting…" : "Delete session"}
        </Button>
      </div>
    </div>
  );
}
