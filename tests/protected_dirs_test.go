package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox/sandboxtest"
)

// TestNoEmptyProtectedFolders runs a session's sandboxed commands, one of
// which tries to make .foya with content, in a project without .foya and
// .agents and in one that has them: the command cannot make them, and
// afterwards the first project still has neither (the sandbox made them
// empty only while its commands ran) while the second's are as they were.
//
// spec: A2
func TestNoEmptyProtectedFolders(t *testing.T) {
	needSandbox(t)
	root := sandboxtest.Dir(t) // outside /tmp, which the sandbox hides
	bare, kept := filepath.Join(root, "bare"), filepath.Join(root, "kept")
	for _, d := range []string{bare, filepath.Join(kept, ".foya"), filepath.Join(kept, ".agents")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	escWrite(t, filepath.Join(kept, ".agents", "AGENTS.md"), "the user's\n")
	bash := func(id, cmd string) pt.Call {
		args, _ := json.Marshal(map[string]any{"command": cmd})
		return call(id, "bash", string(args))
	}
	turn := []pt.Turn{
		pt.Calls(bash("list", "echo made > work.txt; ls -a"), bash("plant", "mkdir -p .foya .agents && echo '{}' > .foya/permissions.json")),
		pt.Say("done"),
	}
	h := newHarness(t, nil, append(append([]pt.Turn{}, turn...), turn...)...)
	ctx := context.Background()
	for _, ws := range []string{bare, kept} {
		s, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: ws, ApprovalMode: "auto", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		run := h.runIn(ctx, s.ID, "go")
		calls, err := h.k.Calls(ctx, run.ID)
		if err != nil || len(calls) != 2 {
			t.Fatalf("calls in %s: %+v %v", ws, calls, err)
		}
		for _, c := range calls {
			if c.Result == nil {
				t.Fatalf("call %s has no result", c.ID)
			}
			if c.Result.IsError {
				t.Errorf("%s in %s: %q", c.Arguments, ws, c.Result.Text)
			}
			if strings.Contains(c.Arguments, "mkdir") && !strings.Contains(c.Result.Text, "sandbox seems to have blocked") {
				t.Errorf("%s in %s: the model is not told the sandbox blocked it: %q", c.Arguments, ws, c.Result.Text)
			}
		}
		if !pathExists(filepath.Join(ws, "work.txt")) {
			t.Errorf("the command did not run in %s", ws)
		}
		if pathExists(filepath.Join(ws, ".foya", "permissions.json")) {
			t.Errorf("a sandboxed command planted .foya/permissions.json in %s", ws)
		}
	}
	for _, name := range []string{".foya", ".agents"} {
		if pathExists(filepath.Join(bare, name)) {
			t.Errorf("%s is left in a project that had none", name)
		}
		if fi, err := os.Stat(filepath.Join(kept, name)); err != nil || !fi.IsDir() {
			t.Errorf("the project's own %s is gone: %v", name, err)
		}
	}
	if got := escRead(filepath.Join(kept, ".agents", "AGENTS.md")); got != "the user's\n" {
		t.Errorf("the project's .agents/AGENTS.md = %q", got)
	}
}
