// Review comments: the kernel keeps them (with their state: open, sent,
// addressed, worked out when it lists them); the panel reads the session's
// list when it opens, after each action and whenever the session's changes
// change (a later change may address a comment, or move its lines).
import { createContext, createElement, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { useApi } from "../../backend/context";
import { toApiError } from "../../backend/errors";
import type { Comment, NewComment } from "../../backend/gen/kernel";
import { useSession } from "../session/hooks";
import { useLoad } from "../useLoad";

/** MAX_TEXT is the kernel's bound on a comment's text, in characters (kernel.MaxCommentText). */
export const MAX_TEXT = 10_000;

/** Lines are a range of a change's after side, numbered from 1, both included. */
export interface Lines {
  start: number;
  end: number;
}

/** Comments is what the panel's parts share: the list and the actions, each resolving to an error message ("" when it worked). */
export interface Comments {
  list: Comment[];
  /** error is why the list could not be read ("" when it was). */
  error: string;
  add: (c: NewComment) => Promise<string>;
  edit: (id: string, text: string) => Promise<string>;
  remove: (id: string) => Promise<string>;
  /** send starts the next turn with the unsent comments. */
  send: () => Promise<string>;
}

const none: Comment[] = [];

/** useCommentList reads and changes a session's comments through the kernel. */
export function useCommentList(sessionId: string): Comments {
  const api = useApi();
  const { state, reload } = useLoad(() => api.Comments(sessionId), [api, sessionId]);
  // A change of the session's files may address a comment or move its lines.
  const changes = useSession((s) => Object.keys(s.changes.byId).length);
  const seen = useRef(changes);
  useEffect(() => {
    if (seen.current === changes) return;
    seen.current = changes;
    reload();
  }, [changes, reload]);
  const act = useCallback(
    async (f: () => Promise<unknown>) => {
      try {
        await f();
        return "";
      } catch (e) {
        return toApiError(e).message;
      } finally {
        reload();
      }
    },
    [reload],
  );
  return {
    list: state.value ?? none,
    error: state.status === "error" ? `The comments could not be read: ${state.error.message}.` : "",
    add: (c) => act(() => api.AddComment(c)),
    edit: (id, text) => act(() => api.EditComment(id, text)),
    remove: (id) => act(() => api.RemoveComment(id)),
    send: () => act(() => api.SendComments(sessionId)),
  };
}

const CommentsContext = createContext<Comments | null>(null);

/** CommentsProvider gives the panel's parts one list of the session's comments. */
export function CommentsProvider(props: { sessionId: string; children: ReactNode }) {
  const value = useCommentList(props.sessionId);
  return createElement(CommentsContext.Provider, { value }, props.children);
}

/** useComments is the nearest CommentsProvider's list, or null outside one. */
export function useComments(): Comments | null {
  return useContext(CommentsContext);
}

/** linesLabel names a range of lines: "line 3", "lines 3-5". */
export function linesLabel(l: Lines): string {
  return l.start === l.end ? `line ${l.start}` : `lines ${l.start}-${l.end}`;
}

/** unsent counts the comments not sent to the agent yet. */
export function unsent(list: Comment[]): number {
  return list.filter((c) => !c.sent).length;
}

/** useTarget is the lines a person chose to comment on in one diff, or null; open chooses, close drops the choice. */
export function useTarget(): { target: Lines | null; open: (l: Lines) => void; close: () => void } {
  const [target, setTarget] = useState<Lines | null>(null);
  return { target, open: setTarget, close: useCallback(() => setTarget(null), []) };
}
