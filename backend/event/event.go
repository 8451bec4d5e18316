package event

import (
	"encoding/json"
	"time"
)

// Event is one entry of a session's append-only event log. Seq is assigned
// by the store when the event is persisted, before any client sees it. Data
// holds the payload of Type as a JSON object (one of the *Data structs); it
// never holds binaries (spec I2). ParentCallID is set on every event of a
// sub-agent's run (the task tool): the ID of the task call that started
// it, so clients nest the child's events under that call. A notice
// (IsNotice) is an Event that is never stored: its Seq is 0.
type Event struct {
	Type         string          `json:"type"`
	SessionID    string          `json:"sessionId"`
	RunID        string          `json:"runId,omitempty"`
	ParentCallID string          `json:"parentCallId,omitempty"`
	Seq          int64           `json:"seq"`
	Time         time.Time       `json:"time"`
	Data         json.RawMessage `json:"data,omitempty" tstype:"unknown"`
}

// Event types, one per payload struct. Names are dotted.
const (
	TypeRunStart           = "run.start"
	TypeStepStart          = "step.start"
	TypeTextDelta          = "text.delta"
	TypeReasoningDelta     = "reasoning.delta"
	TypeToolBegin          = "tool.begin"
	TypeToolUpdate         = "tool.update"
	TypeToolEnd            = "tool.end"
	TypeToolsActivated     = "tools.activated"
	TypeStepEnd            = "step.end"
	TypeApprovalRequest    = "approval.request"
	TypeApprovalAnswer     = "approval.answer"
	TypeHookRun            = "hook.run"
	TypeSessionMode        = "session.mode"
	TypeSessionModel       = "session.model"
	TypeSessionTitle       = "session.title"
	TypeRunSteer           = "run.steer"
	TypeTodoUpdated        = "todo.updated"
	TypeFileReverted       = "file.reverted"
	TypeFileCaptured       = "file.captured"
	TypeFileChangedOutside = "file.changed_outside"
	TypeFileWatchDegraded  = "file.watch_degraded"
	TypeChangeReviewed     = "change.reviewed"
	TypeRunInterrupted     = "run.interrupted"
	TypeRunEnd             = "run.end"
	// The context compiler's compactions (issue 28): one made, one undone,
	// one that failed.
	TypeContextCompacted     = "context.compacted"
	TypeContextUncompacted   = "context.uncompacted"
	TypeContextCompactFailed = "context.compact_failed"

	// An isolated session's copy (issue 29, docs/isolated-sessions.md).
	TypeIsolationSetup     = "isolation.setup"
	TypeIsolationApplied   = "isolation.applied"
	TypeIsolationDiscarded = "isolation.discarded"
)

// Types lists every type of the events a session's log stores, in the
// order of docs/events.md; Notices lists the types published but never
// stored.
var Types = []string{
	TypeRunStart, TypeStepStart, TypeTextDelta, TypeReasoningDelta, TypeToolBegin, TypeToolUpdate,
	TypeToolEnd, TypeToolsActivated, TypeStepEnd, TypeApprovalRequest, TypeApprovalAnswer,
	TypeSessionMode, TypeSessionModel, TypeSessionTitle, TypeRunSteer, TypeTodoUpdated, TypeFileReverted, TypeFileCaptured, TypeFileChangedOutside, TypeFileWatchDegraded,
	TypeChangeReviewed, TypeRunInterrupted, TypeRunEnd, TypeHookRun,
	TypeContextCompacted, TypeContextUncompacted, TypeContextCompactFailed,
	TypeIsolationSetup, TypeIsolationApplied, TypeIsolationDiscarded,
}

// Data marshals v as an event payload. It panics if v cannot be marshalled,
// which is a programmer error: payloads are plain structs.
func Data(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("event: payload: " + err.Error())
	}
	return b
}

// of is the event of type typ with payload d; the session, run, seq and
// time are filled in by whoever stores it.
func of(typ string, d any) Event { return Event{Type: typ, Data: Data(d)} }

// Payload returns a pointer to a new zero payload of event or notice type
// typ (a *RunStartData for run.start, ...), for decoding Data into; nil for
// a type this package does not know.
func Payload(typ string) any {
	switch typ {
	case TypeRunStart:
		return new(RunStartData)
	case TypeStepStart:
		return new(StepStartData)
	case TypeTextDelta:
		return new(TextDeltaData)
	case TypeReasoningDelta:
		return new(ReasoningDeltaData)
	case TypeToolBegin:
		return new(ToolBeginData)
	case TypeToolUpdate:
		return new(ToolUpdateData)
	case TypeToolEnd:
		return new(ToolEndData)
	case TypeToolsActivated:
		return new(ToolsActivatedData)
	case TypeStepEnd:
		return new(StepEndData)
	case TypeApprovalRequest:
		return new(ApprovalRequestData)
	case TypeApprovalAnswer:
		return new(ApprovalAnswerData)
	case TypeHookRun:
		return new(HookRunData)
	case TypeSessionMode:
		return new(SessionModeData)
	case TypeSessionModel:
		return new(SessionModelData)
	case TypeSessionTitle:
		return new(SessionTitleData)
	case TypeRunSteer:
		return new(RunSteerData)
	case TypeTodoUpdated:
		return new(TodoUpdatedData)
	case TypeFileReverted:
		return new(FileRevertedData)
	case TypeFileCaptured:
		return new(FileCapturedData)
	case TypeFileChangedOutside:
		return new(FileChangedOutsideData)
	case TypeFileWatchDegraded:
		return new(FileWatchDegradedData)
	case TypeChangeReviewed:
		return new(ChangeReviewedData)
	case TypeRunInterrupted:
		return new(RunInterruptedData)
	case TypeRunEnd:
		return new(RunEndData)
	case TypeContextCompacted:
		return new(ContextCompactedData)
	case TypeContextUncompacted:
		return new(ContextUncompactedData)
	case TypeIsolationSetup:
		return new(IsolationSetupData)
	case TypeIsolationApplied:
		return new(IsolationAppliedData)
	case TypeIsolationDiscarded:
		return new(IsolationDiscardedData)
	case TypeContextCompactFailed:
		return new(ContextCompactFailedData)
	case TypeBackgroundChanged:
		return new(BackgroundChangedData)
	case TypeMCPChanged:
		return new(MCPChangedData)
	case TypeMCPElicitation:
		return new(MCPElicitationData)
	}
	return nil
}
