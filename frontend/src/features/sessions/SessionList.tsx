import { Copy, Folder, GitBranch, GitFork, Pencil, Trash2 } from "lucide-react";
import { useEffect, useId, useImperativeHandle, useRef, useState, type CSSProperties, type KeyboardEvent, type Ref } from "react";
import { toApiError, useApi, type Session } from "../../backend";
import { IconButton } from "../../ui/IconButton";
import { ErrorNotice } from "../../ui/ErrorNotice";
import { Spinner } from "../../ui/Spinner";
import { formatShort, formatTime } from "./format";
import { statusOf, type Status } from "./reducer";
import { folderName, matchSessions, titleOf } from "./search";
import { byProject, forkLabel, isolationLabel } from "./forks";
import type { ListState } from "./useSessionList";
import "./sessions.css";

export interface SessionListProps {
  state: ListState;
  openId: string | null;
  onOpen: (id: string) => void;
  onReload: () => void;
  /** onRenamed gets the session as the kernel returned it after a rename. */
  onRenamed: (s: Session) => void;
  /** onDelete asks to delete a session (the shell confirms first). */
  onDelete: (s: Session) => void;
  /** searchRef is the search field, for the shell's Ctrl/Cmd+K. */
  searchRef?: Ref<HTMLInputElement>;
  ref?: Ref<SessionListHandle>;
}

/** SessionListHandle is what the shell asks of the list once a session it asked to delete is gone. */
export interface SessionListHandle {
  /**
   * focusAfterDelete focuses the session below the one last asked to be
   * deleted, else the one above it; false when neither is listed.
   */
  focusAfterDelete(): boolean;
}

/**
 * SessionList is the sidebar's list of sessions with a search field (title
 * and folder), each session's live status, inline rename and a delete
 * button. Keyboard: the list is one tab stop; arrow keys, Home and End move
 * between sessions, Enter opens, F2 renames, Delete asks to delete; arrow
 * down in the search field goes to the first match.
 */
