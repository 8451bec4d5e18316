package event

import "time"

// Notices are events that are published but never stored: they say that
// something outside a session's log changed (a background command, an MCP
// server, an MCP server's question to the user), so that a view showing
// it follows it without asking again on a timer. A notice has no seq (0) and no run; SessionID names the session
// a background command belongs to and is empty for an MCP server. A client
// that reconnects is not sent the notices it missed: it lists again.
const (
	TypeBackgroundChanged = "background.changed"
	TypeMCPChanged        = "mcp.changed"
	TypeMCPElicitation    = "mcp.elicitation"
)

// Notices lists every notice type, in the order of docs/events.md.
var Notices = []string{TypeBackgroundChanged, TypeMCPChanged, TypeMCPElicitation}

// IsNotice reports whether typ is a notice type: published, never stored
// nor replayed, with no seq.
func IsNotice(typ string) bool {
	return typ == TypeBackgroundChanged || typ == TypeMCPChanged || typ == TypeMCPElicitation
}

// Background command changes (BackgroundChangedData.Change).
const (
	// BackgroundStarted: the command started.
	BackgroundStarted = "started"
	// BackgroundOutput: it printed more (OutputBytes grew); these notices
	// are coalesced, at most one every half second per command, and the
	// last output is never left unannounced.
	BackgroundOutput = "output"
	// BackgroundEnded: it ended by itself, by its timeout, or because it
	// was killed (Killed).
	BackgroundEnded = "ended"
)

// BackgroundChangedData is the payload of background.changed: a session's
// background command as it is now, with what changed. Its fields after
// Change are those of the kernel's BackgroundCommand, so a client replaces
// the command it lists by ID with it.
type BackgroundChangedData struct {
	// Change is one of the Background* constants.
	Change    string    `json:"change"`
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	Command   string    `json:"command"`
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
	Running   bool      `json:"running"`
	// ExitCode and Signal say how it ended, once it has.
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal,omitempty"`
	// Killed says it was ended on request; TimedOut that its timeout
	// ended it.
	Killed   bool `json:"killed,omitempty"`
	TimedOut bool `json:"timedOut,omitempty"`
	// DurationNs is how long it ran, in nanoseconds, once it has ended.
	DurationNs int64 `json:"durationNs,omitempty"`
	// Sandbox names what confined it ("none" without sandbox).
	Sandbox string `json:"sandbox"`
	// OutputBytes counts everything it printed so far.
	OutputBytes int64 `json:"outputBytes"`
}

// BackgroundChanged is a background.changed notice.
func BackgroundChanged(d BackgroundChangedData) Event { return of(TypeBackgroundChanged, d) }

// MCP server changes (MCPChangedData.Change).
const (
	// MCPState: the server's state changed (State: connecting, ready,
	// failed, stopped); Error says why it failed.
	MCPState = "state"
	// MCPApproved: a person approved a project's server.
	MCPApproved = "approved"
	// MCPConfig: the configuration changed (a server added, removed,
	// imported, set to always load).
	MCPConfig = "config"
)

// MCPChangedData is the payload of mcp.changed: something a list of the
// MCP servers shows changed. It names the server and, for a state change,
// its new state; a client lists the servers again for the rest.
type MCPChangedData struct {
	// Change is one of the MCP* constants.
	Change string `json:"change"`
	// Server is the server's name; empty when a change concerns several.
	Server string `json:"server,omitempty"`
	// Workdir is the project of a project's server; empty for the user's.
	Workdir string `json:"workdir,omitempty"`
	// State is the server's state, for MCPState.
	State string `json:"state,omitempty"`
	// Error says why the server failed.
	Error string `json:"error,omitempty"`
}

// MCPChanged is an mcp.changed notice.
func MCPChanged(d MCPChangedData) Event { return of(TypeMCPChanged, d) }
