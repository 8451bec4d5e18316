// Messages queued while a run goes: each is sent when the run it waited
// for ends completed, one per run, in order. After a run that failed, was
// stopped or was interrupted nothing is sent by itself: the messages stay
// queued with a notice, to send now, edit or remove.
//
// While the run goes, "Send now" (Ctrl+Shift+Enter) steers it instead: the
// kernel puts the message in the run's history before its next model
// request (Steer) and the message leaves the queue once stored. If the run
// ends before a step takes it, nothing is stored and it stays queued, sent
// as the next prompt like any other. If the answer is lost (the connection
// dropped), it stays queued too, and before it is sent as a prompt the
// kernel is asked again with the same ID, which says whether it was stored:
// a message is never lost, and never in the history twice.
import { useCallback, useEffect, useRef, useState } from "react";
import type { WorkspaceEntry } from "../../backend/gen/kernel";
import type { Outgoing } from "./Composer";
import type { TurnStatus } from "./reducer";

/** Queued is a message waiting for the run to end. */
export interface Queued extends Outgoing {
  id: number;
  /** The picked mentions it holds, for Edit to bring back as chips. */
  entries: WorkspaceEntry[];
  /** Why it was not sent by itself ("" while it waits). */
  held: string;
  /** The ID the kernel knows it by if it is sent to the running run (Steer). */
  steerId: string;
  /** Steer was asked and has not answered yet. */
  steering: boolean;
  /** Steer was asked and its answer was lost: it may be stored already. */
  steerUnsure: boolean;
}

export interface Queue {
  items: Queued[];
  add(m: Outgoing, entries: WorkspaceEntry[]): void;
  remove(id: number): void;
  sendNow(id: number): void;
  /** steerNow sends a waiting message to the running run (see the file's comment). */
  steerNow(id: number): void;
}

/** steerShortcut is the key that steers the run with the first waiting message, as aria-keyshortcuts names it and as the button shows it. */
export const steerShortcut = { aria: "Control+Shift+Enter", label: "Ctrl+Shift+Enter" };

/** Steer sends text to the session's running run with an ID of the sender's; it resolves to whether the run took it. */
export type Steer = (id: string, text: string) => Promise<boolean>;

/** steerable says whether a queued message can be sent to a running run: text only (attached resources go with a prompt). */
export function steerable(q: Queued): boolean {
  // Steering carries text only: attachments, mentioned files and images wait for the next prompt.
  return q.held === "" && !q.steering && q.attached.length === 0 && q.files.length === 0 && (q.images ?? []).length === 0;
}

function newSteerId(): string {
  return `stg_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 12)}`;
}

const heldWords: Record<string, string> = {
  failed: "The run failed, so this was not sent.",
  cancelled: "The run was stopped, so this was not sent.",
  interrupted: "The run was interrupted, so this was not sent.",
};

/**
 * useQueue keeps the queued messages. When the session is not busy and the
 * latest turn completed, the first waiting message is sent; when it ended
 * otherwise, the waiting ones are held. A message whose sending fails is
 * held too (the composer shows the error), and nothing of it is lost.
 */
export function useQueue(opts: { busy: boolean; lastStatus: TurnStatus | ""; send(m: Outgoing): Promise<boolean>; steer: Steer }): Queue {
  const [items, setItems] = useState<Queued[]>([]);
  const next = useRef(1);
  const sending = useRef(false);
  const { busy, lastStatus, send, steer } = opts;
  const deliver = useCallback(
    (q: Queued) => {
      sending.current = true;
      setItems((l) => l.filter((x) => x.id !== q.id));
      // A steer whose answer was lost may be in the history already: the kernel says so by its ID.
      const stored = q.steerUnsure ? steer(q.steerId, q.text).catch(() => false) : Promise.resolve(false);
      void stored
        .then((done) => done || send(q))
        .then((ok) => {
          sending.current = false;
          if (!ok) setItems((l) => [{ ...q, held: "This was not sent (see the error above): send it again, edit it or remove it." }, ...l]);
        });
    },
    [send, steer],
  );
  useEffect(() => {
    if (busy || sending.current || lastStatus === "running") return;
    const first = items.find((q) => q.held === "");
    // A message on its way to the run goes first, once the kernel answers.
    if (first === undefined || first.steering) return;
    if (lastStatus === "completed") deliver(first);
    else if (lastStatus !== "") {
      const why = heldWords[lastStatus] ?? "The run did not complete, so this was not sent.";
      setItems((l) => l.map((q) => (q.held === "" ? { ...q, held: why } : q)));
    }
  }, [busy, lastStatus, items, deliver]);
  return {
    items,
    add: (m, entries) =>
      setItems((l) => [...l, { ...m, entries, id: next.current++, held: "", steerId: newSteerId(), steering: false, steerUnsure: false }]),
    remove: (id) => setItems((l) => l.filter((q) => q.id !== id)),
    sendNow: (id) => {
      const q = items.find((x) => x.id === id);
      if (q !== undefined && !busy && !sending.current) deliver(q);
    },
    steerNow: (id) => {
      const q = items.find((x) => x.id === id);
      if (q === undefined || !steerable(q)) return;
      const mark = (patch: Partial<Queued>) => setItems((l) => l.map((x) => (x.id === id ? { ...x, ...patch } : x)));
      mark({ steering: true });
      steer(q.steerId, q.text).then(
        // Not taken: no run could, and it stays queued for the next prompt.
        (done) => (done ? setItems((l) => l.filter((x) => x.id !== id)) : mark({ steering: false })),
        () => mark({ steering: false, steerUnsure: true }),
      );
    },
  };
}

/** QueuedList shows the queued messages, each with Edit and Remove (and Send now when held). */
export function QueuedList(props: { queue: Queue; canSend: boolean; running: boolean; onEdit(q: Queued): void }) {
  const { items } = props.queue;
  if (items.length === 0) return null;
  return (
    <ul className="convo-queued" aria-label="Queued messages">
      {items.map((q) => (
        <li key={q.id}>
          <span className="convo-queued-text">Queued: {q.text}</span>
          {q.held !== "" && <span className="convo-queued-held">{q.held}</span>}
          {q.steering && <span className="convo-queued-held">Sending to the run: it reads this before its next step.</span>}
          <span className="convo-queued-buttons">
            {props.running && q.held === "" && q.attached.length === 0 && (
              <button
                type="button"
                className="button"
                aria-label="Send now"
                aria-keyshortcuts={steerShortcut.aria}
                title="Send to the running run: the model reads it before its next step"
                disabled={q.steering}
                onClick={() => props.queue.steerNow(q.id)}
              >
                Send now <kbd>{steerShortcut.label}</kbd>
              </button>
            )}
            {q.held !== "" && (
              <button type="button" className="button" disabled={!props.canSend} onClick={() => props.queue.sendNow(q.id)}>
                Send now
              </button>
            )}
            <button type="button" className="button" onClick={() => props.onEdit(q)}>
              Edit
            </button>
            <button type="button" className="button" onClick={() => props.queue.remove(q.id)}>
              Remove
            </button>
          </span>
        </li>
      ))}
    </ul>
  );
}
