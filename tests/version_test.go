package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/testwait"
)

// git runs git in the repository and returns its output, trimmed; the test
// is skipped where there is no git or no repository.
func git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		testwait.Missing(t, fmt.Sprintf("git or a git work tree (git %s: %v)", strings.Join(args, " "), err), "the commit and date a plain go build records")
	}
	return strings.TrimSpace(string(out))
}

// A binary built without the commit in -ldflags (go build, go install,
// wails build) still tells its commit and date: Go records them from the
// repository, and foya --version and the kernel's Info fall back to them.
// make build links them in instead (make test-package checks that).
//
// spec: W4
func TestVersionFallsBackToTheRecordedCommit(t *testing.T) {
	// Seven digits, as the binary shows them: git rev-parse --short prints
	// more once the repository has grown (it did: 8 on a fresh clone).
	commit := git(t, "rev-parse", "HEAD")[:7]
	if fi, err := os.Stat(filepath.Join("..", ".git")); err != nil || !fi.IsDir() {
		// go build finds a git repository by its .git folder; a linked
		// work tree (git worktree add) has a .git file, and no VCS is recorded.
		t.Skip("not the main work tree of a git repository (its .git is no folder): go build records no commit here")
	}
	date := git(t, "log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%d")
	if git(t, "status", "--porcelain") != "" {
		commit += "-dirty" // go build says so for any change, untracked files too
	}
	bin := filepath.Join(t.TempDir(), "foya")
	cmd := exec.Command("go", "build", "-buildvcs=true", "-ldflags", "-X foya/backend/kernel.Version=9.8.7", "-o", bin, "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	res := runFoya(t, bin, nil, "--version")
	if want := "foya 9.8.7 (commit " + commit + ", " + date + ")\n"; res.code != 0 || res.stdout != want {
		t.Fatalf("--version = %d %q; want %q", res.code, res.stdout, want)
	}
}

// Commit and date linked in with -ldflags win over what Go recorded, in
// BuildInfo and so in Kernel.Info.
//
// spec: W4
func TestVersionLinkedCommitWins(t *testing.T) {
	old := [2]string{kernel.BuildCommit, kernel.BuildDate}
	t.Cleanup(func() { kernel.BuildCommit, kernel.BuildDate = old[0], old[1] })
	kernel.BuildCommit, kernel.BuildDate = "abc1234", "2026-01-02"

	if got := kernel.BuildInfo(); got.Version != kernel.Version || got.Commit != "abc1234" || got.Date != "2026-01-02" {
		t.Errorf("BuildInfo() = %+v; want the linked commit and date", got)
	}
	k, err := kernel.Open(t.Context(), kernel.Options{DBPath: filepath.Join(t.TempDir(), "foya.db"), Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if got := k.Info(); got.Commit != "abc1234" || got.Date != "2026-01-02" {
		t.Errorf("Info() = %+v; want commit abc1234 of 2026-01-02", got)
	}
}
