package mcpconfig

import (
	"context"
	"time"

	"foya/backend/fault"
	"foya/backend/mcp"
	"foya/backend/store"
)

// Log returns a running server's recent log messages and the end of its
// standard error (a project's server for workdir wins over the user's of
// the same name).
func (s *Servers) Log(ctx context.Context, workdir, name string) (ServerLog, error) {
	l, err := s.m.Log(s.scope(ctx, workdir), name)
	if err != nil {
		return ServerLog{}, fault.Wrap(err, store.ErrNotFound)
	}
	return logOf(l), nil
}

func logOf(l mcp.ServerLog) ServerLog {
	out := ServerLog{Entries: make([]LogEntry, len(l.Entries)), Stderr: l.Stderr, Level: string(mcp.LogLevel)}
	for i, e := range l.Entries {
		out.Entries[i] = LogEntry{Time: e.Time, Level: e.Level, Logger: e.Logger, Data: e.Data}
	}
	return out
}

// pingWait bounds the ping before a log is read (One.Log).
const pingWait = 5 * time.Second

// Log returns what the server said while it connected and since: its log
// messages and the end of its standard error (foya mcp log). It pings the
// server first: mcp-go's servers write a message sent as the client sets
// the logging level on another goroutine than the answer, so it may come
// after the answer. A server that does not answer pings still shows its
// log, after pingWait at the most: the ping's failure is not the log's.
func (o *One) Log(ctx context.Context) (ServerLog, error) {
	pctx, cancel := context.WithTimeout(ctx, pingWait)
	_ = o.m.Ping(pctx, o.scope, o.name)
	cancel()
	l, err := o.m.Log(o.scope, o.name)
	if err != nil {
		return ServerLog{}, err
	}
	return logOf(l), nil
}
