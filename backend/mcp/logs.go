package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// LogEntry is one log message a server sent (notifications/message), or
// a note of Foya's about the server's logging (Logger "foya").
type LogEntry struct {
	Time time.Time `json:"time"`
	// Level is the server's syslog level (debug, info, notice, warning,
	// error, critical, alert, emergency); another word is kept as sent,
	// bounded.
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	// Data is the message's data as text: a string as it is, anything
	// else as JSON, bounded to logDataBytes.
	Data string `json:"data"`
}

const (
	// logKeep is how many messages are kept per server: the last ones.
	logKeep = 200
	// logDataBytes bounds one message's text.
	logDataBytes = 4 << 10
	// LogLevel is the level Foya asks a server that declares the logging
	// capability to log from (logging/setLevel).
	LogLevel = mcp.LoggingLevelInfo
)

// logBook keeps the servers' recent log messages, by server key (workdir
// and name), across restarts of a server. Its zero value is ready.
type logBook struct {
	mu sync.Mutex
	by map[string][]LogEntry
}

func (b *logBook) add(key string, e LogEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.by == nil {
		b.by = map[string][]LogEntry{}
	}
	list := append(b.by[key], e)
	if len(list) > logKeep {
		// Copy, so that the old backing array (and its messages) is freed.
		list = slices.Clone(list[len(list)-logKeep:])
	}
	b.by[key] = list
}

func (b *logBook) get(key string) []LogEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.by[key])
}

// logEntryOf reads a notifications/message; a malformed one is kept as
// well as it can be read (a server's bug is worth seeing).
func logEntryOf(n mcp.JSONRPCNotification, now time.Time) LogEntry {
	f := n.Params.AdditionalFields
	e := LogEntry{Time: now, Level: "info"}
	if v, ok := f["level"].(string); ok && v != "" {
		e.Level = bounded(strings.ToValidUTF8(v, "\uFFFD"), 32)
	}
	if v, ok := f["logger"].(string); ok {
		e.Logger = bounded(strings.ToValidUTF8(v, "\uFFFD"), 256)
	}
	switch d := f["data"].(type) {
	case nil:
	case string:
		e.Data = d
	default:
		data, err := json.Marshal(d)
		if err != nil {
			e.Data = fmt.Sprint(d)
		} else {
			e.Data = string(data)
		}
	}
	e.Data = bounded(strings.ToValidUTF8(e.Data, "\uFFFD"), logDataBytes)
	return e
}

// logged keeps a server's log message.
func (s *server) logged(n mcp.JSONRPCNotification) {
	s.m.logs.add(s.key(), logEntryOf(n, time.Now()))
}

// setLogLevel asks a server that declares the logging capability to send
// its messages from LogLevel up. A server that refuses still works: the
// refusal is noted in its log.
func (s *server) setLogLevel(ctx context.Context, c *client.Client) {
	if c.GetServerCapabilities().Logging == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.InitTimeout)
	defer cancel()
	req := mcp.SetLevelRequest{}
	req.Params.Level = LogLevel
	if err := c.SetLevel(ctx, req); err != nil && ctx.Err() == nil {
		s.m.logs.add(s.key(), LogEntry{Time: time.Now(), Level: "warning", Logger: "foya",
			Data: bounded(fmt.Sprintf("the server refused logging/setLevel %s: %v", LogLevel, err), logDataBytes)})
	}
}

// ServerLog is a server's recent log messages, oldest first, and the end
// of its standard error (a stdio server's; the last connection's when it
// is down).
type ServerLog struct {
	Entries []LogEntry
	Stderr  string
}

// Log returns the recent log messages of a server (a project's of
// workdir wins over the user's of the same name), oldest first, at most
// the last 200, and the end of its standard error.
func (m *Manager) Log(workdir, name string) (ServerLog, error) {
	s, err := m.find(workdir, name)
	if err != nil {
		return ServerLog{}, err
	}
	return ServerLog{Entries: m.logs.get(s.key()), Stderr: s.status().Stderr}, nil
}
