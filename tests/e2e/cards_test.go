package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserToolCards shows a step's tool cards in Chromium, found by role
// and name: a shell command that exits 3 says "exit 3" and shows the last
// lines of its output without a click, and three reads of the same step
// are one card, "Read 3 files", that expands to the three cards. The
// stored tool.end carries the exit status as a field.
//
// spec: L4
func TestBrowserToolCards(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "bash", Arguments: `{"command":"sh -c 'echo one; echo two; exit 3'"}`},
			pt.Call{Name: "read", Arguments: `{"path":"a.txt"}`},
			pt.Call{Name: "read", Arguments: `{"path":"b.txt"}`},
			pt.Call{Name: "read", Arguments: `{"path":"c.txt"}`}),
		pt.Say("The command exited 3; the files are read."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	project := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(name+" says hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": project, "approvalMode": "full_access", "title": "Tool cards"})
	var runID string
	srv.call(t, &runID, "Run", sess.ID, "Run it and read the files")
	waitRunEnd(t, srv, sess.ID, runID)

	var events []struct {
		Type string
		Data json.RawMessage
	}
	srv.call(t, &events, "Events", sess.ID, 0)
	var exit *int
	for _, ev := range events {
		var d struct {
			Name     string
			ExitCode *int
		}
		if ev.Type == "tool.end" && json.Unmarshal(ev.Data, &d) == nil && d.Name == "bash" {
			exit = d.ExitCode
		}
	}
	if exit == nil || *exit != 3 {
		t.Fatalf("bash's tool.end exitCode = %v; want 3", exit)
	}

	runScript(t, "cards.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_SHOTS": filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	srv.stop(t)
}
