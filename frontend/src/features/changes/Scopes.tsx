// The review panel's views and "reviewed" marks: the view switch ("This
// turn", "Session", "To review") with the count of changes waiting for
// review and "Mark all shown as reviewed"; each change's and each file's
// mark; the session header's Review toggle with its count. A mark goes to
// the kernel (MarkReviewed), which stores it and tells every window with a
// change.reviewed event; the views change when that event is folded in.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { History } from "lucide-react";
import { useApi } from "../../backend/context";
import { toApiError } from "../../backend/errors";
import type { ReviewRequest } from "../../backend/gen/kernel";
import { useSession } from "../session/hooks";
import type { Group } from "./reducer";
import { pathChanges, scopes, shownToReview, useToReview, type Scope } from "./reviewed";
import "./scopes.css";

interface Marks {
  /** mark sends req (its session filled in); what names it in an error. */
  mark: (req: Omit<ReviewRequest, "sessionId">, what: string) => void;
  busy: boolean;
  error: string;
}

const MarksContext = createContext<Marks | null>(null);

/** ReviewedProvider lets the panel's parts mark changes of session sessionId. */
export function ReviewedProvider(props: { sessionId: string; children: ReactNode }) {
  const api = useApi();
  const [busy, setBusy] = useState(0);
  const [error, setError] = useState("");
  const current = useRef(0);
  const mark = useCallback(
    (req: Omit<ReviewRequest, "sessionId">, what: string) => {
      const n = ++current.current;
      setBusy((b) => b + 1);
      setError("");
      api.MarkReviewed({ ...req, sessionId: props.sessionId }).then(
        () => setBusy((b) => b - 1),
        (e: unknown) => {
          setBusy((b) => b - 1);
          if (current.current === n) setError(`Could not ${what}: ${toApiError(e).message}. Nothing was marked; try again.`);
        },
      );
    },
    [api, props.sessionId],
  );
  const value = useMemo(() => ({ mark, busy: busy > 0, error }), [mark, busy, error]);
  return <MarksContext.Provider value={value}>{props.children}</MarksContext.Provider>;
}

/** useMarks marks changes as reviewed or not (within a ReviewedProvider). */
export function useMarks(): Marks {
  const m = useContext(MarksContext);
  if (m === null) throw new Error("review marks used outside a ReviewedProvider");
  return m;
}

/**
 * ScopeBar is the panel's view switch, the count of changes waiting for
 * review, and "Mark all shown as reviewed" for the changes the view
 * lists (shown: the groups on screen).
 */
export function ScopeBar(props: { scope: Scope; onScope: (s: Scope) => void; shown: readonly Group[] }) {
  const { mark, busy, error } = useMarks();
  const count = useToReview();
  const changes = useSession((s) => s.changes);
  const waiting = useMemo(() => shownToReview(changes, props.shown), [changes, props.shown]);
  return (
    <>
      <div className="review-scopes">
        <div role="group" aria-label="Show changes" className="review-segmented">
          {scopes.map((s) => (
            <button
              key={s.scope}
              type="button"
              className="review-segment"
              aria-pressed={props.scope === s.scope}
              onClick={() => props.onScope(s.scope)}
            >
              {s.label}
            </button>
          ))}
        </div>
        <span className="review-muted review-count">
          {count === 0 ? "Nothing to review" : `${count} to review`}
        </span>
        <button
          type="button"
          className="review-button"
          disabled={busy || waiting.length === 0}
          onClick={() => mark({ changeIds: waiting, reviewed: true }, "mark the changes shown as reviewed")}
        >
          Mark all shown as reviewed
        </button>
      </div>
      {error !== "" && (
        <p role="alert" className="review-error">
          {error}
        </p>
      )}
    </>
  );
}

/** emptyText says why a view lists nothing when the session has changes. */
export function emptyText(scope: Scope): string {
  switch (scope) {
    case "turn":
      return "The latest turn changed no files. Choose “Session” to see every change of the session.";
    case "review":
      return "Every change is reviewed. Choose “Session” to see them all; a new change shows here until you mark it.";
    case "session":
      return "No file changes in this session yet.";
  }
}

/**
 * ReviewMarks are a change's "reviewed" badge and marks: the change, and
 * every change of its file when the file has more than one. A revert (a
 * person's own) has none.
 */
export function ReviewMarks(props: { id: string; path: string; label: string }) {
  const { mark, busy } = useMarks();
  const change = useSession((s) => s.changes.byId[props.id]);
  const reviewed = useSession((s) => s.changes.reviewed[props.id] === true);
  const file = useSession((s) => pathsOf(s.changes).get(props.path));
  if (change === undefined || change.revertOf !== "" || change.op === "revert") return null;
  const { label } = props;
  return (
    <>
      <button
        type="button"
        className="review-button"
        disabled={busy}
        onClick={() =>
          mark({ changeIds: [props.id], reviewed: !reviewed }, `mark the change to ${label} as ${reviewed ? "not " : ""}reviewed`)
        }
      >
        {reviewed ? "Mark as not reviewed" : "Mark as reviewed"}
      </button>
      {file !== undefined && file.changes > 1 && (
        <button
          type="button"
          className="review-button"
          disabled={busy}
          aria-label={file.waiting > 0 ? `Mark every change to ${label} as reviewed` : `Mark every change to ${label} as not reviewed`}
          onClick={() =>
            mark(
              { path: props.path, reviewed: file.waiting > 0 },
              `mark every change to ${label} as ${file.waiting > 0 ? "" : "not "}reviewed`,
            )
          }
        >
          {file.waiting > 0 ? "Mark file as reviewed" : "Mark file as not reviewed"}
        </button>
      )}
    </>
  );
}

/** ReviewedBadge says a change is marked as reviewed. */
export function ReviewedBadge(props: { id: string }) {
  const reviewed = useSession((s) => s.changes.reviewed[props.id] === true);
  return reviewed ? <span className="review-badge review-badge-reviewed">reviewed</span> : null;
}

// pathsOf is pathChanges, worked out once per state of the changes (each
// row asks for its path's counts).
const pathCache = new WeakMap<object, ReturnType<typeof pathChanges>>();
function pathsOf(s: Parameters<typeof pathChanges>[0]): ReturnType<typeof pathChanges> {
  let m = pathCache.get(s);
  if (m === undefined) {
    m = pathChanges(s);
    pathCache.set(s, m);
  }
  return m;
}

/**
 * ReviewToggle is the session header's Review button: it opens and closes
 * the panel and shows how many changes wait for review, in its name too
 * ("Review, 3 to review").
 */
export function ReviewToggle(props: { pressed: boolean; onClick: () => void }) {
  const n = useToReview();
  const label = n === 0 ? "Review" : `Review, ${n} to review`;
  return (
    <button
      type="button"
      className="icon-button icon-button-text"
      aria-label={label}
      title={label}
      aria-pressed={props.pressed}
      onClick={props.onClick}
    >
      <span aria-hidden="true" className="icon-button-icon">
        <History size={16} />
      </span>
      <span aria-hidden="true">Review</span>
      {n > 0 && (
        <span aria-hidden="true" className="review-toggle-count">
          {n}
        </span>
      )}
    </button>
  );
}
