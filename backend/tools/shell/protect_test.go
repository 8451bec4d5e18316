package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/approval"
	"foya/backend/testwait"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// TestProtectFindsEveryGit pins the walk for protected folders: nested .git
// folders at any depth (node_modules too), a .git file's git folder and its
// common folder (a worktree), the hook folder of core.hooksPath, and
// .agents and .foya below the root; it does not enter .git folders.
func TestProtectFindsEveryGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testwait.Missing(t, "git (Debian package git)", "protecting git folders")
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	main := filepath.Join(ws, "main")
	os.MkdirAll(filepath.Join(ws, "node_modules", "pkg", ".git"), 0o755)
	os.MkdirAll(filepath.Join(ws, "a", "b", ".agents"), 0o755)
	os.MkdirAll(filepath.Join(ws, "c", ".foya"), 0o755)
	os.Mkdir(main, 0o755)
	gitIn(t, main, "init", "-q")
	gitIn(t, main, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "x")
	gitIn(t, main, "config", "core.hooksPath", ".husky")
	gitIn(t, main, "worktree", "add", "-q", filepath.Join(ws, "wt"))
	p := protect(ws)
	for _, want := range []string{
		filepath.Join(main, ".git"), filepath.Join(ws, "wt", ".git"), filepath.Join(main, ".git", "worktrees", "wt"),
		filepath.Join(main, ".husky"), filepath.Join(ws, "node_modules", "pkg", ".git"),
		filepath.Join(ws, "a", "b", ".agents"), filepath.Join(ws, "c", ".foya"),
	} {
		if !slices.ContainsFunc(p.paths, func(got string) bool { return filepath.Clean(got) == want }) {
			t.Errorf("protect misses %s; found %v", want, p.paths)
		}
	}
	if p.incomplete {
		t.Errorf("a small workspace was walked incompletely")
	}
}

// TestProtectBoundAsks pins what happens past the walk's bound: the walk
// says it is incomplete, and the bash tool asks before the command even in
// Auto, saying that a .git deeper down may be writable.
func TestProtectBoundAsks(t *testing.T) {
	needSandbox(t)
	old := maxProtectDirs
	maxProtectDirs = 3
	t.Cleanup(func() { maxProtectDirs = old })
	b := newBox(t, Options{})
	for _, d := range []string{"a/x", "b/y", "c/z", "d"} {
		os.MkdirAll(filepath.Join(b.ws, d), 0o755)
	}
	g := &gate{mode: approval.Auto}
	res := b.bash(t, b.rc("s1", g), map[string]any{"command": "echo hi"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if len(g.asked) != 1 || g.asked[0].Action.Kind != approval.ShellWeakSandbox || !strings.Contains(g.asked[0].Why, "too many to find every .git") {
		t.Errorf("asked %v; want one %s question naming the walk's bound", g.asked, approval.ShellWeakSandbox)
	}
}

// TestRepositoryMadeInSandboxIsRenamed pins the git init side of keeping
// .git read-only: a repository a sandboxed command makes (foreground or in the
// background) is renamed aside when the command ends, so no hook or config
// planted in it runs later, and the model is told how to make one.
func TestRepositoryMadeInSandboxIsRenamed(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		testwait.Missing(t, "git (Debian package git)", "protecting git folders")
	}
	b := newBox(t, Options{})
	g := &gate{mode: approval.Auto}
	res := b.bash(t, b.rc("s1", g), map[string]any{"command": "git init -q && git config core.fsmonitor 'touch pwned'"})
	if exists(filepath.Join(b.ws, ".git")) || !exists(filepath.Join(b.ws, ".git.sandboxed", "config")) {
		t.Errorf("foreground: .git kept in place; want it renamed to .git.sandboxed:\n%s", res.Text)
	}
	if !strings.Contains(res.Text, "sandbox: false") || !strings.Contains(res.Text, ".git.sandboxed") {
		t.Errorf("foreground: the model is not told:\n%s", res.Text)
	}
	res = b.bash(t, b.rc("s1", g), map[string]any{"command": "git init -q bg", "run_in_background": true})
	deadline := time.Now().Add(time.Minute)
	var out string
	for time.Now().Before(deadline) {
		out = b.call(t, t.Context(), b.rc("s1", g), OutputName, map[string]any{"id": "bg1"}).Text
		if strings.Contains(out, "bg/.git.sandboxed") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if exists(filepath.Join(b.ws, "bg", ".git")) || !strings.Contains(out, "bg/.git.sandboxed") {
		t.Errorf("background: bg/.git kept, or the model not told:\n%s\n%s", res.Text, out)
	}
}

// TestGrantedFolderGitReadOnly: a folder the user granted for writes keeps
// its repository's .git read-only too (git runs what .git holds later,
// outside any sandbox).
func TestGrantedFolderGitReadOnly(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		testwait.Missing(t, "git (Debian package git)", "protecting git folders")
	}
	var b *box
	b = newBox(t, Options{Granter: grantsFunc(func() Grants { return Grants{Folders: []string{b.out}} })})
	gitIn(t, b.out, "init", "-q")
	g := &gate{mode: approval.Auto}
	res := b.bash(t, b.rc("s1", g), map[string]any{"command": "echo x > " + b.out + "/granted-ok && git -C " + b.out + " config core.fsmonitor 'touch pwned'"})
	if !exists(filepath.Join(b.out, "granted-ok")) {
		t.Fatalf("the granted folder is not writable:\n%s", res.Text)
	}
	cfg, _ := os.ReadFile(filepath.Join(b.out, ".git", "config"))
	if strings.Contains(string(cfg), "fsmonitor") {
		t.Errorf("a granted folder's .git/config was written:\n%s", res.Text)
	}
}
