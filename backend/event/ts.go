package event

// tsEvents is TypeScript that tygo copies into the generated event.ts
// (tygo:emit): the payload type of each event type, and TypedEvent, the
// union of typed events a front end switches on (ev.type narrows ev.data);
// the same for notices (NoticeDataByType, TypedNotice).
// TestTSEvents checks it against Types and Payload.
//
//tygo:emit
var tsEvents = `
/**
 * EventDataByType maps each event type to its payload.
 */
export interface EventDataByType {
  "run.start": RunStartData;
  "step.start": StepStartData;
  "text.delta": TextDeltaData;
  "reasoning.delta": ReasoningDeltaData;
  "tool.begin": ToolBeginData;
  "tool.update": ToolUpdateData;
  "tool.end": ToolEndData;
  "tools.activated": ToolsActivatedData;
  "step.end": StepEndData;
  "approval.request": ApprovalRequestData;
  "approval.answer": ApprovalAnswerData;
  "session.mode": SessionModeData;
  "session.model": SessionModelData;
  "session.title": SessionTitleData;
  "run.steer": RunSteerData;
  "todo.updated": TodoUpdatedData;
  "file.reverted": FileRevertedData;
  "file.captured": FileCapturedData;
  "file.changed_outside": FileChangedOutsideData;
  "file.watch_degraded": FileWatchDegradedData;
  "change.reviewed": ChangeReviewedData;
  "run.interrupted": RunInterruptedData;
  "run.end": RunEndData;
  "hook.run": HookRunData;
  "context.compacted": ContextCompactedData;
  "context.uncompacted": ContextUncompactedData;
  "context.compact_failed": ContextCompactFailedData;
  "isolation.setup": IsolationSetupData;
  "isolation.applied": IsolationAppliedData;
  "isolation.discarded": IsolationDiscardedData;
}
/**
 * EventType is every event type.
 */
export type EventType = keyof EventDataByType;
/**
 * TypedEvent is an Event whose data is its type's payload: switching on
 * ev.type narrows ev.data.
 */
export type TypedEvent = {
  [T in EventType]: Omit<Event, "type" | "data"> & { type: T; data: EventDataByType[T] };
}[EventType];
/**
 * NoticeDataByType maps each notice type to its payload. Notices are
 * published, never stored: their seq is 0 and a session's log never
 * holds them.
 */
export interface NoticeDataByType {
  "background.changed": BackgroundChangedData;
  "mcp.changed": MCPChangedData;
  "mcp.elicitation": MCPElicitationData;
}
/**
 * NoticeType is every notice type.
 */
export type NoticeType = keyof NoticeDataByType;
/**
 * TypedNotice is a notice whose data is its type's payload.
 */
export type TypedNotice = {
  [T in NoticeType]: Omit<Event, "type" | "data"> & { type: T; data: NoticeDataByType[T] };
}[NoticeType];
`
