package isolate_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/fault"
	"foya/backend/isolate"
)

// git runs git in dir for a test, with an identity of its own.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo makes a repository with files committed.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write(t, dir, files)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "first")
	return dir
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func isolator(t *testing.T) *isolate.Isolator {
	return &isolate.Isolator{Dir: filepath.Join(t.TempDir(), "copies")}
}

// Issue 29: two sessions in worktrees of one repository edit the same
// file; applied one after the other, the first goes in and the second is
// a conflict with both diffs, and the folder keeps the first's version.
func TestWorktreesOfOneRepositoryApplyOneAfterTheOther(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	iso := isolator(t)
	r1, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_1", Folder: dir, Kind: isolate.Auto})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_2", Folder: dir, Kind: isolate.Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Kind != isolate.Worktree || r1.Branch != "foya/ses_1" || r1.Workdir == dir {
		t.Fatalf("record %+v: want a worktree on foya/ses_1", r1)
	}
	write(t, r1.Workdir, map[string]string{"a.txt": "first\n", "new.txt": "n\n"})
	write(t, r2.Workdir, map[string]string{"a.txt": "second\n"})
	if err := os.Remove(filepath.Join(r2.Workdir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	res, err := iso.Apply(ctx, &r1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Applied, []string{"a.txt", "new.txt"}) || len(res.Conflicts) != 0 {
		t.Fatalf("first apply = %+v; want a.txt and new.txt applied", res)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "first\n" {
		t.Fatalf("a.txt = %q after the first apply", got)
	}
	res, err = iso.Apply(ctx, &r2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Applied, []string{"b.txt"}) || len(res.Conflicts) != 1 {
		t.Fatalf("second apply = %+v; want b.txt applied and a.txt a conflict", res)
	}
	c := res.Conflicts[0]
	if c.Path != "a.txt" || c.Folder != "changed" || c.Session != "changed" ||
		!strings.Contains(c.FolderDiff, "+first") || !strings.Contains(c.SessionDiff, "+second") {
		t.Fatalf("conflict = %+v", c)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "first\n" {
		t.Fatalf("a.txt = %q: the conflict overwrote the folder", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("b.txt is still there: %v", err)
	}
	// The session's work is a commit on its branch.
	if log := git(t, dir, "log", "--format=%s", "foya/ses_2"); !strings.HasPrefix(log, "Foya session ses_2") {
		t.Fatalf("branch log %q", log)
	}
	// Taken on purpose, the session's version goes in; applying again
	// brings nothing more.
	if res, err = iso.Apply(ctx, &r2, []string{"a.txt"}); err != nil || !slices.Equal(res.Applied, []string{"a.txt"}) {
		t.Fatalf("apply taking a.txt = %+v, %v", res, err)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "second\n" {
		t.Fatalf("a.txt = %q after taking the session's", got)
	}
	if res, err = iso.Apply(ctx, &r2, nil); err != nil || len(res.Applied)+len(res.Conflicts) != 0 {
		t.Fatalf("apply again = %+v, %v; want nothing to do", res, err)
	}
	// Discard removes the worktree and the branch; twice is no error.
	for range 2 {
		if err := iso.Remove(ctx, r1); err != nil {
			t.Fatal(err)
		}
	}
	if out := git(t, dir, "branch", "--list", "foya/ses_1"); out != "" {
		t.Fatalf("branch left: %q", out)
	}
	if out := git(t, dir, "worktree", "list"); strings.Contains(out, "ses_1") {
		t.Fatalf("worktree left: %s", out)
	}
}

// Issue 29: a copy of a folder without git; an edit, a deletion and a new
// file are applied back, and a file the folder changed meanwhile is a
// conflict left as the folder has it.
func TestCopyOfAFolderWithoutGitAppliesBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, map[string]string{"edit.txt": "old\n", "gone.txt": "x\n", "both.txt": "base\n", "sub/keep.txt": "k\n"})
	iso := isolator(t)
	rec, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_c", Folder: dir, Kind: isolate.Auto})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Kind != isolate.Copy || read(t, filepath.Join(rec.Workdir, "sub/keep.txt")) != "k\n" {
		t.Fatalf("record %+v: want a copy with the folder's files", rec)
	}
	write(t, rec.Workdir, map[string]string{"edit.txt": "new\n", "made/new.txt": "n\n", "both.txt": "session\n"})
	if err := os.Remove(filepath.Join(rec.Workdir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"both.txt": "folder\n"})
	res, err := iso.Apply(ctx, &rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Applied, []string{"edit.txt", "gone.txt", "made/new.txt"}) || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "both.txt" {
		t.Fatalf("apply = %+v", res)
	}
	if read(t, filepath.Join(dir, "edit.txt")) != "new\n" || read(t, filepath.Join(dir, "made/new.txt")) != "n\n" || read(t, filepath.Join(dir, "both.txt")) != "folder\n" {
		t.Fatal("the folder is not as applied")
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("gone.txt: %v", err)
	}
	if n, err := isolate.Usage(rec.Dir); err != nil || n <= 0 {
		t.Fatalf("usage = %d, %v", n, err)
	}
	if err := iso.Remove(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rec.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("copy left: %v", err)
	}
}

// Issue 29, bad input: a copy that would not fit is refused before
// anything is copied, and nothing is left.
func TestCopyThatWouldNotFitIsRefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"big.bin": strings.Repeat("x", 1<<20)})
	iso := isolator(t)
	iso.FreeSpace = func(string) (uint64, error) { return 2 << 20, nil }
	_, err := iso.Make(context.Background(), isolate.MakeOptions{SessionID: "ses_f", Folder: dir, Kind: isolate.Copy})
	if !errors.Is(err, fault.ErrUnavailable) || !strings.Contains(err.Error(), "free") {
		t.Fatalf("Make = %v; want a refusal naming the free space", err)
	}
	if list, _ := iso.List(); len(list) != 0 {
		t.Fatalf("left on disk: %+v", list)
	}
}

