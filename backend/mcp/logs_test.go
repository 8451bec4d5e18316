package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"foya/backend/mcp"
	"foya/backend/mcp/mcptest"
)

// TestServerLogging: a real mcp-go server that declares logging, over
// stdio and over streamable HTTP, sends log messages during a call; Foya
// keeps them, oldest first, with their level, logger and data as text
// (an object as JSON, a 10 KB message cut to 4 KiB). Foya sets the level
// to info (logging/setLevel), so the debug message never comes, and an
// mcp-go stdio session, which otherwise sends errors alone, sends info.
// A flood of 250 messages leaves the last 200.
// spec: M1
func TestServerLogging(t *testing.T) {
	srv := mcptest.NewLoggingHTTP()
	t.Cleanup(srv.Close)
	entries := map[string]mcp.Entry{
		"stdio": stdioEntry(t, "logs", mcptest.LogMode),
		"http":  {Name: "logs", URL: srv.URL},
	}
	for transport, e := range entries {
		t.Run(transport, func(t *testing.T) {
			m, reg := newManager(t, mcp.Options{})
			m.Set("", []mcp.Entry{e})
			m.Wait(context.Background(), "")
			if st := status(m, "logs"); st.State != mcp.Ready {
				t.Fatalf("state = %s (%s)", st.State, st.Error)
			}
			// Over streamable HTTP mcp-go's server drops a notification now
			// and then (its session queue, the listening stream not yet
			// taken in): there the call is made again until each of its
			// three messages has come; over stdio once, and all four (the
			// level set too) must come.
			wantLevelSet := transport == "stdio"
			seen := func(l []mcp.LogEntry) bool {
				loggers := map[string]bool{}
				for _, e := range l {
					loggers[e.Logger] = true
				}
				return loggers["indexer"] && loggers[""] && loggers["db"] && (!wantLevelSet || loggers["mcplog"])
			}
			var got []mcp.LogEntry
			for try := 0; ; try++ {
				if r := call(t, reg, nil, "mcp__logs__log", `{}`); r.Text != "logged" {
					t.Fatalf("log = %q", r.Text)
				}
				if transport == "stdio" {
					waitFor(t, "four log messages", func() bool {
						l, err := m.Log("", "logs")
						if err != nil {
							t.Fatal(err)
						}
						got = l.Entries
						return seen(got)
					})
					break
				}
				l, err := m.Log("", "logs")
				if err != nil {
					t.Fatal(err)
				}
				if got = l.Entries; seen(got) {
					break
				}
				if try == 50 {
					t.Fatalf("after %d calls the log holds %+v; want info, warning and error", try+1, got)
				}
			}
			// The server's queue may reorder its messages over HTTP: Foya
			// keeps them in the order they arrive. Each has its logger.
			byLogger := map[string]mcp.LogEntry{}
			var levels []string
			for _, e := range got {
				byLogger[e.Logger] = e
				levels = append(levels, e.Level)
				if e.Time.IsZero() {
					t.Errorf("%s: no time", e.Level)
				}
			}
			_, levelSet := byLogger["mcplog"]
			if wantLevelSet && len(got) != 4 {
				t.Fatalf("levels %v; want the level set, then info, warning, error (no debug)", levels)
			}
			if slices.Contains(levels, "debug") {
				t.Errorf("levels %v: a debug message came, under the level set (info)", levels)
			}
			if e := byLogger["mcplog"]; levelSet && (e.Level != "info" || e.Data != "level set to info") {
				t.Errorf("setLevel: %+v; want the server to have been set to info", e)
			}
			if e := byLogger["indexer"]; e.Level != "info" || e.Data != "indexed 12 files" {
				t.Errorf("info = %+v", e)
			}
			if e := byLogger[""]; e.Level != "warning" || e.Data != `{"disk":"low"}` {
				t.Errorf("warning = %+v", e)
			}
			if e := byLogger["db"]; e.Level != "error" || len(e.Data) > 4<<10+len("…") || !strings.HasSuffix(e.Data, "…") {
				t.Errorf("error: level %s, %d bytes; want error, cut to 4 KiB", e.Level, len(e.Data))
			}
			if transport != "stdio" {
				return // the ring's bound is the transport's no matter: once is enough
			}
			if r := call(t, reg, nil, "mcp__logs__flood", `{}`); r.Text != "flooded" {
				t.Fatalf("flood = %q", r.Text)
			}
			has := func(l mcp.ServerLog, data string) bool {
				return slices.ContainsFunc(l.Entries, func(e mcp.LogEntry) bool { return e.Data == data })
			}
			// 250 messages after the first four leave 200 of the flood's.
			waitFor(t, "the last 200 of the flood", func() bool {
				l, _ := m.Log("", "logs")
				return len(l.Entries) == 200 && has(l, "message 250") && !has(l, "indexed 12 files") && !has(l, "level set to info")
			})
		})
	}
}

// TestServerLogUnknown: the log of a server Foya does not run is an
// error naming it; a server that does not declare logging has an empty
// log and its standard error.
// spec: M1
func TestServerLogUnknown(t *testing.T) {
	m, _ := newManager(t, mcp.Options{})
	if _, err := m.Log("", "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown server: %v", err)
	}
	m.Set("", []mcp.Entry{stdioEntry(t, "plain", "ok")})
	m.Wait(context.Background(), "")
	l, err := m.Log("", "plain")
	if err != nil || len(l.Entries) != 0 {
		t.Errorf("plain server: %+v, %v", l, err)
	}
}
