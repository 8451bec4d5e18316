// An isolated session in the session header: where it works (a branch, or
// a copy of its folder) and its two actions, Apply to the folder and
// Discard. Once the copy is discarded the header says so and the actions
// are disabled.
import { Copy, GitBranch, Trash2, Undo2 } from "lucide-react";
import { useState } from "react";
import type { Session } from "../../backend";
import { Button } from "../../ui/Button";
import { formatTime } from "../sessions/format";
import { useSession } from "../session/hooks";
import { ApplyDialog } from "./ApplyDialog";
import { DiscardDialog } from "./DiscardDialog";
import "./isolation.css";

/** discardedOf is when session's copy was discarded ("" while it is there), from the list or the session's events. */
function useDiscarded(s: Session): string {
  const fromEvents = useSession((st) => st.isolation.discarded);
  const listed = s.isolation?.discardedAt ?? "";
  return listed !== "" ? listed : fromEvents;
}

/** whereWords says where an isolated session works, in words. */
export function whereWords(s: Session): string {
  const i = s.isolation;
  if (i === undefined) return "";
  return i.kind === "worktree" ? `Worktree on branch ${i.branch ?? ""}` : "Isolated copy of the folder";
}

/** IsolationWhere is the header's line for an isolated session: its branch or copy, from its folder, or that its copy is gone. */
export function IsolationWhere(props: { session: Session }) {
  const s = props.session;
  const discarded = useDiscarded(s);
  if (s.isolation === undefined) return null;
  const worktree = s.isolation.kind === "worktree";
  return (
    <p className={`session-isolated${discarded !== "" ? " is-discarded" : ""}`} title={`Works in ${s.workdir}, made from ${s.projectId}`}>
      {worktree ? <GitBranch size={13} aria-hidden="true" /> : <Copy size={13} aria-hidden="true" />}{" "}
      {discarded !== "" ? (
        <span title={`${worktree ? `Its worktree (branch ${s.isolation.branch ?? ""})` : "Its isolated copy"} was discarded: the session cannot run again.`}>
          {worktree ? "Worktree" : "Copy"} discarded <time dateTime={discarded}>{formatTime(discarded)}</time>: it cannot run again
        </span>
      ) : (
        <span className="session-isolated-kind">{whereWords(s)}</span>
      )}
    </p>
  );
}

/** IsolationActions are the header's Apply to the folder and Discard buttons with their dialogs. */
export function IsolationActions(props: { session: Session }) {
  const s = props.session;
  const discarded = useDiscarded(s);
  const setup = useSession((st) => st.isolation.setup.state === "running");
  const [dialog, setDialog] = useState<"apply" | "discard" | null>(null);
  if (s.isolation === undefined) return null;
  const gone = discarded !== "";
  const why = gone ? "The copy was discarded" : setup ? "Wait for the setup command to end" : undefined;
  return (
    <div className="isolation-actions" role="group" aria-label="Isolated copy">
      <Button variant="ghost" onClick={() => setDialog("apply")} disabled={gone || setup} title={why ?? "Bring the session’s changes back into the folder: a preview first"}>
        <Undo2 size={15} aria-hidden="true" /> <span className="isolation-action-text">Apply to the folder…</span>
      </Button>
      <Button variant="ghost" onClick={() => setDialog("discard")} disabled={gone || setup} title={why ?? "Remove the isolated copy"}>
        <Trash2 size={15} aria-hidden="true" /> <span className="isolation-action-text">Discard…</span>
      </Button>
      <ApplyDialog sessionId={s.id} folder={s.isolation.folder || s.projectId} open={dialog === "apply"} onClose={() => setDialog(null)} />
      <DiscardDialog session={s} open={dialog === "discard"} onClose={() => setDialog(null)} />
    </div>
  );
}

/**
 * IsolationReviewNote heads the review panel of an isolated session: the
 * changes listed are in its worktree or copy, not in the folder, until
 * applied; Apply to the folder is at hand.
 */
export function IsolationReviewNote(props: { session: Session }) {
  const s = props.session;
  const discarded = useDiscarded(s);
  const setup = useSession((st) => st.isolation.setup.state === "running");
  const [open, setOpen] = useState(false);
  if (s.isolation === undefined) return null;
  const where = s.isolation.kind === "worktree" ? `the worktree on branch ${s.isolation.branch ?? ""}` : "the session’s copy";
  return (
    <div className="isolation-review-note">
      <p>
        {discarded !== ""
          ? `These changes were made in ${where}, which was discarded: what was not applied is gone from disk.`
          : `These changes are in ${where}, not in the folder, until you apply them.`}
      </p>
      {discarded === "" && (
        <Button variant="primary" disabled={setup} onClick={() => setOpen(true)}>
          <Undo2 size={15} aria-hidden="true" /> Apply to the folder…
        </Button>
      )}
      <ApplyDialog sessionId={s.id} folder={s.isolation.folder || s.projectId} open={open} onClose={() => setOpen(false)} />
    </div>
  );
}
