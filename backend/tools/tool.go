package tools

import (
	"context"
	"encoding/json"

	"foya/backend/event"
	"foya/backend/llm"
)

// Exposure controls when a tool's schema is visible to the model (spec E1).
type Exposure string

const (
	// Direct tools are in every request from the start of a turn.
	Direct Exposure = "direct"
	// Deferred tools are sent only after tool_search activated them, from
	// the next step on and for the current turn only (spec E2, K3).
	Deferred Exposure = "deferred"
	// Hidden tools are never shown to the model and cannot be called by it.
	Hidden Exposure = "hidden"
)

// Spec describes a tool to the registry and the model (spec T1).
type Spec struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments, an object schema.
	Schema   json.RawMessage
	Exposure Exposure
	// ReadOnly tools change nothing; read-only run modes offer only these.
	ReadOnly bool
}

// Tool is the plugin contract every tool implements (spec T1).
//
// Run returns a Result for everything the model can act on, failures
// included (Result.IsError, spec T4), and a Go error only when the program
// itself is broken; such an error ends the run (spec K4).
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, rc *RunContext, call Call) (Result, error)
}

// Parallel is the optional capability of tools that may run at the same time
// as other calls of one model response. The tool decides per call; the
// runtime infers nothing (spec P1, K2).
type Parallel interface {
	ParallelSafe(call Call) bool
}

// Call is one tool call: a stable ID, the tool's name and the raw JSON
// arguments as the model sent them (spec T2).
type Call struct {
	ID   string
	Name string
	// Arguments are read-only: they may share memory with the history's
	// copy of the arguments (they can be a file's worth of text), so a tool
	// that must change them works on a copy.
	Arguments json.RawMessage
}

// Image is an image a tool returns; the engine moves its bytes to the
// session's artifact store before anything else sees the result (spec I1).
type Image struct {
	MIME string
	Data []byte
}

// Audio is a sound a tool returns (an MCP server's audio content); the
// engine keeps its bytes in the session's artifact store, as an image's,
// and tells the model it was kept: models are not given audio.
type Audio struct {
	MIME string
	Data []byte
}

// Result is what a tool returns (spec T3).
type Result struct {
	// Text is what the model reads.
	Text string
	// Images are returned image bytes.
	Images []Image
	// Audio are returned sounds.
	Audio []Audio
	// Artifacts are references to artifacts already stored.
	Artifacts []string
	// IsError marks a business failure the model should read and correct.
	IsError bool
	// StopBatch ends the current batch: calls after this one are not run.
	StopBatch bool
	// FileChanges record what the call changed on disk (spec F1); the
	// engine stores them, with their contents, in the same transaction as
	// the result.
	FileChanges []FileChange
	// DisplayDiff is shown to the user only, never sent to the model (spec F2).
	DisplayDiff string
	// ExitCode is a shell command's exit status when it exited by itself
	// (nil for other tools, and for a command timed out, cancelled or
	// killed by a signal): shown to the user as the call's outcome.
	ExitCode *int
	// Background is the ID of the background command the call started.
	Background string
	// Denials say what the sandbox refused a shell command, in words,
	// with what the user may allow (shown on the call's card; the model
	// reads the same sentences in Text).
	Denials []event.Denial
}

// FileChange is a change a tool made to one file: the record, and the
// contents before and after (nil where the file did not exist, or for a
// folder), which the engine keeps as content-addressed blobs.
type FileChange struct {
	llm.FileChange
	Before, After []byte
}

// Errorf returns an IsError result with a message for the model, bounded
// by maxErrorText: a message that quotes an argument (grep's invalid
// pattern, a path) was as large as that argument, and was stored and sent
// back in every later request.
func Errorf(format string, args ...any) Result {
	return Result{Text: bounded(sprintf(format, args...), maxErrorText), IsError: true}
}

// maxErrorText bounds an error result's text; outputs have their own
// limits (Limits).
const maxErrorText = 8 << 10

// Text returns a plain text result.
func Text(s string) Result { return Result{Text: s} }
