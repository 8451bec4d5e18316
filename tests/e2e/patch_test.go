package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "foya/backend/provider/providertest"
)

// git runs git in dir with a private identity and no user config.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestBrowserPatchAndGitHead: a scripted model edits a file of a git
// repository; in Chromium, "Compare with git HEAD" in the review panel
// lists the file with its diff, and "Export patch" downloads the session's
// patch, named for the session, which git apply takes on the folder as it
// was.
//
// spec: W4, F2
func TestBrowserPatchAndGitHead(t *testing.T) {
	requireE2E(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := buildFoya(t)
	before := "row 1\nrow 2\nrow 3\n"
	model := pt.New(t,
		pt.Calls(pt.Call{Name: "read", Arguments: `{"path":"notes.txt"}`}),
		pt.Calls(pt.Call{Name: "edit", Arguments: `{"path":"notes.txt","old_string":"row 2\n","new_string":"ROW 2\n"}`}),
		pt.Say("Row 2 is upper case."),
	)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, project, "init", "-q")
	git(t, project, "add", "notes.txt")
	git(t, project, "commit", "-q", "-m", "first")
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": project, "approvalMode": "auto", "title": "Row two"})
	var runID string
	srv.call(t, &runID, "Run", sess.ID, "Make row 2 upper case")
	waitRunEnd(t, srv, sess.ID, runID)

	saved := filepath.Join(t.TempDir(), "download.patch")
	runScript(t, "patch.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_SAVED": saved,
		"FOYA_SHOTS": filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	old := t.TempDir()
	if err := os.WriteFile(filepath.Join(old, "notes.txt"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, old, "init", "-q")
	git(t, old, "apply", saved)
	if b, _ := os.ReadFile(filepath.Join(old, "notes.txt")); string(b) != "row 1\nROW 2\nrow 3\n" {
		t.Errorf("the downloaded patch applied gives %q; want the edit", b)
	}
	srv.stop(t)
}
