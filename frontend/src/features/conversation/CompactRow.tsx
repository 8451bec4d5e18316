// A compaction of the session's context in the transcript (docs/ui.md,
// "Compaction"): where the model's requests started to send a summary in
// place of the oldest messages, what the note kept (the summary, the file
// changes and tasks listed exactly, the messages covered) and, for the
// compaction in force, Undo. A compaction that failed says why.
import { memo, useState } from "react";
import { useApi } from "../../backend/context";
import { useSession } from "../session/hooks";
import { compactionInForce, runningTurnId } from "./reducer";
import { ModelText } from "./Markdown";

function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : `${n}`;
}

export const CompactRow = memo(function CompactRow({ id }: { id: string }) {
  const api = useApi();
  const sessionId = useSession((s) => s.sessionId);
  const note = useSession((s) => s.conversation.compactions[id]);
  const inForce = useSession((s) => compactionInForce(s.conversation.compactions)) === id;
  const running = useSession((s) => runningTurnId(s.conversation) !== "");
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState("");
  if (note === undefined) return null;
  if (note.error !== "") {
    return (
      <p className="convo-mode convo-compact convo-status-bad" role="status">
        Compacting the context failed{note.stopped ? " and the run stopped" : "; the run went on uncompacted"}: {note.error}. Nothing of the history was lost.
      </p>
    );
  }
  const who = note.agent ? "The sub-agent's context was compacted" : note.by === "user" ? "You compacted the context" : "The context was compacted";
  const undo = () => {
    setBusy(true);
    setErr("");
    api
      .UndoCompaction(sessionId, id)
      .catch((e: unknown) => setErr(e instanceof Error ? e.message : String(e)))
      .finally(() => setBusy(false));
  };
  return (
    <section className="convo-compact" aria-label="Compaction">
      <p className="convo-compact-rule" aria-hidden="true">
        <span>
          {note.agent ? "Sub-agent's context compacted" : "Context compacted"} · {tokens(note.tokensBefore)} → {tokens(note.tokensAfter)} tokens
          {note.undone ? " · undone" : ""}
        </span>
      </p>
      <p className="convo-mode">
        {who}: messages 1 to {note.upto} ({note.turns} {note.turns === 1 ? "turn" : "turns"}) are summarised, about {tokens(note.tokensBefore)} to{" "}
        {tokens(note.tokensAfter)} tokens. Kept exactly: {note.files} {note.files === 1 ? "file" : "files"} changed, {note.tasks}{" "}
        {note.tasks === 1 ? "task" : "tasks"}, and the newest messages. The full history stays stored.
        {note.undone ? " Undone: later requests send those messages again." : ""}{" "}
        <button type="button" className="convo-link" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Hide the summary" : "Show the summary"}
        </button>
        {inForce && !note.undone && !note.agent ? (
          <>
            {" "}
            <button type="button" className="convo-link" disabled={busy || running} title={running ? "Wait for the run to end" : undefined} onClick={undo}>
              Undo
            </button>
          </>
        ) : null}
      </p>
      {err !== "" ? (
        <p className="convo-mode convo-status-bad" role="alert">
          {err}
        </p>
      ) : null}
      {open ? (
        <div className="convo-compact-summary">
          <ModelText text={note.summary} />
        </div>
      ) : null}
    </section>
  );
});
