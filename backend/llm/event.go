package llm

import (
	"encoding/json"
	"time"
)

// Event types clients see. Names are dotted; every event carries the session,
// the run and the per-session sequence number.
const (
	EventRunStart       = "run.start"
	EventRunEnd         = "run.end"
	EventStepStart      = "step.start"
	EventStepEnd        = "step.end"
	EventTextDelta      = "text.delta"
	EventReasoningDelta = "reasoning.delta"
	EventToolBegin      = "tool.begin"
	EventToolUpdate     = "tool.update"
	EventToolEnd        = "tool.end"
	EventUserMessage    = "message.user"
	EventRunInterrupted = "run.interrupted"
	EventToolsActivated = "tools.activated"
)

// Event is one entry of a session's append-only event log. Seq is assigned
// by the store when the event is persisted, before any client sees it. Data
// holds the type-specific payload as a JSON object; it never holds binaries
// (spec I2).
type Event struct {
	Type      string          `json:"type"`
	SessionID string          `json:"sessionId"`
	RunID     string          `json:"runId,omitempty"`
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Data      json.RawMessage `json:"data,omitempty"`
}
