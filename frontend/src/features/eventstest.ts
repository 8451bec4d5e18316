// Event logs for the reducers' tests, shaped as the engine and the kernel
// store them (backend/engine/run.go, batch.go, approve.go, recover.go,
// backend/kernel/changes.go, approvals.go; docs/events.md): envelopes with a
// dense per-session seq, payloads with the fields the Go code writes.
import { expect, it } from "vitest";
import type { Event, FileChange } from "../backend/gen/event";
import { guarded } from "./seq";
import { createSessionStore } from "./session/store";

export const SESSION = "ses_01";
export const WORKDIR = "/home/me/project";

/** Log builds one session's event log: each add takes the next seq. */
export class Log {
  readonly events: Event[] = [];
  private seq = 0;
  private clock = Date.parse("2026-12-01T11:00:00Z");

  constructor(readonly sessionId = SESSION) {}

  add(type: string, data: unknown, runId = ""): Event {
    this.seq++;
    this.clock += 7;
    // Through JSON, as events arrive: undefined fields are absent.
    const wire: unknown = JSON.parse(JSON.stringify(data ?? null));
    const ev: Event = { type, sessionId: this.sessionId, seq: this.seq, time: new Date(this.clock).toISOString(), data: wire };
    if (runId !== "") ev.runId = runId;
    this.events.push(ev);
    return ev;
  }

  runStart(runId: string, prompt: string, approvalMode = "manual"): void {
    this.add(
      "run.start",
      {
        prompt,
        workdir: WORKDIR,
        model: "scripted-model",
        provider: "openai-compatible",
        approvalMode,
        instructions: { status: "used", file: "AGENTS.md", size: 120, bytes: 120 },
      },
      runId,
    );
  }

  stepStart(runId: string, step: number): void {
    this.add("step.start", { step, tools: ["bash", "bash_kill", "bash_output", "delete", "edit", "glob", "grep", "ls", "read", "write"] }, runId);
  }

  stepEnd(runId: string, step: number, finishReason: string, toolCalls: number): void {
    this.add(
      "step.end",
      { step, finishReason, usage: { promptTokens: 900, completionTokens: 40, totalTokens: 940 }, toolCalls },
      runId,
    );
  }

  text(runId: string, step: number, text: string): void {
    this.add("text.delta", { step, text }, runId);
  }

  /** call streams a tool call's announcement and arguments (args under 4 KiB: all of it as argsDelta). */
  call(runId: string, step: number, index: number, id: string, name: string, args: string): void {
    this.add("tool.begin", { step, index, id, name }, runId);
    const half = Math.floor(args.length / 2);
    this.add("tool.update", { step, id, argsBytes: half, argsDelta: args.slice(0, half) }, runId);
    this.add("tool.update", { step, id, argsBytes: args.length, argsDelta: args.slice(half) }, runId);
  }

  running(runId: string, step: number, id: string): void {
    this.add("tool.update", { step, id, status: "running" }, runId);
  }

  end(runId: string, step: number, index: number, id: string, name: string, status: string, text: string, extra: object = {}): void {
    this.add(
      "tool.end",
      { step, index, id, name, status, isError: status !== "done", text, durationMs: 12, ...extra },
      runId,
    );
  }

  ask(runId: string, approvalId: string, callId: string, action: object, preview = ""): void {
    this.add(
      "approval.request",
      {
        id: approvalId,
        sessionId: this.sessionId,
        runId,
        request: { callId, action, why: "the model wants to change a file", ...(preview ? { preview } : {}) },
        reason: "write inside the workspace in manual mode",
        scopes: [{ kind: "write", folder: WORKDIR }],
        askedAt: "2026-12-01T11:00:01Z",
      },
      runId,
    );
  }

  answer(runId: string, approvalId: string, callId: string, state: string, choice: string, message = ""): void {
    this.add("approval.answer", { id: approvalId, callId, state, answer: { choice, ...(message ? { message } : {}) } }, runId);
  }

