import type { Backend, Info, Session, UIReport } from "./types";

/**
 * FakeBackend is a Backend for tests: it answers from the values it was
 * given (a value, or an Error to reject with) and records what the UI sent.
 * It is our own interface, played by hand; nothing of the kernel is mocked.
 */
export class FakeBackend implements Backend {
  infoReply: Info | Error;
  sessionsReply: Session[] | Error;
  readonly reports: UIReport[] = [];
  sessionsCalls = 0;

  constructor(opts: { info?: Info | Error; sessions?: Session[] | Error } = {}) {
    this.infoReply = opts.info ?? { version: "1.2.3-test", dataDir: "/data/foya", dbPath: "/data/foya/foya.db" };
    this.sessionsReply = opts.sessions ?? [];
  }

  info(): Promise<Info> {
    const r = this.infoReply;
    return r instanceof Error ? Promise.reject(r) : Promise.resolve(r);
  }

  sessions(): Promise<Session[]> {
    this.sessionsCalls++;
    const r = this.sessionsReply;
    return r instanceof Error ? Promise.reject(r) : Promise.resolve(r);
  }

  uiReady(report: UIReport): Promise<void> {
    this.reports.push(report);
    return Promise.resolve();
  }
}

/** session returns a stored session with defaults, overridden by fields. */
export function session(fields: Partial<Session> = {}): Session {
  return {
    id: "s1",
    title: "Fix the flaky test",
    workdir: "/home/ada/project",
    model: "gpt-test",
    approvalMode: "auto",
    createdAt: "2026-01-02T10:00:00Z",
    updatedAt: "2026-01-02T11:30:00Z",
    runs: 1,
    ...fields,
  };
}
