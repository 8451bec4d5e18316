import { ApiError } from "./errors";
import type { Event, Notice, Transport } from "./transport";
import type { Session } from "./types";

/**
 * FakeTransport is a Transport for tests of the UI: each call answers from
 * replies (a value, or an Error to reject with), by method name, and is
 * recorded; push hands an event to the session's subscribers, notice a
 * notice to the notices' subscribers. It plays our
 * own interface by hand; nothing of the kernel is mocked.
 */
export class FakeTransport implements Transport {
  readonly replies: Record<string, unknown>;
  readonly calls: { method: string; args: unknown[] }[] = [];
  pickFolder: (() => Promise<string | null>) | null = null;
  private readonly subs = new Set<{ sessionId: string; afterSeq: number; onEvent: (ev: Event) => void }>();
  private readonly allSubs = new Set<{ onEvent: (ev: Event) => void; onReconnect: (() => void) | undefined }>();

  constructor(replies: Record<string, unknown> = {}) {
    this.replies = replies;
  }

  call<T>(method: string, args: unknown[]): Promise<T> {
    this.calls.push({ method, args });
    if (!(method in this.replies)) {
      return Promise.reject(new ApiError("internal", `FakeTransport: no reply for ${method}`));
    }
    const r = this.replies[method];
    return r instanceof Error ? Promise.reject(r) : Promise.resolve(r as T);
  }

  /** callsOf counts the calls of one method. */
  callsOf(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  subscribe(sessionId: string, afterSeq: number, onEvent: (ev: Event) => void): () => void {
    const sub = { sessionId, afterSeq, onEvent };
    this.subs.add(sub);
    return () => this.subs.delete(sub);
  }

  subscribeAll(onEvent: (ev: Event) => void, onReconnect?: () => void): () => void {
    const sub = { onEvent, onReconnect };
    this.allSubs.add(sub);
    return () => this.allSubs.delete(sub);
  }

  private readonly noticeSubs = new Set<{ onNotice: (n: Notice) => void; onReconnect: (() => void) | undefined }>();

  subscribeNotices(onNotice: (n: Notice) => void, onReconnect?: () => void): () => void {
    const sub = { onNotice, onReconnect };
    this.noticeSubs.add(sub);
    return () => this.noticeSubs.delete(sub);
  }

  /** subscribers counts the open subscriptions: per session, to every session, to notices. */
  subscribers(): { session: number; all: number; notices: number } {
    return { session: this.subs.size, all: this.allSubs.size, notices: this.noticeSubs.size };
  }

  /** notice delivers n to every notice subscriber. */
  notice(n: Notice): void {
    for (const s of this.noticeSubs) s.onNotice(n);
  }

  /**
   * push delivers ev to the subscribers of its session that want it, and
   * to every all-sessions subscriber.
   */
  push(ev: Event): void {
    for (const s of this.subs) {
      if (s.sessionId === ev.sessionId && ev.seq > s.afterSeq) s.onEvent(ev);
    }
    for (const s of this.allSubs) s.onEvent(ev);
  }

  /** reconnect tells every all-sessions subscriber that its stream came back. */
  reconnect(): void {
    for (const s of this.allSubs) s.onReconnect?.();
    for (const s of this.noticeSubs) s.onReconnect?.();
  }
}

/** session returns a stored session with defaults, overridden by fields. */
export function session(fields: Partial<Session> = {}): Session {
  return {
    id: "s1",
    title: "Fix the flaky test",
    titleByUser: true,
    projectId: "p1",
    workdir: "/home/ada/project",
    provider: "local",
    model: "gpt-test",
    approvalMode: "auto",
    createdAt: "2026-01-02T10:00:00Z",
    updatedAt: "2026-01-02T11:30:00Z",
    runs: 1,
    lastSeq: 12,
    toReview: 0,
    ...fields,
  };
}