  runEnd(runId: string, status: string, error = "", steps = 1): void {
    this.add("run.end", { status, error, steps, usage: { promptTokens: 1800, completionTokens: 80, totalTokens: 1880 } }, runId);
  }
}

export function fileChange(id: string, runId: string, callId: string, path: string, op: string): FileChange {
  return {
    id,
    sessionId: SESSION,
    runId,
    callId,
    tool: op === "create" ? "write" : op,
    path,
    op,
    existedBefore: op !== "create",
    existsAfter: op !== "delete",
    diff: `diff --git a${path} b${path}\n--- a${path}\n+++ b${path}\n@@ -0,0 +1 @@\n+hello\n`,
    added: 1,
    removed: 0,
    createdAt: "2026-12-01T11:00:02Z",
  };
}

/**
 * journey is a session of three runs: a write the person approves after a
 * preview (with reasoning and text streamed), a bash with a live tail the
 * person cancels, and a switch to Auto between them.
 */
export function journey(): Log {
  const log = new Log();
  const r1 = "run_1";
  log.runStart(r1, "Create notes.txt saying hello");
  log.stepStart(r1, 1);
  log.add("reasoning.delta", { step: 1, text: "The user wants a file. " }, r1);
  log.add("reasoning.delta", { step: 1, text: "I will write it." }, r1);
  log.text(r1, 1, "I'll create ");
  log.text(r1, 1, "the file.");
  log.call(r1, 1, 0, "call_w", "write", JSON.stringify({ path: "notes.txt", content: "hello\n" }));
  log.running(r1, 1, "call_w");
  log.ask(r1, "apr_1", "call_w", { kind: "write", tool: "write", paths: [WORKDIR + "/notes.txt"] }, "+hello");
  log.answer(r1, "apr_1", "call_w", "allowed", "allow_once");
  log.end(r1, 1, 0, "call_w", "write", "done", "Created notes.txt (1 line).", {
    fileChanges: [fileChange("chg_1", r1, "call_w", WORKDIR + "/notes.txt", "create")],
    displayDiff: "+hello",
  });
  log.stepEnd(r1, 1, "tool_calls", 1);
  log.stepStart(r1, 2);
  log.text(r1, 2, "Done.");
  log.stepEnd(r1, 2, "stop", 0);
  log.runEnd(r1, "completed", "", 2);

  log.add("session.mode", { from: "manual", to: "auto" });

  const r2 = "run_2";
  log.runStart(r2, "Run the tests", "auto");
  log.stepStart(r2, 1);
  log.call(r2, 1, 0, "call_b", "bash", JSON.stringify({ command: "go test ./..." }));
  log.running(r2, 1, "call_b");
  log.add("tool.update", { step: 1, id: "call_b", progress: { tail: "=== RUN TestA\n" } }, r2);
  log.add("tool.update", { step: 1, id: "call_b", progress: { tail: "=== RUN TestA\n=== RUN TestB\n" } }, r2);
  log.end(r2, 1, 0, "call_b", "bash", "cancelled", "cancelled: the run was cancelled");
  log.runEnd(r2, "cancelled", "cancelled");
  return log;
}

/** interruptedText is the result recovery gives a call whose process died (backend/engine/recover.go). */
export function interruptedText(what: string): string {
  return `interrupted, not replayed: Foya stopped while this call was ${what}; it may have done part of its work. Check its effects before calling it again.`;
}

/**
 * everything is journey followed by every other event type: a run a crash
 * interrupted (as recovery stores it at the next start), a run stopped at
 * the step limit with tool_search (a hook's note on it, a project's hooks
 * file skipped) and a failed edit, a revert, a file
 * changed outside Foya, a watcher that fell back to polling, a message
 * sent to a running run, another model chosen and the model's title.
 */
