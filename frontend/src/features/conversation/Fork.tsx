// Fork from a prompt (issue 29 item 2): the "Fork from here" action on
// each of the person's prompts, and the draft a fork opens with. The
// shell provides what a fork needs (ForkProvider): the open session and
// what to do with the new one (list it, open it).
import { GitFork } from "lucide-react";
import { createContext, useContext, useEffect, useState, type ReactNode, type RefObject } from "react";
import { toApiError, useApi } from "../../backend";
import type { Forked } from "../../backend/gen/kernel";
import { useSession } from "../session/hooks";
import type { Entry } from "./reducer";

/** ForkTarget is what the Fork action of a session's prompts needs. */
export interface ForkTarget {
  sessionId: string;
  /** onForked lists and opens the new session. */
  onForked: (f: Forked) => void;
}

const ForkContext = createContext<ForkTarget | null>(null);

/** ForkProvider lets the prompts below it be forked from; without it they have no Fork action. */
export function ForkProvider(props: { value: ForkTarget; children: ReactNode }) {
  return <ForkContext.Provider value={props.value}>{props.children}</ForkContext.Provider>;
}

// The drafts forks open with, by session ID, taken once by the fork's
// composer when it first shows.
const drafts = new Map<string, string>();

/** setForkDraft keeps the text a new fork's message box is to open with. */
export function setForkDraft(sessionId: string, text: string): void {
  if (text === "") drafts.delete(sessionId);
  else drafts.set(sessionId, text);
}

/** takeForkDraft returns (once) the text session's message box opens with, "" for none. */
export function takeForkDraft(sessionId: string): string {
  const text = drafts.get(sessionId) ?? "";
  drafts.delete(sessionId);
  return text;
}

/**
 * useForkDraft is the text a session's message box opens with: the
 * prompt a fork was made before, else "". With a draft, the box (input)
 * takes focus with the caret at its end, so a person who forked from the
 * keyboard goes on typing there.
 */
export function useForkDraft(sessionId: string, input: RefObject<HTMLTextAreaElement | null>): string {
  // Read in the initializer, taken in the effect: React may call an
  // initializer twice (StrictMode), and the second call must see it too.
  const [draft] = useState(() => drafts.get(sessionId) ?? "");
  useEffect(() => {
    drafts.delete(sessionId);
    const el = input.current;
    if (draft === "" || el === null) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, [draft, input, sessionId]);
  return draft;
}

/**
 * promptNumber is the place (from 1) of a turn among the conversation's
 * prompts, as the kernel counts them (ForkSession's atPrompt); 0 when the
 * turn is not one of them.
 */
export function promptNumber(entries: readonly Entry[], runId: string): number {
  let n = 0;
  for (const e of entries) {
    if (e.kind !== "turn") continue;
    n++;
    if (e.id === runId) return n;
  }
  return 0;
}

/**
 * ForkButton is "Fork from here" on a prompt: a new session with the
 * conversation before this prompt, in the same folder, opened with the
 * prompt in its message box to send again or change. While the fork is
 * made it says so; a refusal is said beside it.
 */
export function ForkButton(props: { runId: string }) {
  const target = useContext(ForkContext);
  const api = useApi();
  const n = useSession((s) => promptNumber(s.conversation.entries, props.runId));
  const [state, setState] = useState<{ kind: "idle" } | { kind: "forking" } | { kind: "failed"; why: string }>({ kind: "idle" });
  if (target === null || n === 0) return null;
  const fork = () => {
    setState({ kind: "forking" });
    api.ForkSession(target.sessionId, n).then(
      (f) => {
        setState({ kind: "idle" });
        setForkDraft(f.session.id, f.draft);
        target.onForked(f);
      },
      (e: unknown) => setState({ kind: "failed", why: toApiError(e).message }),
    );
  };
  const label = `Fork from here: a new session with the conversation before this message, in the same folder`;
  return (
    <span className="convo-fork">
      <button
        type="button"
        className="copy-button"
        onClick={fork}
        disabled={state.kind === "forking"}
        aria-label={`Fork from here (prompt ${n})`}
        title={label}
      >
        <GitFork size={14} aria-hidden="true" />
        <span aria-hidden="true">{state.kind === "forking" ? "Forking…" : "Fork from here"}</span>
      </button>
      {state.kind === "failed" && (
        <span className="convo-fork-error" role="alert">
          Not forked: {state.why}. Try again.
        </span>
      )}
    </span>
  );
}
