import { describe, expect, it } from "vitest";
import type { TypedEvent } from "./event";
import { CallDone, RunStatusCompleted, TypeToolEnd } from "./event";

// summary reads every event type's payload through TypedEvent: the switch
// narrows data by type, and the never check makes it fail to compile when
// an event type has no case, so a new event type cannot be left unhandled.
function summary(ev: TypedEvent): string {
  switch (ev.type) {
    case "run.start":
      return `${ev.data.model} ${ev.data.approvalMode} ${ev.data.instructions.status}`;
    case "step.start":
      return `${ev.data.step} ${(ev.data.tools ?? []).join(",")}`;
    case "text.delta":
    case "reasoning.delta":
      return ev.data.text;
    case "tool.begin":
      return `${ev.data.name}#${ev.data.index}`;
    case "tool.update":
      return `${ev.data.id} ${ev.data.argsBytes ?? ""}${ev.data.status ?? ""}${ev.data.progress?.tail ?? ""}`;
    case "tool.end":
      return `${ev.data.name} ${ev.data.status} ${ev.data.fileChanges?.length ?? 0}`;
    case "tools.activated":
      return ev.data.names.join(",");
    case "step.end":
      return ev.data.error ?? `${ev.data.finishReason} ${ev.data.usage.totalTokens}`;
    case "approval.request":
      return `${ev.data.request.action.kind} ${(ev.data.scopes ?? []).length}`;
    case "approval.answer":
      return `${ev.data.state} ${ev.data.answer.choice}`;
    case "session.mode":
      return `${ev.data.from}->${ev.data.to}`;
    case "session.model":
      return `${ev.data.provider}/${ev.data.model}`;
    case "session.title":
      return `${ev.data.from} -> ${ev.data.title}`;
    case "run.steer":
      return `${ev.data.id} ${ev.data.step} ${ev.data.text}`;
    case "todo.updated":
      return ev.data.todos.map((t) => `${t.status}:${t.content}`).join(",");
    case "file.reverted":
      return `${ev.data.revertOf} ${ev.data.path}`;
    case "file.captured":
      return `${ev.data.callId} ${ev.data.fileChanges.length}`;
    case "file.changed_outside":
      return `${ev.data.path} ${ev.data.exists}`;
    case "file.watch_degraded":
      return ev.data.reason;
    case "change.reviewed":
      return `${ev.data.changeIds.join(",")} ${ev.data.reviewed} ${ev.data.toReview}`;
    case "run.interrupted":
      return `${ev.data.calls}`;
    case "run.end":
      return `${ev.data.status} ${ev.data.steps}`;
    case "hook.run":
      return `${ev.data.hook ?? ""} ${ev.data.status}`;
    case "context.compacted":
      return `${ev.data.id} ${ev.data.by} ${ev.data.upto}`;
    case "context.uncompacted":
      return ev.data.id;
    case "context.compact_failed":
      return `${ev.data.by} ${ev.data.error}`;
    case "isolation.setup":
      return `${ev.data.command} ${ev.data.state}`;
    case "isolation.applied":
      return `${ev.data.applied.join(",")} ${ev.data.conflicts.join(",")}`;
    case "isolation.discarded":
      return `${ev.data.kind} ${ev.data.dir}`;
    default: {
      const unhandled: never = ev;
      return unhandled;
    }
  }
}

// Lines of backend/event/testdata/golden/events.jsonl: the bytes Go writes.
const golden = [
  `{"type":"tool.end","sessionId":"ses_1","runId":"run_1","seq":12,"time":"2026-11-29T21:00:00.123456789Z","data":{"id":"call_2","index":0,"isError":true,"name":"nope","status":"error","step":1,"text":"unknown tool"}}`,
  `{"type":"step.end","sessionId":"ses_1","runId":"run_1","seq":16,"time":"2026-11-29T21:00:00.123456789Z","data":{"error":"the model's stream ended before it was complete","step":3,"usage":{"promptTokens":0,"completionTokens":0,"totalTokens":0}}}`,
  `{"type":"file.changed_outside","sessionId":"ses_1","seq":22,"time":"2026-11-29T21:00:00.123456789Z","data":{"exists":false,"path":"/w/a.go"}}`,
];

describe("the generated event types", () => {
  it("narrow an event's data by its type", () => {
    const got = golden.map((l) => summary(JSON.parse(l) as TypedEvent));
    expect(got).toEqual(["nope error 0", "the model's stream ended before it was complete", "/w/a.go false"]);
  });

  it("type the payloads the Go side builds", () => {
    const end: TypedEvent = {
      type: TypeToolEnd,
      sessionId: "ses_1",
      runId: "run_1",
      seq: 3,
      time: "2026-11-29T21:00:00Z",
      data: { id: "c1", index: 0, isError: false, name: "read", status: CallDone, step: 1, text: "ok", durationMs: 4 },
    };
    const last: TypedEvent = {
      type: "run.end",
      sessionId: "ses_1",
      seq: 4,
      time: "2026-11-29T21:00:00Z",
      data: { error: "", status: RunStatusCompleted, steps: 1, usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } },
    };
    expect([summary(end), summary(last)]).toEqual(["read done 0", "completed 1"]);
  });
});