export function everything(): Log {
  const log = journey();
  const r3 = "run_3";
  log.runStart(r3, "Edit the notes", "auto");
  log.stepStart(r3, 1);
  log.call(r3, 1, 0, "call_e", "edit", JSON.stringify({ path: "notes.txt", old: "hello", new: "bye" }));
  log.running(r3, 1, "call_e");
  // The process died here; at the next start recovery stored these:
  log.end(r3, 1, 0, "call_e", "edit", "interrupted", interruptedText("running"), { durationMs: undefined });
  log.add("run.interrupted", { calls: 1 }, r3);
  log.add("run.end", { status: "interrupted", error: "interrupted: Foya stopped during this run; unfinished tool calls were not replayed", steps: 1, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } }, r3);

  const r4 = "run_4";
  log.runStart(r4, "Find the web tools", "auto");
  // The project's hooks file is not approved: its hooks do not run (docs/hooks.md).
  log.add("hook.run", { source: "project", file: WORKDIR + "/.foya/hooks.json", status: "skipped", error: "not approved: its hooks do not run until you approve this exact content (Settings, or foya hooks allow)", durationMs: 0 }, r4);
  log.stepStart(r4, 1);
  log.call(r4, 1, 0, "call_s", "tool_search", JSON.stringify({ query: "fetch" }));
  log.running(r4, 1, "call_s");
  log.add("hook.run", { hook: "post", event: "before_tool", source: "user", file: "/d/hooks.json", callId: "call_s", tool: "tool_search", status: "ok", decision: "allow", note: "searching is fine", exitCode: 0, durationMs: 3, sandbox: "none" }, r4);
  log.end(r4, 1, 0, "call_s", "tool_search", "done", "Activated: web_fetch\n[note from the user hook \"post\" (/d/hooks.json): searching is fine]");
  log.add("tools.activated", { names: ["web_fetch"] }, r4);
  log.add("todo.updated", { todos: [{ content: "find the web tools", status: "completed" }, { content: "edit missing.txt", status: "in_progress" }] }, r4);
  log.stepEnd(r4, 1, "tool_calls", 1);
  // The person sent a message to the run while it went ("Send now").
  log.add("run.steer", { id: "stg_1", step: 2, text: "the file is missing.txt" }, r4);
  log.stepStart(r4, 2);
  log.call(r4, 2, 0, "call_x", "edit", JSON.stringify({ path: "missing.txt", old: "a", new: "b" }));
  log.running(r4, 2, "call_x");
  log.end(r4, 2, 0, "call_x", "edit", "error", "missing.txt does not exist (check the path with ls or glob)");
  log.stepEnd(r4, 2, "tool_calls", 1);
  log.runEnd(
    r4,
    "failed",
    "stopped after 2 model steps, the limit for one turn: send another message to continue, or raise the limit (the run.max_steps setting)",
    2,
  );

  log.add("file.reverted", { changeId: "chg_2", revertOf: "chg_1", path: WORKDIR + "/notes.txt", op: "revert" });
  // A background command of the first run ended; what it changed.
  log.add("file.captured", { callId: "call_1", fileChanges: [{ ...fileChange("chg_bg", "run_1", "call_1", WORKDIR + "/made.txt", "create"), tool: "bash" }] }, "run_1");
  log.add("file.changed_outside", { path: WORKDIR + "/notes.txt", exists: true });
  log.add("file.watch_degraded", { reason: "the workspace has more folders than the watcher can hold: polling the session's files" });
  // A person marked the background command's change as reviewed.
  log.add("change.reviewed", { changeIds: ["chg_bg"], reviewed: true, toReview: 1 });
  // The person chose another model for the next runs.
  log.add("session.model", { fromProvider: "local", fromModel: "scripted-model", provider: "work", model: "big-model" });
  // After the first run the model proposed a better title.
  log.add("session.title", { from: "Write hello", title: "Greeting file" });
  // The person compacted the context, a compaction failed, and the person
  // undid the one made.
  log.add("context.compacted", {
    id: "cmp_1",
    by: "user",
    upto: 12,
    turns: 3,
    summary: "## Goal\nGreet.",
    note: "[Foya compacted the earlier conversation]\n## Goal\nGreet.",
    files: 1,
    tasks: 0,
    tokensBefore: 2400,
    tokensAfter: 900,
  });
  log.add("context.compact_failed", { by: "user", error: "the model's summary was empty" });
  log.add("context.uncompacted", { id: "cmp_1" });
  // An isolated session's setup, apply and discard (issue 29).
  log.add("isolation.setup", { command: "npm ci", state: "running" });
  log.add("isolation.setup", { command: "npm ci", state: "output", output: "added 3 packages\n" });
  log.add("isolation.setup", { command: "npm ci", state: "succeeded", exitCode: 0, durationMs: 900, sandbox: "bubblewrap" });
  log.add("isolation.applied", { folder: WORKDIR, applied: ["notes.txt"], conflicts: [] });
  log.add("isolation.discarded", { kind: "copy", dir: "/d-sessions/ses_01" });
  return log;
}

