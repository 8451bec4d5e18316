// The inline approvals of the open session's conversation: which requests
// wait (the store's queue less those answered here), where each shows (at
// its call's card), which one has focus, and the answers sent. The
// conversation view mounts ApprovalsProvider around the transcript and the
// composer; the requests (RequestsAt) and the composer's notice
// (WaitingNotice) read it.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { ApiError, useApi } from "../../backend";
import type { ApprovalRequestData } from "../../backend/gen/event";
import type { Answer } from "../../backend/gen/kernel";
import { usePendingApprovals, useSession } from "../session/hooks";
import { anchorOf, type Anchor } from "./anchor";
import { useWaitingAlert } from "./useWaitingAlert";

/** Draft is what the person chose in a request before answering: kept while its card scrolls out of view. */
export interface Draft {
  scope: number;
  message: string;
}

/** Revealer scrolls the transcript to a card; the conversation registers one. */
export type Revealer = (at: Anchor) => void;

interface Approvals {
  /** Requests waiting for an answer here, oldest first. */
  waiting: ApprovalRequestData[];
  /** Where each waiting request shows, by request ID (null: its card is not in the transcript). */
  anchors: ReadonlyMap<string, Anchor | null>;
  answer: (id: string, a: Answer) => Promise<void>;
  /** The request to focus once it is on screen ("" for none). */
  wanted: string;
  /** reveal scrolls to a request and focuses it. */
  reveal: (id: string) => void;
  /**
   * release says the person took focus elsewhere from request id: it is no
   * longer wanted. Until then a request that is drawn again (the transcript
   * handing its rows over, a card scrolled back into view) takes focus again.
   */
  release: (id: string) => void;
  /** deferred says the oldest request did not take focus because the person was typing. */
  deferred: boolean;
  alertError: string;
  drafts: Map<string, Draft>;
  setRevealer: (r: Revealer | null) => void;
  /** leave gives focus back to the composer. */
  leave: () => void;
}

const Ctx = createContext<Approvals | null>(null);

/** useApprovals is the inline approvals' state; null outside an ApprovalsProvider. */
export function useApprovals(): Approvals | null {
  return useContext(Ctx);
}

/**
 * ApprovalsProvider holds the inline approvals of the session whose store
 * is around it. focusComposer gives focus back to the composer (after the
 * last request is answered, on Escape in a request).
 */
