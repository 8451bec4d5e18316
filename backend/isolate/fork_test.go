package isolate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/fault"
	"foya/backend/isolate"
)

// Issue 29, item 2: a fork's worktree is on a branch of its own at the
// parent's base (moved by an apply), holds every file of the parent's
// worktree (committed on its branch, uncommitted, untracked, ignored; a
// subfolder session works in the same subfolder), with the index at the
// base so the parent's changes are the fork's; the parent's submodule is
// checked out anew, not linked to the parent's. Removing the parent
// leaves the fork.
func TestForkOfAWorktree(t *testing.T) {
	ctx := context.Background()
	sub := repo(t, map[string]string{"lib.txt": "lib\n"})
	dir := repo(t, map[string]string{"app/a.txt": "a\n", "app/b.txt": "b\n", ".gitignore": "out/\n"})
	git(t, dir, "submodule", "add", "-q", sub, "lib")
	git(t, dir, "commit", "-qm", "sub")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "protocol.file.allow")
	t.Setenv("GIT_CONFIG_VALUE_0", "always")
	iso := isolator(t)
	parent, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_p", Folder: filepath.Join(dir, "app"), Kind: isolate.Worktree})
	if err != nil {
		t.Fatal(err)
	}
	// An apply moves the parent's base and commits on its branch.
	write(t, parent.Workdir, map[string]string{"a.txt": "applied\n"})
	if _, err := iso.Apply(ctx, &parent, nil); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(parent.Dir, "work")
	write(t, parent.Workdir, map[string]string{"b.txt": "uncommitted\n", "new.txt": "untracked\n"})
	write(t, work, map[string]string{"out/build.txt": "ignored\n"})
	if err := os.Remove(filepath.Join(parent.Workdir, "a.txt")); err != nil {
		t.Fatal(err)
	}

	fork, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "ses_f", From: parent, Owner: "own_f"})
	if err != nil {
		t.Fatal(err)
	}
	if fork.Kind != isolate.Worktree || fork.Branch != "foya/ses_f" || fork.Base != parent.Base || fork.Repo != parent.Repo ||
		fork.Workdir != filepath.Join(fork.Dir, "work", "app") || fork.Owner != "own_f" || fork.Note != "" {
		t.Fatalf("fork = %+v; parent %+v", fork, parent)
	}
	fwork := filepath.Join(fork.Dir, "work")
	for name, want := range map[string]string{"app/b.txt": "uncommitted\n", "app/new.txt": "untracked\n", "out/build.txt": "ignored\n", "lib/lib.txt": "lib\n"} {
		if got := read(t, filepath.Join(fwork, name)); got != want {
			t.Errorf("fork's %s = %q; want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(fwork, "app/a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fork's app/a.txt: %v; want it gone as in the parent", err)
	}
	if got := git(t, fwork, "status", "--porcelain"); !strings.Contains(got, "D app/a.txt") || !strings.Contains(got, "M app/b.txt") ||
		!strings.Contains(got, "?? app/new.txt") || strings.Contains(got, "lib") || strings.Contains(got, "out/") {
		t.Errorf("git status in the fork = %q; want the parent's changes against the base", got)
	}
	if gitdir := git(t, filepath.Join(fwork, "lib"), "rev-parse", "--git-dir"); strings.Contains(gitdir, "ses_p") {
		t.Errorf("the fork's submodule uses the parent's git folder %s", gitdir)
	}
	if err := iso.Remove(ctx, parent); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(fork.Workdir, "b.txt")); got != "uncommitted\n" {
		t.Errorf("after removing the parent, the fork's b.txt = %q", got)
	}
	// The fork applies: against the base, a.txt removed, b.txt and new.txt.
	res, err := iso.Apply(ctx, &fork, nil)
	if err != nil || !slices.Equal(res.Applied, []string{"app/a.txt", "app/b.txt", "app/new.txt"}) {
		t.Fatalf("apply the fork = %+v, %v", res, err)
	}
}