/**
 * reduceAll applies events one by one, as given (in seq order: ordering is
 * the session store's), skipping one apply throws on, as the store does.
 */
export function reduceAll<S>(apply: (s: S, ev: Event) => S, initial: S, events: readonly Event[]): S {
  return events.reduce((s, ev) => guarded(apply, s, ev), initial);
}

/** shuffled returns events in an order fixed by seed (a linear congruential generator). */
export function shuffled(events: readonly Event[], seed: number): Event[] {
  const out = [...events];
  let x = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** typesOf lists the distinct types of events. */
export function typesOf(events: readonly Event[]): Set<string> {
  return new Set(events.map((e) => e.type));
}

type Area = "conversation" | "approvals" | "changes" | "tasks";

/**
 * itKeepsSeqOrder adds the tests every area must pass over log, fed through
 * a session store (which orders events once, for every area): each
 * duplicate seq is ignored (the very same state comes back), any arrival
 * order gives the state of seq order, and a replay of stored events followed
 * by live ones (overlapping at the seam, as a resume may) gives the state of
 * live events alone.
 */
export function itKeepsSeqOrder(area: Area, log: () => { events: readonly Event[] }, mode = "manual"): void {
  const fresh = (evs: readonly Event[]) => createSessionStore(evs[0]?.sessionId ?? SESSION, { mode });
  const fed = (evs: readonly Event[], ...batches: (readonly Event[])[]) => {
    const st = fresh(evs);
    for (const b of batches) st.getState().apply(b);
    return st.getState();
  };

  it("ignores a duplicate seq", () => {
    const evs = log().events;
    const once = fed(evs, evs)[area];
    const st = fresh(evs);
    for (const ev of evs) {
      st.getState().apply([ev]);
      const s = st.getState()[area];
      st.getState().apply([ev]);
      expect(st.getState()[area]).toBe(s);
      st.getState().apply([{ ...ev, data: { garbage: true } }]);
      expect(st.getState()[area]).toBe(s);
    }
    expect(st.getState()[area]).toEqual(once);
    st.getState().apply(evs);
    expect(st.getState()[area]).toEqual(once);
  });

  it("gives the seq order's state for any arrival order", () => {
    const evs = log().events;
    const want = fed(evs, evs)[area];
    for (const order of [[...evs].reverse(), shuffled(evs, 1), shuffled(evs, 7), shuffled(evs, 42)]) {
      expect(fed(evs, order)[area]).toEqual(want);
      expect(fed(evs, ...order.map((e) => [e]))[area]).toEqual(want);
    }
    // The last event first: nothing applies until the gap before it is filled.
    const last = evs[evs.length - 1]!;
    const st = fresh(evs);
    const before = st.getState()[area];
    st.getState().apply([last]);
    expect(st.getState()[area]).toBe(before);
    expect(st.getState().order).toEqual({ seq: 0, ahead: [last] });
  });

  it("gives live state from a replay of stored events then live ones", () => {
    const evs = log().events;
    const live = fed(evs, evs)[area];
    for (const cut of [1, Math.floor(evs.length / 3), evs.length - 1]) {
      // A resume may hand over the last stored events again.
      const resumed = fed(evs, evs.slice(0, cut), evs.slice(Math.max(0, cut - 3)));
      expect(resumed[area]).toEqual(live);
    }
  });
}
