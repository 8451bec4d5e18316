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

// Instructions statuses.
const (
	InstructionsUsed    = "used"    // the file is in the system prompt
	InstructionsSkipped = "skipped" // a file is there but was not used; Skipped says why
	InstructionsNone    = "none"    // the working directory has neither file
)

// Instructions says which project instructions file (AGENTS.md, else
// CLAUDE.md, at the root of the working directory) a run put into its
// system prompt, or why none. It is the "instructions" field of the
// run.start event.
type Instructions struct {
	Status string `json:"status"`
	// File is the file's name in the working directory; empty for none.
	File string `json:"file,omitempty"`
	// Size is the file's size in bytes; Bytes the length of the text the
	// system prompt holds (before the truncation notice).
	Size  int64 `json:"size,omitempty"`
	Bytes int   `json:"bytes,omitempty"`
	// Truncated says the file was cut at the bound, with a notice saying so.
	Truncated bool `json:"truncated,omitempty"`
	// InvalidUTF8 says bytes that are not UTF-8 were replaced with U+FFFD.
	InvalidUTF8 bool `json:"invalidUtf8,omitempty"`
	// Skipped is why the file was not used, worded for the user.
	Skipped string `json:"skipped,omitempty"`
}
