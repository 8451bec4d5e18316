package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "foya/backend/provider/providertest"
)

// TestBrowserInlineApprovals runs a session in Manual in Chromium against
// foya serve and the scripted model, whose run asks three times: a bash
// command, a call of an MCP tool (the repository's example server) with a
// long argument, and a write. Each request shows in the conversation at
// its call, found by role and name, with what would run (the command and
// its parse, the server, its tool and the arguments as JSON folded until
// "Show all", the diff), takes focus, nothing inside it scrolls on its
// own at 1280x800, and is answered with its key (Y, Y, S); the run goes on
// each time: the command ran, the note was added, the file was written.
//
// spec: A2, W3
func TestBrowserInlineApprovals(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	server := filepath.Join(t.TempDir(), "foya-notes")
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", server, "./examples/mcp/foya-notes")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example MCP server: %v\n%s", err, out)
	}
	note, _ := json.Marshal(map[string]string{"text": "remember " + strings.Repeat("the inline approvals ", 20)})
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"echo inline > ran.txt && echo ok","reason":"show the command"}`}),
		pt.Calls(pt.Call{Name: "mcp__notes__note_add", Arguments: string(note)}),
		pt.Calls(pt.Call{Name: "write", Arguments: `{"path":"notes.txt","content":"first line\nsecond line\n"}`}),
		pt.Say("All three done."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	// Loaded up front (not behind tool_search), so the scripted call finds it.
	srv.call(t, nil, "AddMCPServer", map[string]any{"name": "notes", "command": server, "alwaysLoad": true})
	waitMCPReady(t, srv, "notes")
	project := t.TempDir()
	srv.call(t, nil, "CreateSession", map[string]any{"workdir": project, "approvalMode": "manual", "title": "Inline approvals"})

	runScript(t, "approvals.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_TITLE":   "Inline approvals",
		"FOYA_PROJECT": project,
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	srv.stop(t)
}

// waitMCPReady waits until the user's MCP server name is ready.
func waitMCPReady(t *testing.T, srv *serve, name string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var list struct {
			Servers []struct{ Name, State, Error string }
		}
		srv.call(t, &list, "MCPServers", "")
		for _, s := range list.Servers {
			if s.Name == name && s.State == "ready" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("MCP server %s not ready within a minute: %+v", name, list.Servers)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
