package tests

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/cli"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// needGit skips a test when the git binary is missing.
func needGit(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	return bin
}

// gitRun runs git in dir with a private identity and no user config, and
// returns its combined output; a failure fails the test.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitTry(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitTry(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// copyTree copies the regular files below src to dst, modes kept.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// spec: F2
// A session's net change as one patch: git apply, run on a copy of the
// folder as it was before the session, makes the files the session left;
// a created, an edited, a deleted and an empty new file are in it, a file
// changed then reverted is not, a binary file is named with a "Binary
// files ... differ" line and a note.
func TestSessionPatchAppliesWithGit(t *testing.T) {
	needGit(t)
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"main.go"}`), call("r2", "read", `{"path":"notes.txt"}`)),
		pt.Calls(
			call("e", "edit", `{"path":"main.go","old_string":"// two\n","new_string":"// TWO\n// and more\n"}`),
			call("e2", "edit", `{"path":"notes.txt","old_string":"keep","new_string":"lose"}`),
			call("w", "write", `{"path":"pkg/new.go","content":"package pkg\n\nfunc New() {}\n"}`),
			call("w2", "write", `{"path":"empty.txt","content":""}`),
			call("w3", "write", `{"path":"blob.bin","content":"a\u0000b"}`),
			call("d", "delete", `{"path":"LICENSE"}`)),
		pt.Say("done"))
	ctx := context.Background()
	writeFile(t, filepath.Join(h.dir, "main.go"), "package main\n\n// one\n// two\n// three\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "notes.txt"), "keep this\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "LICENSE"), "MIT\n", 0o644)
	before := t.TempDir()
	copyTree(t, h.dir, before)
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "change things")
	changes, err := h.k.Changes(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var notes string
	for _, c := range changes {
		if strings.HasSuffix(c.Path, "notes.txt") {
			notes = c.ID
		}
	}
	if notes == "" {
		t.Fatalf("no change of notes.txt in %+v", changes)
	}
	if res, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{notes}}); err != nil || len(res.Reverted) != 1 {
		t.Fatalf("revert notes.txt: %v %+v", err, res)
	}

	p, err := h.k.SessionPatch(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "test.patch" || p.Files != 5 {
		t.Errorf("SessionPatch: name %q, %d files; want test.patch, 5 (main.go, pkg/new.go, empty.txt, blob.bin, LICENSE)\n%s", p.Name, p.Files, p.Text)
	}
	for _, want := range []string{
		"diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n",
		"diff --git a/pkg/new.go b/pkg/new.go\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/new.go\n",
		"diff --git a/empty.txt b/empty.txt\nnew file mode 100644\n",
		"diff --git a/LICENSE b/LICENSE\ndeleted file mode 100644\n--- a/LICENSE\n+++ /dev/null\n@@ -1 +0,0 @@\n-MIT\n",
		"diff --git a/blob.bin b/blob.bin\nnew file mode 100644\nBinary files /dev/null and b/blob.bin differ\n",
		"# Note: blob.bin: binary contents",
	} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the patch lacks %q:\n%s", want, p.Text)
		}
	}
	if len(p.Notes) != 1 {
		t.Errorf("notes %q; want the binary file's alone (pkg/ is a folder with its file in the patch)", p.Notes)
	}
	if strings.Contains(p.Text, "notes.txt") {
		t.Errorf("notes.txt ends as it began, yet the patch names it:\n%s", p.Text)
	}

	// git apply takes it on the folder as it was (the binary file, which a
	// patch without its bytes cannot make, left out).
	gitRun(t, before, "init", "-q")
	file := filepath.Join(t.TempDir(), p.Name)
	if err := os.WriteFile(file, []byte(p.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, before, "apply", "--check", "--exclude=blob.bin", file)
	gitRun(t, before, "apply", "--exclude=blob.bin", file)
	want := snapshotDir(t, h.dir)
	delete(want, "blob.bin")
	got := snapshotDir(t, before)
	for k := range got {
		if k == ".git" || strings.HasPrefix(k, ".git"+string(filepath.Separator)) {
			delete(got, k)
		}
	}
	sameDir(t, "the old folder patched", got, want)
}

// spec: F2
// Bad input: an unknown session is not found; a session without changes,
// or whose changes add up to nothing, gives an empty patch that says so;
// a kept copy that is gone, and a folder deleted whole, are notes in the
// patch's comment, not failures.
func TestSessionPatchBadInput(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("w", "write", `{"path":"a.txt","content":"one\n"}`), call("w2", "write", `{"path":"b.txt","content":"two\n"}`),
			call("d", "delete", `{"path":"old"}`)),
		pt.Say("done"))
	ctx := context.Background()
	if _, err := h.k.SessionPatch(ctx, "ses_nope"); !kernel.IsNotFound(err) {
		t.Errorf("SessionPatch(unknown) = %v; want not found", err)
	}
	empty := h.session("auto")
	p, err := h.k.SessionPatch(ctx, empty.ID)
	if err != nil || p.Files != 0 || !strings.Contains(p.Text, "changed no files: this patch is empty") || strings.Contains(p.Text, "diff --git") {
		t.Errorf("SessionPatch(no changes) = %+v, %v; want an empty patch that says so", p, err)
	}

	privateTrash(t)
	writeFile(t, filepath.Join(h.dir, "old", "f.txt"), "f\n", 0o644)
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "write")
	changes, _ := h.k.Changes(ctx, sess.ID)
	if len(changes) != 3 {
		t.Fatalf("%d changes; want 3", len(changes))
	}
	db, err := sql.Open("sqlite", "file:"+h.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM blobs WHERE sha256 = ?`, changes[0].SHAAfter); err != nil {
		t.Fatal(err)
	}
	p, err = h.k.SessionPatch(ctx, sess.ID)
	if err != nil {
		t.Fatalf("SessionPatch with a kept copy gone: %v", err)
	}
	if p.Files != 1 || !strings.Contains(p.Text, "diff --git a/b.txt b/b.txt") || strings.Contains(p.Text, "diff --git a/a.txt") ||
		!strings.Contains(p.Text, "# Note: a.txt: Foya kept no copy of its content after the session") ||
		!strings.Contains(p.Text, "old was deleted whole (to the trash): its files are not recorded one by one") || len(p.Notes) != 2 {
		t.Errorf("SessionPatch with a.txt's copy gone: %+v", p)
	}

	// The CLI: the patch on standard output or into a file; an unknown
	// session and a missing argument are usage errors.
	h.k.Close()
	var out, errb bytes.Buffer
	run := func(args ...string) int {
		out.Reset()
		errb.Reset()
		return cli.Run(ctx, append([]string{"patch", "--db", h.db}, args...), cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}
	if code := run(sess.ID); code != cli.ExitOK || out.String() != p.Text {
		t.Errorf("foya patch SESSION = %d, %q; want 0 and the patch\n%s", code, out.String(), errb.String())
	}
	file := filepath.Join(t.TempDir(), "s.patch")
	if code := run("-o", file, sess.ID); code != cli.ExitOK || out.Len() != 0 || !strings.Contains(errb.String(), "note: a.txt") {
		t.Errorf("foya patch -o FILE SESSION = %d, stdout %q, stderr %q; want 0, nothing, the note", code, out.String(), errb.String())
	}
	if b, _ := os.ReadFile(file); string(b) != p.Text {
		t.Errorf("the file holds %q; want the patch", b)
	}
	if code := run("ses_nope"); code != cli.ExitUsage || !strings.Contains(errb.String(), "no session ses_nope") {
		t.Errorf("foya patch ses_nope = %d, %q; want %d and no session", code, errb.String(), cli.ExitUsage)
	}
	if code := run(); code != cli.ExitUsage {
		t.Errorf("foya patch = %d; want %d", code, cli.ExitUsage)
	}
	if code := run("-o", filepath.Join(t.TempDir(), "no", "such", "x.patch"), sess.ID); code != cli.ExitFailed {
		t.Errorf("foya patch -o into a missing folder = %d; want %d", code, cli.ExitFailed)
	}
}

