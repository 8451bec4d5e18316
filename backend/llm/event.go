package llm

import "foya/backend/event"

// Event is one entry of a session's append-only event log: see package
// event, which owns the event types, their payloads and constructors.
type Event = event.Event

// Instructions statuses.
const (
	InstructionsUsed    = event.InstructionsUsed
	InstructionsSkipped = event.InstructionsSkipped
	InstructionsNone    = event.InstructionsNone
)

// Instructions says which project instructions file a run put into its
// system prompt, or why none (event.Instructions).
type Instructions = event.Instructions

// Event types under their old names, for code written before package
// event.
//
// Deprecated: use the event.Type constants.
const (
	EventRunStart       = event.TypeRunStart
	EventRunEnd         = event.TypeRunEnd
	EventStepStart      = event.TypeStepStart
	EventStepEnd        = event.TypeStepEnd
	EventTextDelta      = event.TypeTextDelta
	EventReasoningDelta = event.TypeReasoningDelta
	EventToolBegin      = event.TypeToolBegin
	EventToolUpdate     = event.TypeToolUpdate
	EventToolEnd        = event.TypeToolEnd
	EventRunInterrupted = event.TypeRunInterrupted
	EventToolsActivated = event.TypeToolsActivated
)
