import { ApiError, toApiError } from "./errors";
import { isNotice, type Event, type Notice, type Transport } from "./transport";

/** eventsName is the Wails event app.go's bridge emits kernel events on. */
export const eventsName = "foya:events";

type Bound = Partial<Record<string, (...args: unknown[]) => Promise<unknown>>>;

/**
 * WailsWindow is the part of the desktop window's globals this file uses:
 * the bound Go methods (window.go.<package>.<Type>.<Method>) and the
 * runtime Wails injects.
 */
export interface WailsWindow {
  go?: { api?: { Service?: Bound }; main?: { App?: Bound } };
  runtime?: { EventsOn(name: string, callback: (...data: unknown[]) => void): () => void };
}

/**
 * hasWails reports whether the page runs inside the Wails desktop window,
 * by the runtime Wails injects (not by the URL, which a browser may share).
 */
export function hasWails(w: WailsWindow = window as WailsWindow): boolean {
  return w.runtime !== undefined && w.go !== undefined;
}

/**
 * WailsTransport implements Transport in the desktop window: calls go to
 * the bound methods of api.Service; events come from app.go's bridge as
 * batches on "foya:events". A subscription reads the stored events with the
 * Events call and holds the live ones that arrive meanwhile; a gap in seq
 * (events the window missed) is filled the same way.
 */
export class WailsTransport implements Transport {
  readonly pickFolder: (() => Promise<string | null>) | null;
  private readonly w: WailsWindow;
  private readonly retryMs: number;

  /** retryMs is how long to wait before reading stored events again after a failed read. */
  constructor(w: WailsWindow = window as WailsWindow, opts: { retryMs?: number } = {}) {
    this.w = w;
    this.retryMs = opts.retryMs ?? 1000;
    this.pickFolder = () => this.pick();
  }

  async call<T>(method: string, args: unknown[]): Promise<T> {
    const fn = this.w.go?.api?.Service?.[method];
    if (typeof fn !== "function") {
      throw new ApiError("internal", `the desktop app has no method ${method}: the window and the binary are from different builds`);
    }
    try {
      return (await fn(...args)) as T;
    } catch (e) {
      throw toApiError(e);
    }
  }

  subscribe(sessionId: string, afterSeq: number, onEvent: (ev: Event) => void): () => void {
    const runtime = this.w.runtime;
    if (runtime === undefined) {
      throw new ApiError("internal", "the Wails runtime is not in this page");
    }
    let last = afterSeq; // the last seq delivered
    let reading = false; // an Events call is in flight
    let held: Event[] = []; // live events that came while reading
    let closed = false;
    let retry: ReturnType<typeof setTimeout> | undefined;

    const deliver = (ev: Event) => {
      if (ev.seq <= last) return;
      last = ev.seq;
      onEvent(ev);
    };
    // live applies live events in order. justRead says the store was read
    // after they were published: a gap then is not in the store either.
    const live = (evs: Event[], justRead: boolean) => {
      for (const ev of evs) {
        if (closed) return;
        if (reading) {
          held.push(ev);
        } else if (ev.seq > last + 1 && !justRead) {
          held.push(ev);
          read();
        } else {
          deliver(ev);
        }
      }
    };
    const read = () => {
      reading = true;
      this.call<Event[] | null>("Events", [sessionId, last]).then(
        (stored) => {
          if (closed) return;
          for (const ev of stored ?? []) deliver(ev);
          const h = held;
          held = [];
          reading = false;
          live(h, true);
        },
        (e: unknown) => {
          if (closed) return;
          console.error(`foya: read the events of session ${sessionId}:`, toApiError(e).message);
          retry = setTimeout(read, this.retryMs);
        },
      );
    };

    const off = runtime.EventsOn(eventsName, (batch: unknown) => {
      if (closed || !Array.isArray(batch)) return;
      live(
        (batch as Event[]).filter((ev) => ev.sessionId === sessionId),
        false,
      );
    });
    read();
    return () => {
      closed = true;
      clearTimeout(retry);
      held = [];
      off();
    };
  }

  subscribeAll(onEvent: (ev: Event) => void): () => void {
    return this.onBatches((ev) => {
      if (!isNotice(ev)) onEvent(ev);
    });
  }

  subscribeNotices(onNotice: (n: Notice) => void): () => void {
    return this.onBatches((ev) => {
      if (isNotice(ev)) onNotice(ev);
    });
  }

  /**
   * onBatches hands each event of the bridge's batches to take until the
   * returned function is called. The bridge emits events and notices in
   * publication order and never drops one, so there is nothing to
   * reconnect.
   */
  private onBatches(take: (ev: Event) => void): () => void {
    const runtime = this.w.runtime;
    if (runtime === undefined) {
      throw new ApiError("internal", "the Wails runtime is not in this page");
    }
    let closed = false;
    const off = runtime.EventsOn(eventsName, (batch: unknown) => {
      if (!Array.isArray(batch)) return;
      for (const ev of batch as Event[]) {
        if (closed) return;
        take(ev);
      }
    });
    return () => {
      closed = true;
      off();
    };
  }

  private async pick(): Promise<string | null> {
    const fn = this.w.go?.main?.App?.PickFolder;
    if (typeof fn !== "function") {
      throw new ApiError("internal", "the desktop app has no folder dialog: the window and the binary are from different builds");
    }
    try {
      const dir = (await fn()) as string;
      return dir === "" ? null : dir;
    } catch (e) {
      throw toApiError(e);
    }
  }
}