// A fork of a copy copies its base and its work; bad input: a branch for
// the fork that exists, a parent whose copy is gone, a copy that would
// not fit. Nothing is left behind.
func TestForkOfACopyAndBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.txt": "a\n"})
	iso := isolator(t)
	parent, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_p", Folder: dir, Kind: isolate.Copy})
	if err != nil {
		t.Fatal(err)
	}
	write(t, parent.Workdir, map[string]string{"a.txt": "changed\n", "n/new.txt": "new\n"})
	fork, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "ses_f", From: parent})
	if err != nil {
		t.Fatal(err)
	}
	if fork.Kind != isolate.Copy || fork.Workdir != filepath.Join(fork.Dir, "work") || fork.Folder != parent.Folder {
		t.Fatalf("fork = %+v", fork)
	}
	if read(t, filepath.Join(fork.Workdir, "a.txt")) != "changed\n" || read(t, filepath.Join(fork.Workdir, "n/new.txt")) != "new\n" ||
		read(t, filepath.Join(fork.Dir, "base", "a.txt")) != "a\n" {
		t.Fatal("the fork's copy does not have the parent's work and base")
	}
	if _, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "ses_f", From: parent}); !errors.Is(err, fault.ErrConflict) {
		t.Fatalf("a second fork with the same ID = %v", err)
	}
	small := isolator(t)
	small.Dir = iso.Dir
	small.FreeSpace = func(string) (uint64, error) { return 1 << 20, nil }
	if _, err := small.Fork(ctx, isolate.ForkOptions{SessionID: "ses_big", From: parent}); err == nil {
		// A file system that clones needs no space check: nothing to test.
		t.Log("the copies' file system clones files: no space check")
	} else if !errors.Is(err, fault.ErrUnavailable) || !strings.Contains(err.Error(), "free") {
		t.Fatalf("a fork that would not fit = %v", err)
	}

	repoDir := repo(t, map[string]string{"a.txt": "a\n"})
	wt, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_w", Folder: repoDir, Kind: isolate.Worktree})
	if err != nil {
		t.Fatal(err)
	}
	git(t, repoDir, "branch", "foya/ses_taken")
	if _, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "ses_taken", From: wt}); !errors.Is(err, fault.ErrConflict) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a fork whose branch exists = %v", err)
	}
	gone := wt
	gone.Dir = filepath.Join(iso.Dir, "ses_gone")
	if _, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "ses_g", From: gone}); !errors.Is(err, fault.ErrConflict) || !strings.Contains(err.Error(), "not there") {
		t.Fatalf("a fork of a copy that is gone = %v", err)
	}
	if _, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "../x", From: wt}); !errors.Is(err, fault.ErrInvalid) {
		t.Fatalf("a fork with a bad ID = %v", err)
	}
	list, _ := iso.List()
	var ids []string
	for _, l := range list {
		ids = append(ids, l.SessionID)
	}
	if slices.Sort(ids); !slices.Equal(ids, []string{"ses_f", "ses_p", "ses_w"}) {
		t.Fatalf("copies after the refusals: %q", ids)
	}
}

// A fork whose session was never recorded (a crash before it) is an
// orphan like any copy: Sweep removes it and its branch once its maker is
// gone, and leaves the parent.
func TestSweepRemovesAnOrphanFork(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	iso := isolator(t)
	parent, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_p", Folder: dir, Kind: isolate.Worktree})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "ses_f", From: parent, Owner: "own_gone"}); err != nil {
		t.Fatal(err)
	}
	removed, err := iso.Sweep(ctx, func(id string) (bool, error) { return id == "ses_p", nil }, func(string) bool { return true })
	if err != nil || !slices.Equal(removed, []string{"ses_f"}) {
		t.Fatalf("Sweep = %q, %v", removed, err)
	}
	if out := git(t, dir, "branch", "--list", "foya/ses_f"); out != "" {
		t.Fatalf("the orphan fork's branch is left: %q", out)
	}
	if _, err := os.Stat(parent.Workdir); err != nil {
		t.Fatalf("the parent's worktree: %v", err)
	}
}
