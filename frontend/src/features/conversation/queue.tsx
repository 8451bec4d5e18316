// Messages queued while a run goes: each is sent when the run it waited
// for ends completed, one per run, in order. After a run that failed, was
// stopped or was interrupted nothing is sent by itself: the messages stay
// queued with a notice, to send now, edit or remove.
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
}

export interface Queue {
  items: Queued[];
  add(m: Outgoing, entries: WorkspaceEntry[]): void;
  remove(id: number): void;
  sendNow(id: number): void;
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
export function useQueue(opts: { busy: boolean; lastStatus: TurnStatus | ""; send(m: Outgoing): Promise<boolean> }): Queue {
  const [items, setItems] = useState<Queued[]>([]);
  const next = useRef(1);
  const sending = useRef(false);
  const { busy, lastStatus, send } = opts;
  const deliver = useCallback(
    (q: Queued) => {
      sending.current = true;
      setItems((l) => l.filter((x) => x.id !== q.id));
      void send(q).then((ok) => {
        sending.current = false;
        if (!ok) setItems((l) => [{ ...q, held: "This was not sent (see the error above): send it again, edit it or remove it." }, ...l]);
      });
    },
    [send],
  );
  useEffect(() => {
    if (busy || sending.current || lastStatus === "running") return;
    const first = items.find((q) => q.held === "");
    if (first === undefined) return;
    if (lastStatus === "completed") deliver(first);
    else if (lastStatus !== "") {
      const why = heldWords[lastStatus] ?? "The run did not complete, so this was not sent.";
      setItems((l) => l.map((q) => (q.held === "" ? { ...q, held: why } : q)));
    }
  }, [busy, lastStatus, items, deliver]);
  return {
    items,
    add: (m, entries) => setItems((l) => [...l, { ...m, entries, id: next.current++, held: "" }]),
    remove: (id) => setItems((l) => l.filter((q) => q.id !== id)),
    sendNow: (id) => {
      const q = items.find((x) => x.id === id);
      if (q !== undefined && !busy && !sending.current) deliver(q);
    },
  };
}

/** QueuedList shows the queued messages, each with Edit and Remove (and Send now when held). */
export function QueuedList(props: { queue: Queue; canSend: boolean; onEdit(q: Queued): void }) {
  const { items } = props.queue;
  if (items.length === 0) return null;
  return (
    <ul className="convo-queued" aria-label="Queued messages">
      {items.map((q) => (
        <li key={q.id}>
          <span className="convo-queued-text">Queued: {q.text}</span>
          {q.held !== "" && <span className="convo-queued-held">{q.held}</span>}
          <span className="convo-queued-buttons">
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
