// RevertDialog shows a revert's preview before it runs, and the conflict
// step when files changed since: what is there now against what Foya left,
// with overwrite or cancel.
import { useRef } from "react";
import { Dialog } from "radix-ui";
import type { Change as Stored, Conflict } from "../../backend/gen/kernel";
import { DiffView } from "../../ui/diff";
import { useReturnFocus } from "../../ui/returnFocus";
import { effect, relative, words, type Flow } from "./review";

export function RevertDialog(props: { flow: Flow; workdir: string; onConfirm: () => void; onCancel: () => void }) {
  const { flow, workdir, onConfirm, onCancel } = props;
  const cancelRef = useRef<HTMLButtonElement>(null);
  const open = flow.step === "previewing" || flow.step === "confirm" || flow.step === "running" || flow.step === "failed";
  const returnFocus = useReturnFocus(open);
  if (!open) return null;
  const preview = flow.step === "confirm" || flow.step === "running" ? flow.preview : null;
  const conflicts = preview?.conflicts ?? [];
  const blocked = conflicts.filter((c) => !c.forceable);
  const running = flow.step === "running";
  const w = words[flow.verb];
  const title = flow.step === "failed" ? w.failed : conflicts.length > 0 ? "Files changed since" : w.title;
  return (
    <Dialog.Root open onOpenChange={(o) => (!o && !running ? onCancel() : undefined)}>
      <Dialog.Portal>
        <Dialog.Overlay className="review-overlay" />
        <Dialog.Content
          className="review-dialog"
          aria-describedby="review-dialog-what"
          onCloseAutoFocus={returnFocus}
          // Focus lands on Cancel, not on Revert or Overwrite: a key press
          // meant for something else never runs a revert.
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            cancelRef.current?.focus();
          }}
        >
          <Dialog.Title>{title}</Dialog.Title>
          <p id="review-dialog-what" className="review-what">
            {flow.what}
          </p>
          {flow.step === "previewing" && <p role="status">Working out what the revert would do…</p>}
          {flow.step === "failed" && (
            <p role="alert" className="review-error">
              {flow.message}
            </p>
          )}
          {preview !== null && conflicts.length === 0 && <Plan changes={preview.reverted} workdir={workdir} />}
          {preview !== null && conflicts.length > 0 && (
            <Conflicts conflicts={conflicts} workdir={workdir} blocked={blocked.length > 0} />
          )}
          {running && <p role="status">{w.running}</p>}
          <div className="review-dialog-actions">
            {preview !== null && conflicts.length === 0 && preview.reverted.length > 0 && (
              <button type="button" className="review-button review-primary" onClick={onConfirm} disabled={running}>
                {w.button}
              </button>
            )}
            {preview !== null && conflicts.length > 0 && blocked.length === 0 && (
              <button type="button" className="review-button review-danger" onClick={onConfirm} disabled={running}>
                Overwrite
              </button>
            )}
            <button type="button" className="review-button" onClick={onCancel} disabled={running} ref={cancelRef}>
              {flow.step === "failed" || (conflicts.length === 0 && preview?.reverted.length === 0) ? "Close" : "Cancel"}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function Plan({ changes, workdir }: { changes: Stored[]; workdir: string }) {
  if (changes.length === 0) {
    return <p>Nothing to revert: the files already hold what they held before these changes.</p>;
  }
  return (
    <>
      <p>
        {changes.length === 1 ? "This revert makes 1 change" : `This revert makes ${changes.length} changes`}, each
        recorded so it can be undone:
      </p>
      <ul className="review-plan" aria-label="What the revert does">
        {changes.map((c, i) => (
          <li key={`${c.revertOf ?? ""}-${i}`}>
            <span className="review-path">{relative(c.path, workdir)}</span> {effect(c)}
            <Counts added={c.added ?? 0} removed={c.removed ?? 0} />
            {c.diff !== undefined && c.diff !== "" && (
              <details>
                <summary>Diff</summary>
                <DiffView diff={c.diff} path={c.path} />
              </details>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

function Conflicts({ conflicts, workdir, blocked }: { conflicts: Conflict[]; workdir: string; blocked: boolean }) {
  return (
    <>
      <p>
        {blocked
          ? "Foya cannot revert this: something it cannot replace is in the way. Look at the files below, then try again."
          : "These files are no longer what Foya left there. Overwrite replaces what is there now (Foya keeps it, so undoing the revert brings it back); Cancel changes nothing."}
      </p>
      <ul className="review-plan" aria-label="Conflicts">
        {conflicts.map((c) => (
          <li key={c.changeId}>
            <span className="review-path">{relative(c.path, workdir)}</span>: {c.reason}
            {!c.forceable && <span className="review-badge review-badge-danger">cannot be overwritten</span>}
            {c.diff !== undefined && c.diff !== "" && (
              <div className="review-conflict-diff" aria-label={`What is there now in ${relative(c.path, workdir)}`} role="group">
                <p className="review-muted">What is there now (+) against what Foya left (−):</p>
                <DiffView diff={c.diff} path={c.path} />
              </div>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Counts({ added, removed }: { added: number; removed: number }) {
  if (added === 0 && removed === 0) return null;
  return (
    <span className="review-counts" aria-label={`${added} lines added, ${removed} removed`}>
      <span className="review-added">+{added}</span> <span className="review-removed">−{removed}</span>
    </span>
  );
}
