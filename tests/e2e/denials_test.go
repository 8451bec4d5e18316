package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserSandboxDenialAllowedForSession runs a command in the sandbox
// that writes outside the workspace: its card says so in words, the person
// allows the folder for the session from the card, the header lists the
// grant, and the same command sent again from the composer succeeds
// (issue 29 item 4).
//
// spec: A2
func TestBrowserSandboxDenialAllowedForSession(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	outside := t.TempDir()
	cmd := fmt.Sprintf("echo x > %s/f && echo wrote", outside)
	args, _ := json.Marshal(map[string]string{"command": cmd})
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "bash", Arguments: string(args)}), pt.Say("The sandbox refused the write."),
		pt.Calls(pt.Call{Name: "bash", Arguments: string(args)}), pt.Say("Written."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "Sandbox denials"})
	var runID string
	srv.call(t, &runID, "Run", sess.ID, "Write the file")
	waitRunEnd(t, srv, sess.ID, runID)
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Fatal("the sandboxed command wrote outside the workspace")
	}
	runScript(t, "denials.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_COMMAND": cmd,
		"FOYA_FOLDER":  outside,
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	if b, err := os.ReadFile(filepath.Join(outside, "f")); err != nil || string(b) != "x\n" {
		t.Errorf("after the grant the command wrote %q, %v; want x", b, err)
	}
	var grants []struct {
		Kind, Folder string
		Once         bool
	}
	srv.call(t, &grants, "SandboxGrants", sess.ID)
	if len(grants) != 1 || grants[0].Kind != "write" || grants[0].Folder != outside || grants[0].Once {
		t.Errorf("grants %+v; want %s writable for the session", grants, outside)
	}
	srv.stop(t)
}