export function SessionList(props: SessionListProps) {
  const { state } = props;
  const [query, setQuery] = useState("");
  const [current, setCurrent] = useState<string | null>(props.openId);
  const [renaming, setRenaming] = useState<string | null>(null);
  const items = useRef(new Map<string, HTMLButtonElement>());
  // The neighbours of the session last asked to be deleted, nearest below first.
  const leaving = useRef<string[]>([]);
  // Sessions are grouped by their project folder; forks are listed as
  // branches, below the session they came from.
  const tree = byProject(matchSessions(state.live.sessions, query));
  const shown = tree.map((b) => b.session);
  const byId = new Map(state.live.sessions.map((s) => [s.id, s]));
  const currentId = shown.some((s) => s.id === current) ? current : (shown.find((s) => s.id === props.openId)?.id ?? shown[0]?.id ?? null);

  useEffect(() => {
    if (props.openId !== null) setCurrent(props.openId);
  }, [props.openId]);

  useImperativeHandle(
    props.ref,
    () => ({
      focusAfterDelete: () => {
        const id = leaving.current.find((x) => items.current.has(x));
        if (id === undefined) return false;
        setCurrent(id);
        items.current.get(id)?.focus();
        return true;
      },
    }),
    [],
  );
  const askDelete = (s: Session, i: number) => {
    leaving.current = [shown[i + 1]?.id, shown[i - 1]?.id].filter((x): x is string => x !== undefined);
    props.onDelete(s);
  };

  const focusAt = (i: number) => {
    const s = shown[Math.max(0, Math.min(shown.length - 1, i))];
    if (s === undefined) return;
    setCurrent(s.id);
    items.current.get(s.id)?.focus();
  };

  const onItemKey = (e: KeyboardEvent, s: Session, i: number) => {
    switch (e.key) {
      case "ArrowDown":
        focusAt(i + 1);
        break;
      case "ArrowUp":
        focusAt(i - 1);
        break;
      case "Home":
        focusAt(0);
        break;
      case "End":
        focusAt(shown.length - 1);
        break;
      case "F2":
        setRenaming(s.id);
        break;
      case "Delete":
        askDelete(s, i);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const renamed = (s: Session | null, id: string) => {
    setRenaming(null);
    if (s !== null) props.onRenamed(s);
    // Focus goes back to the session, as after any edit in place.
    requestAnimationFrame(() => items.current.get(id)?.focus());
  };

  return (
    <div className="session-list">
      <div className="session-search">
        <input
          ref={props.searchRef}
          type="search"
          className="input"
          aria-label="Search sessions"
          placeholder="Search sessions"
          title="Search by title or folder"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown" && shown.length > 0) {
              e.preventDefault();
              focusAt(0);
            } else if (e.key === "Escape" && query !== "") {
              e.preventDefault();
              setQuery("");
            }
          }}
        />
      </div>
      {state.load === "loading" && state.live.sessions.length === 0 && (
        <div className="session-list-note">
          <Spinner label="Loading sessions…" visible />
        </div>
      )}
      {state.load === "error" && (
        <div className="session-list-note">
          <ErrorNotice title="Could not load sessions" error={state.message} onRetry={props.onReload} retryLabel="Try again" />
        </div>
      )}
      {state.load === "ready" && state.live.sessions.length === 0 && (
        <p className="session-list-note muted" role="status">
          No sessions yet. Create one with “New session”.
        </p>
      )}
      {state.live.sessions.length > 0 && shown.length === 0 && (
        <p className="session-list-note muted" role="status">
          No session’s title or folder matches “{query.trim()}”. Try other words, or press Escape in the search field to
          see every session.
        </p>
      )}
      {shown.length > 0 && (
        <ul className="sessions" aria-label="Sessions">
          {shown.map((s, i) => [
            tree[i]!.first && (
              // The project's heading: not a list item (the list's items are its sessions).
              <li key={`project:${tree[i]!.project}`} role="presentation" className="session-group" title={tree[i]!.project}>
                <Folder size={13} aria-hidden="true" /> <span className="session-group-name">{folderName(tree[i]!.project)}</span>
              </li>
            ),
            <li
              key={s.id}
              className={`session-row${s.id === props.openId ? " is-open" : ""}${tree[i]!.depth > 0 ? " is-fork" : ""}`}
              style={{ "--depth": Math.min(tree[i]!.depth, 4) } as CSSProperties}
            >
              {renaming === s.id ? (
                <RenameField session={s} onDone={(x) => renamed(x, s.id)} />
              ) : (
                <SessionItem
                  session={s}
                  forked={forkLabel(s, byId.get(s.forkedFrom ?? ""))}
                  status={statusOf(state.live, s.id)}
                  open={s.id === props.openId}
                  tabbable={s.id === currentId}
                  buttonRef={(el) => {
                    if (el === null) items.current.delete(s.id);
                    else items.current.set(s.id, el);
                  }}
                  onOpen={() => {
                    setCurrent(s.id);
                    props.onOpen(s.id);
                  }}
                  onKeyDown={(e) => onItemKey(e, s, i)}
                  onFocus={() => setCurrent(s.id)}
                  onRename={() => setRenaming(s.id)}
                  onDelete={() => askDelete(s, i)}
                />
              )}
            </li>,
          ])}
        </ul>
      )}
    </div>
  );
}