export function ApprovalsProvider(props: { focusComposer: () => void; children: ReactNode }) {
  const pending = usePendingApprovals();
  const api = useApi();
  // Answered here and accepted by the kernel, until their approval.answer
  // takes them out of the store: never shown twice.
  const [sent, setSent] = useState<ReadonlySet<string>>(() => new Set());
  const waiting = useMemo(() => pending.filter((p) => !sent.has(p.id)), [pending, sent]);
  // Where each shows, as one string, so that the cards' own updates (a
  // streamed argument, a tail) render nothing here unless an anchor changes.
  const anchorKey = useSession((s) =>
    waiting
      .map((r) => {
        const at = anchorOf(s.conversation.turns, r.runId, r.request.callId);
        return at !== null && s.conversation.cards[at.runId]?.[at.callId] !== undefined ? `${at.runId} ${at.callId}` : "";
      })
      .join("\n"),
  );
  const anchors = useMemo(() => {
    const keys = anchorKey.split("\n");
    return new Map<string, Anchor | null>(
      waiting.map((r, i) => {
        const [runId, callId] = (keys[i] ?? "").split(" ");
        return [r.id, runId && callId ? { runId, callId } : null];
      }),
    );
  }, [anchorKey, waiting]);
  const [alertError, setAlertError] = useState("");
  const onAlertError = useCallback((msg: string) => setAlertError(msg), []);
  useWaitingAlert(waiting, onAlertError);

  const [wanted, setWanted] = useState("");
  const [deferred, setDeferred] = useState(false);
  const revealer = useRef<Revealer | null>(null);
  const anchorsRef = useRef(anchors);
  anchorsRef.current = anchors;
  const drafts = useRef(new Map<string, Draft>()).current;
  const focusComposer = useRef(props.focusComposer);
  focusComposer.current = props.focusComposer;

  const answer = useCallback(
    async (id: string, a: Answer): Promise<void> => {
      try {
        await api.Answer(id, a);
      } catch (e) {
        // The kernel no longer waits for it (answered elsewhere, or the run
        // was cancelled): it is gone, the conversation shows its outcome.
        if (!(e instanceof ApiError && e.code === "conflict")) throw e;
      }
      drafts.delete(id);
      setSent((s) => new Set(s).add(id));
    },
    [api, drafts],
  );
  const reveal = useCallback((id: string) => {
    setDeferred(false);
    setWanted(id);
    const at = anchorsRef.current.get(id);
    if (at) revealer.current?.(at);
  }, []);
  const release = useCallback((id: string) => setWanted((w) => (w === id ? "" : w)), []);
  const setRevealer = useCallback((r: Revealer | null) => {
    revealer.current = r;
  }, []);
  const leave = useCallback(() => focusComposer.current(), []);

  // A new oldest request takes focus, unless the person is typing
  // elsewhere: then the composer's notice says so, and Alt+A goes to it.
  // Focus that the last answered request leaves behind goes back to the
  // composer.
  const head = waiting[0]?.id ?? "";
  const before = useRef("");
  useEffect(() => {
    const prev = before.current;
    before.current = head;
    if (head === "") {
      setDeferred(false);
      if (prev !== "" && focusLost()) focusComposer.current();
      return;
    }
    if (mayTakeFocus()) reveal(head);
    else setDeferred(true);
  }, [head, reveal]);

  // Alt+A goes to the oldest waiting request, from anywhere in the window.
  useEffect(() => {
    if (head === "") return;
    const onKey = (e: KeyboardEvent) => {
      if (!isGoToKey(e) || e.defaultPrevented) return;
      e.preventDefault();
      reveal(head);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [head, reveal]);

  const value = useMemo<Approvals>(
    () => ({ waiting, anchors, answer, wanted, reveal, release, deferred, alertError, drafts, setRevealer, leave }),
    [waiting, anchors, answer, wanted, reveal, release, deferred, alertError, drafts, setRevealer, leave],
  );
  return <Ctx.Provider value={value}>{props.children}</Ctx.Provider>;
}

/** isGoToKey says a key press is Alt+A (by the key's place, as macOS's Option+A types "å"). */
export function isGoToKey(e: Pick<KeyboardEvent, "altKey" | "ctrlKey" | "metaKey" | "shiftKey" | "code">): boolean {
  return e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.code === "KeyA";
}

/**
 * mayTakeFocus says a request that appears may take focus: not while the
 * person types in a text field (an editable one that holds text), nor
 * from a dialog (Settings, a confirmation: it keeps its focus trapped).
 */
export function mayTakeFocus(): boolean {
  const a = document.activeElement;
  if (!(a instanceof HTMLElement) || a === document.body) return true;
  if (a.closest("[data-approval]") !== null) return true;
  if (a.closest('[role="dialog"], [role="alertdialog"]') !== null) return false;
  return !typing(a);
}

function typing(a: HTMLElement): boolean {
  if (a.isContentEditable) return true;
  if (a instanceof HTMLTextAreaElement) return !a.readOnly && !a.disabled && a.value !== "";
  if (a instanceof HTMLInputElement) {
    const text = ["text", "search", "url", "email", "password", "tel", "number", ""].includes(a.type);
    return text && !a.readOnly && !a.disabled && a.value !== "";
  }
  return false;
}

// focusLost says focus is on no element (the one that had it was removed).
function focusLost(): boolean {
  const a = document.activeElement;
  return a === null || a === document.body;
}