// spec: F2
// A file a shell command made executable (and edited) is in the session's
// patch with git's old mode and new mode lines, which git apply carries
// out; one whose mode came back is not in it.
func TestSessionPatchCarriesModes(t *testing.T) {
	needGit(t)
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("x", "bash", `{"command":"chmod 755 run.sh && echo 'echo two' >> run.sh"}`)),
		pt.Calls(call("y", "bash", `{"command":"chmod 755 keep.sh"}`)),
		pt.Calls(call("z", "bash", `{"command":"chmod 644 keep.sh"}`)),
		pt.Say("done"))
	writeFile(t, filepath.Join(h.dir, "run.sh"), "echo one\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "keep.sh"), "echo keep\n", 0o644)
	before := t.TempDir()
	copyTree(t, h.dir, before)
	ctx := context.Background()
	sess := h.session("full_access")
	h.runIn(ctx, sess.ID, "make run.sh executable")
	if list, _ := h.k.Changes(ctx, sess.ID); len(list) != 3 {
		t.Fatalf("%d changes; want 3 (run.sh, keep.sh twice): %+v", len(list), list)
	}
	p, err := h.k.SessionPatch(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n"; !strings.Contains(p.Text, want) || p.Files != 1 {
		t.Fatalf("the patch (%d files) lacks %q:\n%s", p.Files, want, p.Text)
	}
	gitRun(t, before, "init", "-q")
	file := filepath.Join(t.TempDir(), "s.patch")
	if err := os.WriteFile(file, []byte(p.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, before, "apply", file)
	fi, err := os.Stat(filepath.Join(before, "run.sh"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 || readFile(t, filepath.Join(before, "run.sh")) != "echo one\necho two\n" {
		t.Errorf("run.sh patched: %v, %v, %q; want executable with the new line", fi.Mode(), err, readFile(t, filepath.Join(before, "run.sh")))
	}
}
