package mcpconfig

import "time"

// LogEntry is one log message an MCP server sent (notifications/message),
// or a note of Foya's about its logging (Logger "foya").
type LogEntry struct {
	Time time.Time `json:"time"`
	// Level is the server's level: debug, info, notice, warning, error,
	// critical, alert or emergency.
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	// Data is the message as text (JSON when the server sent an object),
	// at most 4 KiB.
	Data string `json:"data"`
}

// ServerLog is what an MCP server said lately: its log messages, oldest
// first (the last 200), and the end of its standard error (a stdio
// server's; the last connection's while it is down).
type ServerLog struct {
	Entries []LogEntry `json:"entries"`
	Stderr  string     `json:"stderr,omitempty"`
	// Level is the level Foya asks servers to log from (logging/setLevel,
	// sent to those that declare logging).
	Level string `json:"level"`
}