// Issue 29, bad input: a branch that exists, a folder that is not a
// repository for a worktree, a repository with no commit.
func TestWorktreeBadInput(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	git(t, dir, "branch", "taken")
	iso := isolator(t)
	_, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_b", Folder: dir, Kind: isolate.Worktree, Branch: "taken"})
	if !errors.Is(err, fault.ErrConflict) || !strings.Contains(err.Error(), "branch taken already exists") {
		t.Fatalf("Make on an existing branch = %v", err)
	}
	if _, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_b", Folder: dir, Kind: isolate.Worktree, Branch: "bad..name"}); !errors.Is(err, fault.ErrInvalid) {
		t.Fatalf("Make with a bad branch name = %v", err)
	}
	if _, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_b", Folder: t.TempDir(), Kind: isolate.Worktree}); !errors.Is(err, fault.ErrInvalid) {
		t.Fatalf("Make of a worktree outside a repository = %v", err)
	}
	empty := t.TempDir()
	git(t, empty, "init", "-q")
	if _, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_b", Folder: empty, Kind: isolate.Worktree}); !errors.Is(err, fault.ErrInvalid) || !strings.Contains(err.Error(), "no commit") {
		t.Fatalf("Make of a worktree of an empty repository = %v", err)
	}
	if list, _ := iso.List(); len(list) != 0 {
		t.Fatalf("left on disk: %+v", list)
	}
	if git(t, dir, "worktree", "list", "--porcelain") == "" {
		t.Fatal("worktree list empty")
	}
}

// Issue 29, bad input: a dirty folder's uncommitted changes are not in the
// worktree and are listed; applying leaves them alone.
func TestWorktreeOfADirtyFolderListsWhatIsLeftOut(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	write(t, dir, map[string]string{"a.txt": "mine\n", "untracked.txt": "u\n"})
	iso := isolator(t)
	rec, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_d", Folder: dir, Kind: isolate.Auto})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.Uncommitted, []string{"a.txt", "untracked.txt"}) {
		t.Fatalf("uncommitted = %q", rec.Uncommitted)
	}
	if read(t, filepath.Join(rec.Workdir, "a.txt")) != "a\n" {
		t.Fatal("the worktree has the uncommitted change")
	}
	write(t, rec.Workdir, map[string]string{"a.txt": "session\n"})
	res, err := iso.Apply(ctx, &rec, nil)
	if err != nil || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "a.txt" {
		t.Fatalf("apply = %+v, %v; want a.txt a conflict", res, err)
	}
	if read(t, filepath.Join(dir, "a.txt")) != "mine\n" {
		t.Fatal("the uncommitted change was overwritten")
	}
}