function SessionItem(props: {
  session: Session;
  /** forked says where the session was forked from ("" for none). */
  forked: string;
  status: Status;
  open: boolean;
  tabbable: boolean;
  buttonRef: (el: HTMLButtonElement | null) => void;
  onOpen: () => void;
  onKeyDown: (e: KeyboardEvent) => void;
  onFocus: () => void;
  onRename: () => void;
  onDelete: () => void;
}) {
  const { session: s } = props;
  const detailId = useId();
  const forkId = useId();
  const isoId = useId();
  const title = titleOf(s);
  const isolated = isolationLabel(s);
  const described = [props.forked !== "" ? forkId : "", isolated !== "" ? isoId : "", detailId].filter((x) => x !== "").join(" ");
  const tab = props.tabbable ? 0 : -1;
  return (
    <>
      <button
        ref={props.buttonRef}
        type="button"
        className="session-item"
        aria-label={title}
        title={title}
        aria-describedby={described}
        aria-current={props.open ? "page" : undefined}
        tabIndex={tab}
        onClick={props.onOpen}
        onKeyDown={props.onKeyDown}
        onFocus={props.onFocus}
      >
        <span className="session-title">{title}</span>
        {props.forked !== "" && (
          <span className="session-fork" id={forkId} title={props.forked}>
            <GitFork size={12} aria-hidden="true" /> {props.forked}
          </span>
        )}
        {isolated !== "" && (
          <span
            className={`session-isolation${(s.isolation?.discardedAt ?? "") !== "" ? " is-discarded" : ""}`}
            id={isoId}
            title={`Isolated: works in ${s.isolation?.kind === "worktree" ? `a git worktree on branch ${s.isolation.branch ?? ""}` : "a copy of the folder"}, ${s.workdir}`}
          >
            {s.isolation?.kind === "worktree" ? <GitBranch size={12} aria-hidden="true" /> : <Copy size={12} aria-hidden="true" />}{" "}
            <span className="session-isolation-name">{isolated}</span>
          </span>
        )}
        <span className="session-detail" id={detailId}>
          {/* The project's heading above shows the folder; screen readers hear it with the session. */}
          <span className="visually-hidden">in {folderName(s.projectId !== "" ? s.projectId : s.workdir)}</span>
          <StatusText status={props.status} updatedAt={s.updatedAt} />
          {(s.toReview ?? 0) > 0 && <span className="session-status session-review">{s.toReview} to review</span>}
        </span>
      </button>
      <span className="session-actions">
        <IconButton label={`Rename ${title}`} icon={<Pencil size={15} />} tabIndex={tab} onClick={props.onRename} />
        <IconButton label={`Delete ${title}`} icon={<Trash2 size={15} />} tabIndex={tab} onClick={props.onDelete} />
      </span>
    </>
  );
}

/** StatusText says what a session is doing, in words (never by colour alone). */
function StatusText(props: { status: Status; updatedAt: string }) {
  const { status } = props;
  if (status.waiting.length > 0) {
    const n = status.waiting.length;
    return <span className="session-status status-waiting">{n === 1 ? "Waiting for approval" : `${n} approvals waiting`}</span>;
  }
  if (status.running) return <span className="session-status status-running">Running</span>;
  if (status.setup === true) return <span className="session-status status-running">Setting up</span>;
  switch (status.lastEnd) {
    case "failed":
      return <span className="session-status status-failed">Last run failed</span>;
    case "interrupted":
      return <span className="session-status status-failed">Last run interrupted</span>;
    case "cancelled":
      return <span className="session-status">Last run cancelled</span>;
  }
  return (
    <time className="session-status" dateTime={props.updatedAt} title={formatTime(props.updatedAt)}>
      {formatShort(props.updatedAt)}
    </time>
  );
}

/** maxTitle is the longest title the field takes, in characters. */
export const maxTitle = 200;

/**
 * RenameField edits a session's title in place: Enter saves (UpdateSession),
 * Escape keeps the old title; leaving the field saves a changed title.
 * onDone gets the renamed session, or null when nothing changed.
 */
export function RenameField(props: { session: Session; onDone: (s: Session | null) => void }) {
  const api = useApi();
  const [value, setValue] = useState(props.session.title);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState("");
  const errorId = useId();
  const done = useRef(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const finish = (s: Session | null) => {
    if (done.current) return;
    done.current = true;
    props.onDone(s);
  };

  const save = () => {
    if (saving || done.current) return;
    const title = value.trim();
    if (title === props.session.title.trim()) {
      finish(null);
      return;
    }
    if (title === "") {
      setError(`A title cannot be empty: type one, or press Escape to keep “${titleOf(props.session)}”.`);
      return;
    }
    if ([...title].length > maxTitle) {
      setError(`A title is at most ${maxTitle} characters; this one has ${[...title].length}.`);
      return;
    }
    setSaving(true);
    setError("");
    api.UpdateSession(props.session.id, { title }).then(
      (s) => finish(s),
      (e: unknown) => {
        setSaving(false);
        setError(`Could not rename the session: ${toApiError(e).message}. Try again, or press Escape.`);
        input.current?.focus();
      },
    );
  };

  return (
    <div className="rename">
      <input
        ref={input}
        className="input"
        aria-label="Session title"
        aria-invalid={error !== "" ? true : undefined}
        aria-describedby={error !== "" ? errorId : undefined}
        value={value}
        disabled={saving}
        onChange={(e) => {
          setValue(e.target.value);
          setError("");
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            save();
          } else if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            finish(null);
          }
        }}
        onBlur={() => {
          if (error === "" && !saving) save();
        }}
      />
      {error !== "" && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
