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
			if r := call(t, reg, nil, "mcp__logs__log", `{}`); r.Text != "logged" {
				t.Fatalf("log = %q", r.Text)
			}
			var got []mcp.LogEntry
			waitFor(t, "three log messages", func() bool {
				l, err := m.Log("", "logs")
				if err != nil {
					t.Fatal(err)
				}
				got = l.Entries
				return len(got) >= 3
			})
			if len(got) != 3 {
				t.Fatalf("entries = %+v; want info, warning, error (no debug)", got)
			}
			// The server's queue may reorder its messages over HTTP: Foya
			// keeps them in the order they arrive.
			byLevel := map[string]mcp.LogEntry{}
			for _, e := range got {
				byLevel[e.Level] = e
				if e.Time.IsZero() {
					t.Errorf("%+v has no time", e)
				}
			}
			if e := byLevel["info"]; e.Logger != "indexer" || e.Data != "indexed 12 files" {
				t.Errorf("info = %+v", e)
			}
			if e := byLevel["warning"]; e.Data != `{"disk":"low"}` {
				t.Errorf("warning = %+v", e)
			}
			if e := byLevel["error"]; e.Logger != "db" || len(e.Data) > 4<<10+len("…") || !strings.HasSuffix(e.Data, "…") {
				t.Errorf("error: logger %s, %d bytes; want from db, cut to 4 KiB", e.Logger, len(e.Data))
			}
			if r := call(t, reg, nil, "mcp__logs__flood", `{}`); r.Text != "flooded" {
				t.Fatalf("flood = %q", r.Text)
			}
			has := func(l mcp.ServerLog, data string) bool {
				return slices.ContainsFunc(l.Entries, func(e mcp.LogEntry) bool { return e.Data == data })
			}
			waitFor(t, "the flood's last message", func() bool {
				l, _ := m.Log("", "logs")
				return has(l, "message 250")
			})
			l, _ := m.Log("", "logs")
			if len(l.Entries) != 200 || has(l, "indexed 12 files") || has(l, "message 1") {
				t.Errorf("after the flood: %d entries from %q; want the last 200 of the flood", len(l.Entries), l.Entries[0].Data)
			}
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
