// Review comments in the panel: a comment box under a diff for the line or
// hunk a person chose, and the list of the session's comments ("Comments
// (N)"), each editable and removable, with "Send to the agent", which
// starts the next turn with the unsent ones as the user's message.
import { useEffect, useId, useRef, useState, type ReactElement } from "react";
import type { Comment } from "../../backend/gen/kernel";
import { linesLabel, MAX_TEXT, unsent, useComments, useTarget, type Lines } from "./comments";
import { relative } from "./review";
import "./comments.css";

/**
 * CommentEditor is a comment's text box: Ctrl+Enter (or ⌘+Enter) saves,
 * Escape cancels. What was typed stays while a save fails; the error says
 * why.
 */
export function CommentEditor(props: {
  label: string;
  initial?: string;
  saveLabel: string;
  onSave: (text: string) => Promise<string>;
  onCancel: () => void;
}) {
  const [text, setText] = useState(props.initial ?? "");
  const [error, setError] = useState("");
  const [saving, setSaving] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const hint = useId();
  useEffect(() => box.current?.focus(), []);
  const save = async () => {
    if (saving) return;
    setSaving(true);
    const err = await props.onSave(text);
    setSaving(false);
    setError(err);
  };
  const over = text.length > MAX_TEXT;
  return (
    <div className="review-comment-editor">
      <textarea
        ref={box}
        aria-label={props.label}
        aria-describedby={hint}
        value={text}
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void save();
          } else if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            props.onCancel();
          }
        }}
      />
      <p id={hint} className="review-muted">
        Ctrl+Enter saves, Escape cancels.
        {over && ` ${text.length} characters: at most ${MAX_TEXT} fit.`}
      </p>
      {error !== "" && (
        <p role="alert" className="review-error">
          {error}
        </p>
      )}
      <div className="review-actions">
        <button type="button" className="review-button" disabled={saving} onClick={() => void save()}>
          {props.saveLabel}
        </button>
        <button type="button" className="review-button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * useCommentTarget lets a diff take comments: open is the diff's
 * onComment, composer the comment box for the lines chosen (null until
 * some are).
 */
export function useCommentTarget(changeId: string, path: string): { open: (l: Lines) => void; composer: ReactElement | null } {
  const comments = useComments();
  const { target, open, close } = useTarget();
  if (comments === null) return { open, composer: null };
  const composer =
    target === null ? null : (
      <div className="review-comment-new" role="group" aria-label={`New comment on ${path} ${linesLabel(target)}`}>
        <CommentEditor
          key={`${target.start}-${target.end}`}
          label={`Comment on ${path} ${linesLabel(target)}`}
          saveLabel="Save comment"
          onCancel={close}
          onSave={async (text) => {
            const err = await comments.add({ changeId, startLine: target.start, endLine: target.end, text });
            if (err === "") close();
            return err;
          }}
        />
      </div>
    );
  return { open, composer };
}

/** CommentList is the session's comments, each with its state, and "Send to the agent". */
export function CommentList(props: { workdir: string }) {
  const comments = useComments();
  const [error, setError] = useState("");
  const [sending, setSending] = useState(false);
  const [sentNote, setSentNote] = useState("");
  if (comments === null) return null;
  if (comments.list.length === 0 && error === "") {
    return comments.error === "" ? null : <p className="review-error">{comments.error}</p>;
  }
  const n = comments.list.length;
  const toSend = unsent(comments.list);
  const send = async () => {
    setSending(true);
    setSentNote("");
    const err = await comments.send();
    setSending(false);
    setError(err);
    if (err === "") setSentNote(toSend === 1 ? "1 comment sent to the agent." : `${toSend} comments sent to the agent.`);
  };
  return (
    <section className="review-comments" aria-labelledby="review-comments-heading">
      <div className="review-group-header">
        <h3 id="review-comments-heading">Comments ({n})</h3>
        <button
          type="button"
          className="review-button"
          disabled={sending || toSend === 0}
          title={toSend === 0 ? "Every comment was sent" : "Start the next turn with the comments not sent yet"}
          onClick={() => void send()}
        >
          Send to the agent
        </button>
      </div>
      {comments.error !== "" && <p className="review-error">{comments.error}</p>}
      {error !== "" && (
        <p role="alert" className="review-error">
          {error}
        </p>
      )}
      {sentNote !== "" && <p className="review-muted">{sentNote}</p>}
      <ol className="review-comment-list" aria-label="Comments">
        {comments.list.map((c) => (
          <CommentItem key={c.id} c={c} workdir={props.workdir} />
        ))}
      </ol>
    </section>
  );
}

const stateLabel: Record<string, string> = { open: "not sent", sent: "sent", addressed: "addressed" };

function CommentItem({ c, workdir }: { c: Comment; workdir: string }) {
  const comments = useComments();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState("");
  if (comments === null) return null;
  const path = relative(c.path, workdir);
  const where = `${path} ${linesLabel({ start: c.startLine, end: c.endLine })}`;
  const removed = c.moved === true && (c.currentEnd ?? 0) < (c.currentStart ?? 0);
  return (
    <li className="review-comment" aria-label={`Comment on ${where}`}>
      <div className="review-change-line">
        <span className="review-path" title={c.path}>
          {where}
        </span>
        <span className={`review-badge${c.state === "addressed" ? " review-badge-done" : ""}`}>{stateLabel[c.state] ?? c.state}</span>
      </div>
      {c.moved === true && c.state !== "addressed" && (
        <p className="review-note">
          The lines moved or changed since this comment was made;{" "}
          {removed
            ? "they are no longer in the file."
            : `it is sent with the file's current ${linesLabel({ start: c.currentStart ?? 0, end: c.currentEnd ?? 0 })}.`}
        </p>
      )}
      <pre className="review-comment-quote" aria-label={`Lines quoted from ${path}`}>
        {c.quote}
      </pre>
      {editing ? (
        <CommentEditor
          label={`Edit the comment on ${where}`}
          initial={c.text}
          saveLabel="Save"
          onCancel={() => setEditing(false)}
          onSave={async (text) => {
            const err = await comments.edit(c.id, text);
            if (err === "") setEditing(false);
            return err;
          }}
        />
      ) : (
        <p className="review-comment-text">{c.text}</p>
      )}
      {error !== "" && (
        <p role="alert" className="review-error">
          {error}
        </p>
      )}
      {!editing && (
        <div className="review-actions">
          <button type="button" className="review-button" aria-label={`Edit the comment on ${where}`} onClick={() => setEditing(true)}>
            Edit
          </button>
          <button
            type="button"
            className="review-button"
            aria-label={`Remove the comment on ${where}`}
            onClick={() => void comments.remove(c.id).then(setError)}
          >
            Remove
          </button>
        </div>
      )}
    </li>
  );
}
