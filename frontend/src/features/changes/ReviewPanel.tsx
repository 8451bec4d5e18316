// ReviewPanel: every file change of the open session by turn, newest turn
// first, with its diff on demand, and the reverts: a hunk or a change at
// once, with its undo beside it; a turn, or everything after a change,
// previewed first; each undoable. Keyboard review (keys.ts) moves between
// changes and hunks and reverts and undoes without the pointer. Reads the
// session's store through the hooks; the kernel's list of changes fills
// in what the events leave out (a revert's diff, a trash location).
import { startTransition, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { X } from "lucide-react";
import { useApi } from "../../backend/context";
import type { Change as Stored, ChangeContents, RevertRequest } from "../../backend/gen/kernel";
import { DiffView, hunkRange, type DiffMode } from "../../ui/diff";
import { FullWindowButton } from "../../ui/panel/SidePanel";
import { useChange, useOutsideMark, useSession, useTurn } from "../session/hooks";
import { countsOf, type Change, type Group } from "./reducer";
import { onDisk, opLabel, relative, useRevertFlow, useStoredChanges, words, type Flow, type Verb } from "./review";
import { reviewKeyOf } from "./keys";
import { Counts, RevertDialog } from "./RevertDialog";
import { CommentsProvider } from "./comments";
import { CommentList, useCommentTarget } from "./Comments";
import { useLoad } from "../useLoad";
import { ReviewedBadge, ReviewedProvider, ReviewMarks, ScopeBar, emptyText, useMarks } from "./Scopes";
import { useScope, useScopedGroups } from "./reviewed";
import { useBeyond } from "./Beyond";
import "./review.css";

// PAGE is how many groups are shown at first, and added by "Show older
// turns": a long session opens fast, its newest turns first.
const PAGE = 20;

// FIRST_ROWS is about how many changes the panel's first render draws
// (whole groups, newest first, up to a screen's worth or more); the rest
// of the page follows once that is on screen, in a background render React
// can interrupt, so a long session paints its newest turns first.
const FIRST_ROWS = 12;

type Start = (what: string, req: RevertRequest, verb?: Verb, direct?: boolean) => void;

/** Cursor is where keyboard review is: a change, and one of its hunks (from 1) or none (0). */
interface Cursor {
  id: string;
  hunk: number;
}

interface Ctx {
  stored: Record<string, Stored>;
  workdir: string;
  start: Start;
  busy: boolean;
  mode: DiffMode;
  setMode: (m: DiffMode) => void;
  /** The session's last change: nothing comes after it. */
  newest: string;
  /** The changes whose diff is shown. */
  opened: ReadonlySet<string>;
  setOpened: (id: string, open: boolean) => void;
  cursor: Cursor;
  setCursor: (c: Cursor) => void;
  /** The hunk the C key asked to comment on: its diff opens the comment box once drawn, then calls commented. */
  commentAsk: Cursor | null;
  commented: () => void;
}

/** rowId and hunkPrefix are the ids keyboard review moves the focus to. */
const rowId = (id: string) => `review-change-${id}`;
const hunkPrefix = (id: string) => `review-hunk-${id}`;

export function ReviewPanel(props: { sessionId: string; onClose: () => void; above?: ReactNode }) {
  return (
    <ReviewedProvider sessionId={props.sessionId}>
      <CommentsProvider sessionId={props.sessionId}>
        <Panel {...props} />
      </CommentsProvider>
    </ReviewedProvider>
  );
}

function Panel(props: { sessionId: string; onClose: () => void; above?: ReactNode }) {
  const beyond = useBeyond(props.sessionId);
  const [scope, setScope] = useScope();
  const groups = useScopedGroups(scope);
  const { byId: stored, error, reload } = useStoredChanges(props.sessionId);
  const { flow, start, confirm, cancel } = useRevertFlow(reload);
  const outside = useSession((s) => s.changes.outside);
  const degraded = useSession((s) => s.changes.watchDegraded);
  const workdir = useSession((s) => {
    const first = s.conversation.entries.find((e) => e.kind === "turn");
    return first ? (s.conversation.turns[first.id]?.workdir ?? "") : "";
  });
  const total = useSession((s) => Object.keys(s.changes.byId).length);
  // The kernel's list (and each change's revert state) is read again when
  // the session's changes change, so a revert made in another window shows
  // here the same.
  const seen = useRef(total);
  useEffect(() => {
    if (seen.current === total) return;
    seen.current = total;
    reload();
  }, [total, reload]);
  const [mode, setMode] = useState<DiffMode>("unified");
  const [shownGroups, setShownGroups] = useState(PAGE);
  const [opened, setOpenedSet] = useState<ReadonlySet<string>>(new Set());
  const [cursor, setCursor] = useState<Cursor>({ id: "", hunk: 0 });
  const setOpened = useCallback((id: string, open: boolean) => {
    setOpenedSet((prev) => {
      if (prev.has(id) === open) return prev;
      const next = new Set(prev);
      if (open) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);
  const busy = flow.step === "previewing" || flow.step === "running" || flow.step === "applying";
  const newest = useSession((s) => newestChange(s.changes.byId));
  const byId = useSession((s) => s.changes.byId);
  // A comment asked for by key opens in the change's diff once it is drawn (ChangeDiff).
  const [commentAsk, setCommentAsk] = useState<Cursor | null>(null);
  const commented = useCallback(() => setCommentAsk(null), []);
  const ctx: Ctx = { stored, workdir, start, busy, mode, setMode, newest, opened, setOpened, cursor, setCursor, commentAsk, commented };
  const outsideList = Object.values(outside);
  const shownIds = useMemo(() => groups.slice(0, shownGroups).flatMap((g) => g.changes), [groups, shownGroups]);
  const [allDrawn, setAllDrawn] = useState(false);
  useEffect(() => {
    // A frame's callback runs before its paint; the task it queues, after.
    let timer = 0;
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => startTransition(() => setAllDrawn(true)));
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  const drawnGroups = allDrawn ? shownGroups : firstGroups(groups, shownGroups);

  // The row the cursor is on takes the focus (its hunk, once its diff is
  // drawn, is focused by ChangeDiff).
  const moved = useRef(false);
  // A row not drawn yet (the first render draws FIRST groups) takes it
  // once the rest is drawn.
  useEffect(() => {
    if (!moved.current || cursor.id === "" || cursor.hunk > 0) return;
    const el = document.getElementById(rowId(cursor.id));
    if (el === null) return;
    moved.current = false;
    el.focus();
    el.scrollIntoView?.({ block: "nearest" });
  }, [cursor, drawnGroups]);

  const marks = useMarks();
  const reviewedNow = useSession((s) => s.changes.reviewed);

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const key = reviewKeyOf(e);
    if (key === null) return;
    const at = Math.max(0, shownIds.indexOf(cursor.id));
    const hunksOf = (id: string) => (byId[id]?.revertOf ? 0 : (stored[id]?.hunks ?? 0));
    const go = (c: Cursor) => {
      moved.current = true;
      setCursor(c);
      if (c.hunk > 0) setOpened(c.id, true);
    };
    const cur = byId[cursor.id];
    switch (key) {
      case "nextChange":
      case "previousChange": {
        if (shownIds.length === 0) return;
        const i = cursor.id === "" ? 0 : key === "nextChange" ? Math.min(at + 1, shownIds.length - 1) : Math.max(at - 1, 0);
        go({ id: shownIds[i] ?? "", hunk: 0 });
        break;
      }
      case "nextHunk":
      case "previousHunk": {
        const fwd = key === "nextHunk";
        const n = hunksOf(cursor.id);
        if (cursor.id !== "" && fwd && cursor.hunk < n) go({ id: cursor.id, hunk: cursor.hunk + 1 });
        else if (cursor.id !== "" && !fwd && cursor.hunk > 1) go({ id: cursor.id, hunk: cursor.hunk - 1 });
        else {
          // On to the next (previous) change that has hunks.
          const order = fwd ? shownIds.slice(cursor.id === "" ? 0 : at + 1) : shownIds.slice(0, at).reverse();
          const id = order.find((x) => hunksOf(x) > 0);
          if (id === undefined) return;
          go({ id, hunk: fwd ? 1 : hunksOf(id) });
        }
        break;
      }
      case "revert": {
        if (cur === undefined || busy) return;
        const st = stored[cur.id];
        const path = relative(cur.path, workdir);
        if (cursor.hunk > 0) {
          if ((st?.revertedHunks ?? []).includes(cursor.hunk)) return;
          start(`hunk ${cursor.hunk} of the change to ${path}`, { changeIds: [cur.id], hunks: [cursor.hunk] }, "revert", true);
        } else if (cur.revertOf === "" && st?.reverted !== true) {
          start(`the change to ${path}`, { changeIds: [cur.id] }, "revert", true);
        }
        break;
      }
      case "undo": {
        if (busy) return;
        if (flow.step === "done" && flow.result.reverted.length > 0) {
          undoDone(flow, start);
          break;
        }
        const reverts = cur === undefined ? [] : (stored[cur.id]?.reverts ?? []);
        const last = reverts[reverts.length - 1];
        if (cur !== undefined && last !== undefined) {
          start(`undo the last revert of ${relative(cur.path, workdir)}`, { changeIds: [last] }, "undo", true);
        }
        break;
      }
      case "toggleDiff":
        if (cur === undefined) return;
        setOpened(cur.id, !opened.has(cur.id));
        // Hiding the diff takes the focused hunk away: the focus goes to its change.
        if (opened.has(cur.id) && cursor.hunk > 0) {
          moved.current = true;
          setCursor({ id: cur.id, hunk: 0 });
        }
        break;
      case "markReviewed":
        if (cur === undefined || cur.revertOf !== "" || marks.busy) return;
        marks.mark(
          { changeIds: [cur.id], reviewed: !reviewedNow[cur.id] },
          `mark the change to ${relative(cur.path, workdir)} as ${reviewedNow[cur.id] ? "not " : ""}reviewed`,
        );
        break;
      case "comment": {
        if (cur === undefined || hunksOf(cur.id) === 0) return;
        // A change's comment goes on its first hunk: go there first.
        const at = { id: cur.id, hunk: cursor.hunk === 0 ? 1 : cursor.hunk };
        if (cursor.hunk === 0) go(at);
        setCommentAsk(at);
        break;
      }
    }
    e.preventDefault();
  };

  return (
    <aside className="review" aria-label="Review changes" onKeyDown={onKeyDown}>
      <header className="review-header">
        <h2>Changes</h2>
        <span className="review-muted">
          {total === 1 ? "1 change" : `${total} changes`} in {groups.length === 1 ? "1 group" : `${groups.length} groups`}
        </span>
        {beyond.actions}
        <FullWindowButton className="review-icon" />
        <button type="button" className="review-icon" aria-label="Close review" onClick={props.onClose}>
          <X size={16} aria-hidden />
        </button>
      </header>
      {props.above}
      {beyond.view}
      <ScopeBar scope={scope} onScope={setScope} shown={groups.slice(0, shownGroups)} />
      {error !== "" && (
        <p role="alert" className="review-error">
          {error}
        </p>
      )}
      {degraded !== "" && (
        <p className="review-note">
          Outside changes are checked every few seconds instead of watched: {degraded}
        </p>
      )}
      {outsideList.length > 0 && (
        <section aria-label="Changed outside Foya" className="review-outside">
          <h3>Changed outside Foya</h3>
          <ul>
            {outsideList.map((m) => (
              <li key={m.path}>
                <span className="review-path">{relative(m.path, workdir)}</span>{" "}
                {m.exists ? "was changed" : "was deleted"} by something other than Foya since Foya last changed it.
              </li>
            ))}
          </ul>
        </section>
      )}
      <CommentList workdir={workdir} />
      {flow.step === "applying" && (
        <p role="status" className="review-done">
          {words[flow.verb].running}
        </p>
      )}
      {flow.step === "done" && <DoneNotice flow={flow} stored={stored} workdir={workdir} start={start} />}
      {groups.length === 0 && total > 0 ? (
        <p className="review-muted">{emptyText(scope)}</p>
      ) : groups.length === 0 ? (
        <p className="review-muted">
          No file changes in this session yet. Each file the agent writes, edits or deletes shows here, by turn, to review and
          revert.
        </p>
      ) : (
        <ol className="review-groups" aria-label="Changes by turn, newest first">
          {groups.slice(0, drawnGroups).map((g) => (
            <GroupView key={g.runId || "reverts"} group={g} ctx={ctx} />
          ))}
        </ol>
      )}
      {groups.length > shownGroups && (
        <button type="button" className="review-button" onClick={() => setShownGroups(shownGroups + PAGE)}>
          Show older turns ({groups.length - shownGroups} more)
        </button>
      )}
      <RevertDialog flow={flow} workdir={workdir} onConfirm={confirm} onCancel={cancel} />
    </aside>
  );
}

function GroupView({ group, ctx }: { group: Group; ctx: Ctx }) {
  const turn = useTurn(group.runId);
  const counts = useCounts(group, ctx.stored);
  const label =
    group.runId === "" ? "Reverts" : turn ? `Turn: ${oneLine(turn.prompt)}` : `Turn ${group.runId}`;
  const headingId = `review-group-${group.runId || "reverts"}`;
  return (
    <li className="review-group" aria-labelledby={headingId}>
      <div className="review-group-header">
        <h3 id={headingId}>{label}</h3>
        <span className="review-muted">{counts.changes === 1 ? "1 change" : `${counts.changes} changes`}</span>
        <Counts added={counts.added} removed={counts.removed} />
        {group.runId !== "" && (
          <button
            type="button"
            className="review-button"
            disabled={ctx.busy}
            onClick={() => ctx.start(`every change of the turn “${oneLine(turn?.prompt ?? group.runId)}”`, { runId: group.runId })}
          >
            Revert turn
          </button>
        )}
      </div>
      <ul className="review-changes">
        {group.changes.map((id) => (
          <ChangeRow key={id} id={id} ctx={ctx} />
        ))}
      </ul>
    </li>
  );
}

// useCounts is countsOf the group, with the kernel's counts for the
// changes whose events carry none (reverts).
function useCounts(group: Group, stored: Record<string, Stored>) {
  const changes = useSession((s) => s.changes);
  return useMemo(() => {
    const out = countsOf(changes, group);
    for (const id of group.changes) {
      const st = stored[id];
      if (changes.byId[id]?.record === null && st !== undefined) {
        out.added += st.added ?? 0;
        out.removed += st.removed ?? 0;
      }
    }
    return out;
  }, [changes, group, stored]);
}

function ChangeRow({ id, ctx }: { id: string; ctx: Ctx }) {
  const { change, revertedBy } = useChange(id);
  const mark = useOutsideMark(change?.path ?? "");
  const reverter = useChange(revertedBy);
  const open = ctx.opened.has(id);
  const setOpen = (o: boolean) => ctx.setOpened(id, o);
  if (change === undefined) return null;
  const st = ctx.stored[id];
  const rec = st ?? change.record;
  const path = relative(change.path, ctx.workdir);
  const added = rec?.added ?? 0;
  const removed = rec?.removed ?? 0;
  const isRevert = change.revertOf !== "";
  const trashPath = st?.trashPath ?? change.record?.trashPath ?? "";
  const deleted = rec !== null && rec !== undefined && rec.existedBefore && !rec.existsAfter;
  // The kernel's state of the change (from the change and its reverts)
  // once its list has the change; until then, what the events say.
  const byEvents = revertedBy !== "" && reverter.revertedBy === "";
  const reverted = st !== undefined ? st.reverted === true : byEvents;
  const reverts = st !== undefined ? (st.reverts ?? []) : byEvents ? [revertedBy] : [];
  const hunks = isRevert ? 0 : (st?.hunks ?? 0);
  const revertedHunks = st?.revertedHunks ?? [];
  const partly = !reverted && revertedHunks.length > 0;
  const undo = (revertId: string, what: string) => ctx.start(what, { changeIds: [revertId] }, "undo", true);
  const current = ctx.cursor.id === id;

  return (
    <li
      className={`review-change${current ? " review-current" : ""}`}
      aria-label={`${path}, ${opLabel(change.op, change.revertOf)}`}
      id={rowId(id)}
      tabIndex={-1}
      onFocus={() => {
        // Focus inside the row (a click, Tab) moves the keyboard cursor there.
        if (!current) ctx.setCursor({ id, hunk: 0 });
      }}
    >
      <div className="review-change-line">
        <span className="review-path" title={change.path}>
          {path}
        </span>
        <span className="review-op">{opLabel(change.op, change.revertOf)}</span>
        <Counts added={added} removed={removed} />
        <ReviewedBadge id={id} />
        {reverted && <span className="review-badge">{isRevert ? "undone" : "reverted"}</span>}
        {partly && (
          <span className="review-badge">
            partly reverted ({revertedHunks.length} of {hunks} hunks)
          </span>
        )}
        {(change.callStatus === "cancelled" || change.callStatus === "interrupted") && (
          <span className="review-badge" title={`The command was ${change.callStatus} after it made this change`}>
            {change.callStatus}
          </span>
        )}
        {(rec?.notRestorable ?? "") !== "" && (
          <span className="review-badge review-badge-warning" title={rec?.notRestorable}>
            not restorable
          </span>
        )}
        {mark !== undefined && (
          <span className="review-badge review-badge-warning">{mark.exists ? "changed outside Foya" : "deleted outside Foya"}</span>
        )}
      </div>
      {isRevert && <RevertOf id={change.revertOf} hunks={st?.ofHunks ?? []} workdir={ctx.workdir} />}
      {(rec?.notRestorable ?? "") !== "" && <p className="review-trash">Not restorable: {rec?.notRestorable}.</p>}
      {deleted && trashPath !== "" && !reverted && (
        <p className="review-trash">
          In the trash: <span className="review-path">{trashPath}</span>
        </p>
      )}
      {deleted && reverted && <p className="review-trash">Restored to {path}.</p>}
      <div className="review-actions">
        <button type="button" className="review-button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Hide diff" : "Show diff"}
        </button>
        <ReviewMarks id={id} path={change.path} label={path} />
        {!reverted && !isRevert && (
          <button
            type="button"
            className="review-button"
            disabled={ctx.busy}
            onClick={() =>
              deleted
                ? ctx.start(`${path} from the trash`, { changeIds: [id] }, "restore", true)
                : ctx.start(partly ? `what is left of the change to ${path}` : `the change to ${path}`, { changeIds: [id] }, "revert", true)
            }
          >
            {change.op === "delete" ? "Restore from trash" : "Revert"}
          </button>
        )}
        {!isRevert && reverts.length > 0 && (
          <button
            type="button"
            className="review-button"
            disabled={ctx.busy}
            onClick={() => undo(reverts[reverts.length - 1] ?? "", `the last revert of ${path}`)}
          >
            Undo
          </button>
        )}
        {isRevert && !reverted && (
          <button
            type="button"
            className="review-button"
            disabled={ctx.busy}
            onClick={() => undo(id, `this revert of ${path}`)}
          >
            Undo this revert
          </button>
        )}
        {ctx.newest !== id && (
          <button
            type="button"
            className="review-button"
            disabled={ctx.busy}
            onClick={() => ctx.start(`every change made after this change to ${path}`, { toChangeId: id })}
          >
            Revert everything after
          </button>
        )}
      </div>
      {open && (
        <ChangeDiff
          change={change}
          ctx={ctx}
          revertedHunks={revertedHunks}
          hunkActionsKey={`${reverts.join(",")}|${ctx.busy}`}
          hunkActions={
            hunks > 0
              ? (n) =>
                  revertedHunks.includes(n) ? (
                    (() => {
                      const by = hunkRevert(n, reverts, ctx.stored);
                      return (
                        by !== "" && (
                          <button
                            type="button"
                            className="diffview-button"
                            disabled={ctx.busy}
                            onClick={() => undo(by, `undo the revert of hunk ${n} of the change to ${path}`)}
                          >
                            Undo hunk {n}
                          </button>
                        )
                      );
                    })()
                  ) : (
                    <button
                      type="button"
                      className="diffview-button"
                      disabled={ctx.busy}
                      onClick={() => ctx.start(`hunk ${n} of the change to ${path}`, { changeIds: [id], hunks: [n] }, "revert", true)}
                    >
                      Revert hunk {n}
                    </button>
                  )
              : undefined
          }
        />
      )}
    </li>
  );
}

// hunkRevert is the revert in force that reverted hunk n: the newest of
// reverts that took that hunk or the whole change.
function hunkRevert(n: number, reverts: string[], stored: Record<string, Stored>): string {
  for (let i = reverts.length - 1; i >= 0; i--) {
    const r = stored[reverts[i] ?? ""];
    const of = r?.ofHunks ?? [];
    if (r !== undefined && (of.length === 0 || of.includes(n))) return r.id;
  }
  return "";
}

// DoneNotice says what the last revert changed on disk, with its undo.
function DoneNotice(props: {
  flow: Extract<Flow, { step: "done" }>;
  stored: Record<string, Stored>;
  workdir: string;
  start: Start;
}) {
  const { flow, stored, workdir, start } = props;
  const recs = flow.result.reverted;
  // What changed on disk says it all ("notes.txt is back to the edit of
  // 10:02"); the request's words would repeat it.
  const lines = recs.slice(0, 3).map((r) => onDisk(r, stored, workdir));
  if (recs.length > 3) lines.push(`And ${recs.length - 3} more.`);
  return (
    <div role="status" className="review-done">
      <span>{recs.length === 0 ? `Nothing changed on disk (${flow.what}).` : lines.join(" ")}</span>
      {recs.length > 0 && (
        <button type="button" className="review-button" onClick={() => undoDone(flow, start)}>
          Undo
        </button>
      )}
    </div>
  );
}

// undoDone undoes what the last revert did: at once when it changed one
// file, previewed when it changed several.
function undoDone(flow: Extract<Flow, { step: "done" }>, start: Start) {
  const recs = flow.result.reverted;
  start(`undo: ${flow.what}`, { changeIds: recs.map((c) => c.id) }, "undo", recs.length === 1);
}

function RevertOf({ id, hunks, workdir }: { id: string; hunks: number[]; workdir: string }) {
  const { change } = useChange(id);
  const which = hunks.length === 0 ? "" : hunks.length === 1 ? `hunk ${hunks[0]} of ` : `hunks ${hunks.join(", ")} of `;
  if (change === undefined) return <p className="review-muted">Reverts {which}change {id}.</p>;
  return (
    <p className="review-muted">
      Reverts {which}the change to {relative(change.path, workdir)} ({opLabel(change.op, change.revertOf)}).
    </p>
  );
}

// ChangeDiff reads a change's diff, and its contents for the whole-file view, when first shown.
function ChangeDiff(props: {
  change: Change;
  ctx: Ctx;
  revertedHunks: readonly number[];
  hunkActions: ((n: number) => ReactNode) | undefined;
  hunkActionsKey: string;
}) {
  const { change, ctx } = props;
  const api = useApi();
  const diffLoad = useLoad(() => api.Diff(change.id), [api, change.id]);
  // Without the contents the view shows the diff's hunks only.
  const contentsLoad = useLoad(() => api.ChangeContents(change.id), [api, change.id]);
  const contents: ChangeContents | null = contentsLoad.state.status === "ready" ? contentsLoad.state.value : null;
  const comment = useCommentTarget(change.id, relative(change.path, ctx.workdir));
  const load = () => {
    diffLoad.reload();
    contentsLoad.reload();
  };
  // The hunk the keyboard cursor is on takes the focus: the view draws
  // its page, wherever it is in the diff, and focuses its header.
  const focusHunk = ctx.cursor.id === change.id ? ctx.cursor.hunk : 0;
  // C on a hunk opens its comment box once the diff is loaded (the view
  // draws the hunk's page: the cursor is on it).
  const drawnDiff = diffLoad.state.value;
  const ask = ctx.commentAsk !== null && ctx.commentAsk.id === change.id ? ctx.commentAsk.hunk : 0;
  const { open: openComment } = comment;
  const { commented } = ctx;
  useEffect(() => {
    if (drawnDiff === undefined || ask === 0) return;
    const lines = hunkRange(drawnDiff, ask);
    if (lines !== null) openComment(lines);
    commented();
  }, [drawnDiff, ask, openComment, commented]);
  if (diffLoad.state.status === "error") {
    return (
      <p role="alert" className="review-error">
        The diff could not be read: {diffLoad.state.error.message}. Try again.{" "}
        <button type="button" className="review-button" onClick={load}>
          Try again
        </button>
      </p>
    );
  }
  const diff = diffLoad.state.value;
  if (diff === undefined) return <p role="status">Reading the diff…</p>;
  const dv = {
    diff,
    path: relative(change.path, ctx.workdir),
    mode: ctx.mode,
    onModeChange: ctx.setMode,
    ...(contents?.beforeKnown ? { oldSource: contents.before } : {}),
    ...(props.hunkActions !== undefined ? { hunkActions: props.hunkActions } : {}),
    revertedHunks: props.revertedHunks,
    hunkActionsKey: props.hunkActionsKey,
    hunkIdPrefix: hunkPrefix(change.id),
    busy: ctx.busy,
    revealHunk: focusHunk,
  };
  return (
    <>
      <DiffView {...dv} onComment={comment.open} />
      {comment.composer}
    </>
  );
}

// firstGroups is how many of groups' first shown the first render draws:
// enough to hold FIRST_ROWS changes.
function firstGroups(groups: readonly Group[], shown: number): number {
  let rows = 0;
  for (let i = 0; i < shown && i < groups.length; i++) {
    rows += groups[i]?.changes.length ?? 0;
    if (rows >= FIRST_ROWS) return i + 1;
  }
  return shown;
}

// newestChange is the ID of the session's last change (the one with the highest seq).
function newestChange(byId: Record<string, Change>): string {
  let best: Change | undefined;
  for (const c of Object.values(byId)) if (best === undefined || c.seq >= best.seq) best = c;
  return best?.id ?? "";
}

function oneLine(s: string): string {
  const line = s.split("\n", 1)[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
