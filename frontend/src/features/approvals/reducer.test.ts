import { describe, expect, it } from "vitest";
import { EventTypes } from "../seq";
import { Log, WORKDIR, everything, itKeepsSeqOrder, journey, reduceAll, typesOf } from "../eventstest";
import type { Event } from "../../backend/gen/event";
import runLog from "../testdata/run.jsonl?raw";
import { applyApprovals, initialApprovals } from "./reducer";

const reduce = (log: Log, mode = "") => reduceAll(applyApprovals, initialApprovals(mode), log.events);

const write = (p: string) => ({ kind: "write", tool: "write", paths: [WORKDIR + "/" + p] });

describe("applyApprovals", () => {
  it("takes every event type of docs/events.md", () => {
    const log = everything();
    for (const t of EventTypes) expect(typesOf(log.events)).toContain(t);
    const s = reduce(log, "manual");
    expect(s).toMatchObject({ pending: [], mode: "auto" });
  });

  it("queues requests and an answer removes only its own", () => {
    const log = new Log();
    log.runStart("run_1", "three writes");
    log.ask("run_1", "apr_a", "call_a", write("a.txt"), "+a");
    log.ask("run_1", "apr_b", "call_b", write("b.txt"), "+b");
    log.ask("run_1", "apr_c", "call_c", write("c.txt"), "+c");
    const asked = reduce(log);
    expect(asked.pending.map((p) => [p.id, p.request.callId, p.request.action.paths, p.request.preview])).toEqual([
      ["apr_a", "call_a", [WORKDIR + "/a.txt"], "+a"],
      ["apr_b", "call_b", [WORKDIR + "/b.txt"], "+b"],
      ["apr_c", "call_c", [WORKDIR + "/c.txt"], "+c"],
    ]);
    expect(asked.pending[0]!.scopes).toEqual([{ kind: "write", folder: WORKDIR }]);

    log.answer("run_1", "apr_b", "call_b", "denied", "deny", "not b");
    expect(reduce(log).pending.map((p) => p.id)).toEqual(["apr_a", "apr_c"]);
    log.answer("run_1", "apr_a", "call_a", "allowed", "allow_session");
    expect(reduce(log).pending.map((p) => p.id)).toEqual(["apr_c"]);
  });

  it("drops a run's unanswered requests when the run ends, and no other run's", () => {
    const log = new Log();
    log.runStart("run_1", "p");
    log.ask("run_1", "apr_1", "call_1", write("a.txt"));
    // Another session's events never reach this store; another run of the
    // same session cannot overlap, but its request must survive run_1's end.
    log.add("approval.request", { ...reduce(log).pending[0]!, id: "apr_2", runId: "run_2" }, "run_2");
    log.runEnd("run_1", "interrupted", "interrupted: Foya stopped during this run");
    expect(reduce(log).pending.map((p) => p.id)).toEqual(["apr_2"]);
  });

  it("follows the session's mode: as listed, then run.start, then session.mode", () => {
    const log = new Log();
    expect(reduce(log, "manual").mode).toBe("manual");
    log.runStart("run_1", "p", "auto");
    expect(reduce(log, "manual").mode).toBe("auto");
    log.add("session.mode", { from: "auto", to: "full_access" }, "run_1");
    expect(reduce(log, "manual").mode).toBe("full_access");
  });

  it("keeps the pending request of a reloaded page from the stored events", () => {
    const log = journey();
    const ask = log.events.findIndex((e) => e.type === "approval.request");
    const s = reduceAll(applyApprovals, initialApprovals(), log.events.slice(0, ask + 1));
    expect(s.pending.map((p) => p.id)).toEqual(["apr_1"]);
  });

  it("replays a real session: each request waits from its approval.request to its answer, also after a reload", () => {
    const stored = runLog
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Event);
    const asks = stored.filter((e) => e.type === "approval.request").map((e) => (e.data as { id: string }).id);
    expect(asks).toHaveLength(3);
    for (const id of asks) {
      const at = stored.findIndex((e) => e.type === "approval.request" && (e.data as { id: string }).id === id);
      const answered = stored.findIndex((e) => e.type === "approval.answer" && (e.data as { id: string }).id === id);
      // A page loaded while it waits: the stored events up to the request.
      const upTo = (n: number) => reduceAll(applyApprovals, initialApprovals(), stored.slice(0, n + 1));
      expect(upTo(at).pending.map((p) => p.id)).toEqual([id]);
      expect(upTo(answered - 1).pending.map((p) => p.id)).toEqual([id]);
      expect(upTo(answered).pending).toEqual([]);
      // The replay, then the live stream from the same seq (overlapping at
      // the seam): one request, not two.
      const replayed = reduceAll(applyApprovals, upTo(at), stored.slice(at - 2, at + 1));
      expect(replayed.pending.map((p) => p.id)).toEqual([id]);
    }
  });

  itKeepsSeqOrder("approvals", everything);
});