// Issue 29, bad input: a repository with submodules gets them checked out
// in the worktree.
func TestWorktreeChecksOutSubmodules(t *testing.T) {
	ctx := context.Background()
	sub := repo(t, map[string]string{"lib.txt": "lib\n"})
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	git(t, dir, "submodule", "add", "-q", sub, "lib")
	git(t, dir, "commit", "-qm", "sub")
	// git refuses file:// submodules by default (CVE-2022-39253); the
	// user's configuration allows them here as a user would.
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "protocol.file.allow")
	t.Setenv("GIT_CONFIG_VALUE_0", "always")
	iso := isolator(t)
	rec, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_s", Folder: dir, Kind: isolate.Auto})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Note != "" || read(t, filepath.Join(rec.Workdir, "lib/lib.txt")) != "lib\n" {
		t.Fatalf("submodule not checked out: note %q", rec.Note)
	}
	// Without the permission the worktree is made all the same, and its
	// note says what is missing.
	t.Setenv("GIT_CONFIG_VALUE_0", "never")
	rec, err = iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_t", Folder: dir, Kind: isolate.Auto})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Note, "submodules could not be checked out") {
		t.Fatalf("note = %q", rec.Note)
	}
}

// Issue 29: Sweep removes a copy whose session is gone and whose maker is
// gone, and keeps the others.
func TestSweepRemovesOrphans(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	iso := isolator(t)
	for _, id := range []string{"ses_live", "ses_orphan", "ses_making"} {
		if _, err := iso.Make(ctx, isolate.MakeOptions{SessionID: id, Folder: dir, Kind: isolate.Auto, Owner: "own_" + id}); err != nil {
			t.Fatal(err)
		}
	}
	// A folder of someone else's in the copies' folder is left alone; a
	// session's folder with no record (a crash before it) goes.
	for _, name := range []string{"notes", "ses_norecord"} {
		if err := os.MkdirAll(filepath.Join(iso.Dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := iso.Sweep(ctx, func(id string) (bool, error) { return id == "ses_live", nil },
		func(owner string) bool { return owner != "own_ses_making" })
	if err != nil || !slices.Equal(removed, []string{"ses_norecord", "ses_orphan"}) {
		t.Fatalf("Sweep = %q, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(iso.Dir, "notes")); err != nil {
		t.Fatalf("Sweep removed a folder not Foya's: %v", err)
	}
	if out := git(t, dir, "worktree", "list"); strings.Contains(out, "ses_orphan") || !strings.Contains(out, "ses_live") {
		t.Fatalf("worktrees: %s", out)
	}
	if out := git(t, dir, "branch", "--list", "foya/ses_orphan"); out != "" {
		t.Fatalf("branch left: %s", out)
	}
}

// Issue 29: a session started on a folder below its repository's top
// works in that folder of the worktree; applying writes the repository's
// files where they are.
func TestWorktreeOfASubfolder(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"sub/a.txt": "a\n", "top.txt": "t\n"})
	iso := isolator(t)
	rec, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_sub", Folder: filepath.Join(dir, "sub"), Kind: isolate.Auto})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Workdir != filepath.Join(rec.Dir, "work", "sub") || rec.Folder != rec.Repo {
		t.Fatalf("record %+v: want the worktree's sub as the workdir, the repository as the folder", rec)
	}
	write(t, rec.Workdir, map[string]string{"a.txt": "changed\n"})
	if err := os.Chmod(filepath.Join(rec.Workdir, "a.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(rec.Workdir, "link")); err != nil {
		t.Fatal(err)
	}
	res, err := iso.Apply(ctx, &rec, nil)
	if err != nil || !slices.Equal(res.Applied, []string{"sub/a.txt", "sub/link"}) {
		t.Fatalf("apply = %+v, %v", res, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "sub/a.txt"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 || read(t, filepath.Join(dir, "sub/a.txt")) != "changed\n" {
		t.Fatalf("sub/a.txt: %v %v", fi.Mode(), err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "sub/link")); err != nil || target != "a.txt" {
		t.Fatalf("sub/link -> %q, %v", target, err)
	}
}

// Issue 29: the repository's hooks do not run when Foya makes a worktree
// or commits a session's work: core.hooksPath can point into the
// repository's files, which a session may have written, and Foya's git
// runs outside the sandbox.
func TestWorktreeRunsNoHook(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	hook := "#!/bin/sh\necho ran >> " + marker + "\n"
	write(t, dir, map[string]string{"hooks/post-checkout": hook, "hooks/pre-commit": hook, "hooks/post-commit": hook})
	for _, h := range []string{"post-checkout", "pre-commit", "post-commit"} {
		if err := os.Chmod(filepath.Join(dir, "hooks", h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "config", "core.hooksPath", filepath.Join(dir, "hooks"))
	iso := isolator(t)
	rec, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_h", Folder: dir, Kind: isolate.Worktree})
	if err != nil {
		t.Fatal(err)
	}
	write(t, rec.Workdir, map[string]string{"a.txt": "b\n"})
	if _, err := iso.Apply(ctx, &rec, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a hook ran: %v", err)
	}
}
