package server_test

import (
	"encoding/json"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/mcp/mcpconfig"
	"foya/backend/provider/providertest"
	"foya/backend/server"
)

// TestNoticesOverSSE: a background command's start, output and end and an
// MCP server's changes reach the all-sessions stream as background.changed
// and mcp.changed notices, without an id line, so that the browser's panel
// and MCP settings follow them with no timer; a session's own stream,
// which resumes by seq, carries none.
// spec: B1, M1
func TestNoticesOverSSE(t *testing.T) {
	f := start(t, server.Options{},
		providertest.Calls(providertest.Call{ID: "bg", Name: "bash", Arguments: `{"command":"echo hello; exec sleep 60","run_in_background":true}`}),
		providertest.Say("Started."),
	)
	sess := f.session("full_access")
	all := f.stream("/api/events", nil)
	defer all.close()
	one := f.stream("/api/sessions/"+sess.ID+"/events", nil)
	defer one.close()
	var runID string
	f.call(&runID, "Run", sess.ID, "start a server")

	for {
		ev, err := one.next()
		if err != nil {
			t.Fatal(err)
		}
		if event.IsNotice(ev.Type) {
			t.Fatalf("the session's stream carried the notice %s", ev.Type)
		}
		if ev.Type == event.TypeRunEnd {
			break
		}
	}
	// next reads the all-sessions stream until a background notice of
	// change want, and returns its payload.
	next := func(want string) event.BackgroundChangedData {
		t.Helper()
		for {
			ev, err := all.next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.Type != event.TypeBackgroundChanged {
				continue
			}
			var d event.BackgroundChangedData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			if ev.SessionID != sess.ID || d.SessionID != sess.ID || ev.RunID != "" {
				t.Fatalf("notice %+v of session %q; want session %s, no run", d, ev.SessionID, sess.ID)
			}
			if d.Change == want {
				return d
			}
		}
	}
	if d := next(event.BackgroundStarted); d.ID != "bg1" || !d.Running {
		t.Errorf("started: %+v", d)
	}
	if d := next(event.BackgroundOutput); d.OutputBytes != int64(len("hello\n")) {
		t.Errorf("output: %+v; want the 6 bytes of hello", d)
	}
	var killed kernel.BackgroundCommand
	f.call(&killed, "KillBackground", sess.ID, "bg1")
	if d := next(event.BackgroundEnded); d.Running || !d.Killed {
		t.Errorf("ended: %+v; want killed", d)
	}

	// An MCP server that cannot start: the configuration changed, and the
	// server went from connecting to failed.
	f.call(nil, "AddMCPServer", mcpconfig.Config{Name: "broken", Command: "/nonexistent/mcp-server"})
	seen := map[string]bool{}
	for !seen[event.MCPConfig] || !seen["failed"] {
		ev, err := all.next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != event.TypeMCPChanged {
			continue
		}
		var d event.MCPChangedData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		if ev.SessionID != "" {
			t.Errorf("mcp.changed of session %q; want none", ev.SessionID)
		}
		seen[d.Change] = true
		if d.Change == event.MCPState {
			if d.Server != "broken" {
				t.Errorf("state of %q; want broken", d.Server)
			}
			seen[d.State] = true
			if d.State == "failed" && d.Error == "" {
				t.Error("failed with no error")
			}
		}
	}
	if !seen["connecting"] {
		t.Error("the server's start (connecting) was not told")
	}
}
