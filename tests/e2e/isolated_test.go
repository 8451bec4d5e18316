package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserIsolatedSession drives an isolated session from the UI (issue
// 29 item 1, docs/isolated-sessions.md): New session → Isolated copy on a
// git repository with a branch name, the setup command's output, the
// scripted model editing a file in the worktree, the same file changed in
// the folder meanwhile, Apply to the folder from the header with the
// conflict shown and resolved by taking the session's version, Settings'
// list of copies, then Discard.
func TestBrowserIsolatedSession(t *testing.T) {
	requireE2E(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := buildFoya(t)
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "read", Arguments: `{"path":"notes.txt"}`}),
		pt.Calls(
			pt.Call{Name: "write", Arguments: `{"path":"notes.txt","content":"one\ntwo from the session\nthree\n"}`},
			pt.Call{Name: "write", Arguments: `{"path":"added.txt","content":"new in the session\n"}`},
		),
		pt.Say("Edited notes.txt and added added.txt."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})

	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(root, "iso-project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Foya Test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = project
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "notes.txt")
	git("commit", "-q", "-m", "notes")
	// An uncommitted file the worktree leaves out: the session says so.
	if err := os.WriteFile(filepath.Join(project, "draft.txt"), []byte("not committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The setup command prints, then waits for the script to say go (a file
	// it makes in the copy), so the page is seen while it runs.
	srv.call(t, nil, "SetSetting", "isolate.setup."+project,
		"echo preparing the copy; until [ -e .setup-go ]; do sleep 0.05; done; rm .setup-go; echo setup ready")

	runScript(t, "isolated.mjs", map[string]string{
		"FOYA_URL":     srv.url,
		"FOYA_PROJECT": project,
		"FOYA_SHOTS":   filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})

	if b, err := os.ReadFile(filepath.Join(project, "notes.txt")); err != nil || string(b) != "one\ntwo from the session\nthree\n" {
		t.Errorf("notes.txt in the folder = %q, %v; want the session's version, taken", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(project, "added.txt")); err != nil || string(b) != "new in the session\n" {
		t.Errorf("added.txt in the folder = %q, %v; want the session's new file", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(project, "draft.txt")); err != nil || string(b) != "not committed\n" {
		t.Errorf("draft.txt = %q, %v; want the folder's uncommitted file untouched", b, err)
	}
	if out := git("branch", "--list", "feature/notes"); strings.TrimSpace(out) != "" {
		t.Errorf("the branch feature/notes is still there after Discard: %q", out)
	}
	var list []struct {
		ID        string
		Isolation *struct{ Kind, Branch, DiscardedAt string }
	}
	srv.call(t, &list, "Sessions")
	if len(list) != 1 || list[0].Isolation == nil || list[0].Isolation.Kind != "worktree" || list[0].Isolation.DiscardedAt == "" {
		t.Errorf("Sessions = %+v; want one worktree session, discarded", list)
	}
	srv.stop(t)
}
