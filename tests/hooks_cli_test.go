package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
)

// foya hooks lists the hooks in effect, yours and the project's, with
// whether they run; allow approves the project's file as shown (and
// refuses a hash that is not the file's), a change unapproves it, revoke
// withdraws it.
func TestHooksCommand(t *testing.T) {
	bin := foyaBinary(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(ws, ".foya"), 0o755)
	file := filepath.Join(ws, ".foya", "hooks.json")
	project := `{"hooks":[{"name":"guard","event":"before_tool","match":"bash","command":"./check.sh"}]}`
	escWrite(t, file, project)
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "foya"), 0o700)
	escWrite(t, filepath.Join(data, "foya", "hooks.json"), `{"hooks":[{"name":"ping","event":"turn_end","command":"notify-send done"}]}`)
	db := filepath.Join(t.TempDir(), "foya.db")
	env := []string{"XDG_DATA_HOME=" + data}
	run := func(args ...string) execResult {
		return runFoya(t, bin, env, append([]string{"hooks", "--workdir", ws, "--db", db}, args...)...)
	}
	status := func() kernel.Hooks {
		res := run("--json")
		var h kernel.Hooks
		if err := json.Unmarshal([]byte(res.stdout), &h); err != nil {
			t.Fatalf("foya hooks --json: %v\n%s%s", err, res.stdout, res.stderr)
		}
		return h
	}

	res := run()
	if res.code != 0 || !strings.Contains(res.stdout, "not approved, not run") || !strings.Contains(res.stdout, "guard") ||
		!strings.Contains(res.stdout, "ping") || !strings.Contains(res.stdout, "they run (outside the sandbox") {
		t.Fatalf("foya hooks: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if h := status(); h.User.Status != kernel.HooksActive || h.Project.Status != kernel.HooksUnapproved || len(h.Project.Hooks) != 1 {
		t.Fatalf("status %+v", h)
	}
	if res := run("allow", "--hash", strings.Repeat("0", 64)); res.code != 1 || !strings.Contains(res.stderr, "changed since it was shown") {
		t.Errorf("allow with another hash: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = run("allow")
	if res.code != 0 || !strings.Contains(res.stdout, project) || !strings.Contains(res.stdout, "Approved") {
		t.Fatalf("foya hooks allow: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if s := status().Project.Status; s != kernel.HooksApproved {
		t.Fatalf("after allow: %s", s)
	}
	escWrite(t, file, `{"hooks":[{"name":"guard","event":"before_tool","command":"./check.sh"}]}`)
	if res := run(); !strings.Contains(res.stdout, "CHANGED") || status().Project.Status != kernel.HooksChanged {
		t.Errorf("after a change: %s", res.stdout)
	}
	run("allow")
	if res := run("revoke"); res.code != 0 || status().Project.Status != kernel.HooksUnapproved {
		t.Errorf("revoke: exit %d\n%s", res.code, res.stderr)
	}
	escWrite(t, file, `{"hooks":[{"event":"before_tool"}]}`)
	if res := run("allow"); res.code != 1 || !strings.Contains(res.stderr, `no "command"`) {
		t.Errorf("allow of a broken file: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := run("nope"); res.code != 2 {
		t.Errorf("foya hooks nope: exit %d", res.code)
	}
}
