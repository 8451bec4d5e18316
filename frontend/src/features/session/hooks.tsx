// React access to a session's store: a provider and one hook per thing a
// view shows. Each hook selects the smallest piece it needs, so a view
// renders again only when that piece changes: a streamed token changes one
// step's stream, and only the component showing that stream renders.
import { createContext, useContext, useEffect, useMemo, type ReactNode } from "react";
import { useStore } from "zustand";
import type { ApprovalRequestData, Todo } from "../../backend/gen/event";
import type { Change, Group, OutsideMark } from "../changes/reducer";
import type { Entry, ToolCard, Turn } from "../conversation/reducer";
import { follow, type SessionState, type SessionStore, type Subscribe } from "./store";

const StoreContext = createContext<SessionStore | null>(null);

export function SessionStoreProvider({ store, children }: { store: SessionStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

/**
 * useFollow keeps store following the transport's subscribe while the
 * calling component is mounted; a remount resumes after the store's last
 * seq. subscribe must be stable (the transport's method, bound once).
 */
export function useFollow(store: SessionStore, subscribe: Subscribe): void {
  useEffect(() => follow(store, subscribe), [store, subscribe]);
}

function useSessionStore(): SessionStore {
  const store = useContext(StoreContext);
  if (store === null) throw new Error("useSession... used outside a SessionStoreProvider");
  return store;
}

/** useSession selects from the session's state; select must return stored objects, not new ones. */
export function useSession<T>(select: (s: SessionState) => T): T {
  return useStore(useSessionStore(), select);
}

/** useEntries is the conversation in order (turns and mode switches between them). */
export function useEntries(): Entry[] {
  return useSession((s) => s.conversation.entries);
}

/** useTurn is one turn: prompt, steps with their cards' keys, status. Not its streamed text. */
export function useTurn(runId: string): Turn | undefined {
  return useSession((s) => s.conversation.turns[runId]);
}

/** useStepText is the text streamed so far in one step of a turn. */
export function useStepText(runId: string, step: number): string {
  return useSession((s) => s.conversation.streams[runId]?.[step]?.text ?? "");
}

/** useStepReasoning is the reasoning streamed so far in one step of a turn. */
export function useStepReasoning(runId: string, step: number): string {
  return useSession((s) => s.conversation.streams[runId]?.[step]?.reasoning ?? "");
}

/** useCard is the card of call callId in run runId (a step lists its cards' call IDs). */
export function useCard(runId: string, callId: string): ToolCard | undefined {
  return useSession((s) => s.conversation.cards[runId]?.[callId]);
}

/** usePendingApprovals is the queue of requests waiting for a person, oldest first. */
export function usePendingApprovals(): ApprovalRequestData[] {
  return useSession((s) => s.approvals.pending);
}

/** useMode is the session's approval mode ("" when not known yet). */
export function useMode(): string {
  return useSession((s) => s.approvals.mode);
}

/** useChangeGroups is the session's file changes by turn, newest turn first. */
export function useChangeGroups(): Group[] {
  const groups = useSession((s) => s.changes.groups);
  return useMemo(() => [...groups].reverse(), [groups]);
}

/** useChange is one file change and the ID of the change that reverted it ("" if none). */
export function useChange(id: string): { change: Change | undefined; revertedBy: string } {
  const change = useSession((s) => s.changes.byId[id]);
  const revertedBy = useSession((s) => s.changes.revertedBy[id] ?? "");
  return useMemo(() => ({ change, revertedBy }), [change, revertedBy]);
}

/** useOutsideMark says whether a path was changed outside Foya since Foya last changed it. */
export function useOutsideMark(path: string): OutsideMark | undefined {
  return useSession((s) => s.changes.outside[path]);
}

/** useTasks is the session's task list, as the model last wrote it with todo_write. */
export function useTasks(): readonly Todo[] {
  return useSession((s) => s.tasks.todos);
}

