package tests

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/isolate"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// Issue 29, item 2, for isolated sessions: a fork of a session that works
// in its own worktree or copy gets a copy of its own, with the files as
// they were at the prompt it was forked before.

// isoForkScript is three prompts: the first reads and writes a.txt and an ignored
// build/out.txt, the second changes a.txt and writes src/b.txt, the third
// writes c.txt.
func isoForkScript() []pt.Turn {
	return []pt.Turn{
		pt.Calls(call("r0", "read", `{"path":"a.txt"}`)), pt.Calls(call("w1", "write", `{"path":"a.txt","content":"one\n"}`), call("o", "write", `{"path":"build/out.txt","content":"built\n"}`)), pt.Say("wrote a"),
		pt.Calls(call("r", "read", `{"path":"a.txt"}`)), pt.Calls(call("e", "edit", `{"path":"a.txt","old_string":"one","new_string":"two"}`),
			call("w2", "write", `{"path":"src/b.txt","content":"b\n"}`)), pt.Say("changed a, wrote b"),
		pt.Calls(call("w3", "write", `{"path":"c.txt","content":"c\n"}`)), pt.Say("wrote c"),
	}
}

// runPrompts runs the three prompts of isoForkScript in a session.
func runPrompts(t *testing.T, h *harness, id string) {
	t.Helper()
	for _, p := range []string{"write a", "change a, write b", "write c"} {
		if r := h.runIn(context.Background(), id, p); r.Status != kernel.RunCompleted {
			t.Fatalf("run %q: %s %s", p, r.Status, r.Error)
		}
	}
}

// wantFiles checks the files of dir: a value "" means the path is not
// there.
func wantFiles(t *testing.T, who, dir string, files map[string]string) {
	t.Helper()
	for name, want := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case want == "" && !errors.Is(err, os.ErrNotExist):
			t.Errorf("%s's %s is there (%q, %v); want it gone", who, name, b, err)
		case want != "" && string(b) != want:
			t.Errorf("%s's %s = %q (%v); want %q", who, name, b, err, want)
		}
	}
}

// A fork from the middle of a session in a worktree gets a worktree of its
// own on its own branch at the session's base, with the files as they
// were before that prompt (the ignored ones the session made before it
// too), while the session's worktree keeps its files; the fork's history
// names its own files; it applies and is discarded like any isolated
// session, and discarding the session leaves the fork.
// spec: F1
func TestForkIsolatedWorktreeSession(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, isoForkScript()...)
	isoRepo(t, h.dir, map[string]string{"a.txt": "base\n", ".gitignore": "build/\n"})
	ses := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationWorktree, Title: "iso"})
	runPrompts(t, h, ses.ID)

	f, err := h.k.ForkSession(ctx, ses.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	fork := f.Session
	iso := fork.Isolation
	if iso == nil || iso.Kind != kernel.IsolationWorktree || iso.Branch != "foya/"+fork.ID || iso.Base != ses.Isolation.Base ||
		fork.Workdir == ses.Workdir || fork.ProjectID != h.dir || !strings.HasPrefix(fork.Workdir, iso.Dir) {
		t.Fatalf("fork = %+v, isolation %+v; want a worktree of its own at the session's base", fork, iso)
	}
	if got, err := h.k.Session(ctx, fork.ID); err != nil || got.Isolation == nil || got.Isolation.Dir != iso.Dir || got.Workdir != fork.Workdir {
		t.Fatalf("the fork as stored = %+v, %v; want its isolation recorded", got, err)
	}
	wantFiles(t, "the fork", fork.Workdir, map[string]string{"a.txt": "one\n", "build/out.txt": "built\n", "src/b.txt": "", "c.txt": ""})
	wantFiles(t, "the session", ses.Workdir, map[string]string{"a.txt": "two\n", "src/b.txt": "b\n", "c.txt": "c\n"})
	wantFiles(t, "the folder", h.dir, map[string]string{"a.txt": "base\n", "c.txt": ""})
	if out := isoGit(t, fork.Workdir, "status", "--porcelain"); out != "M a.txt" {
		t.Errorf("git status in the fork's worktree = %q; want a.txt changed against the base", out)
	}
	if out := isoGit(t, fork.Workdir, "rev-parse", "--abbrev-ref", "HEAD"); out != "foya/"+fork.ID {
		t.Errorf("the fork's worktree is on %q", out)
	}
	changes, err := h.k.Changes(ctx, fork.ID)
	if err != nil || len(changes) == 0 {
		t.Fatalf("the fork's changes = %+v, %v", changes, err)
	}
	for _, c := range changes {
		if !strings.HasPrefix(c.Path, fork.Workdir+string(filepath.Separator)) {
			t.Errorf("the fork's change of %s is not in its own worktree %s", c.Path, fork.Workdir)
		}
	}

	// Discarding the session leaves the fork's worktree and branch.
	if err := h.k.DiscardSession(ctx, ses.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ses.Workdir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the session's worktree is still there: %v", err)
	}
	wantFiles(t, "the fork", fork.Workdir, map[string]string{"a.txt": "one\n"})
	if out := isoGit(t, h.dir, "branch", "--list", "foya/"+fork.ID); out == "" {
		t.Fatal("discarding the session removed the fork's branch")
	}
	// The fork applies and is discarded like any isolated session.
	res, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: fork.ID})
	if err != nil || len(res.Applied) != 1 || res.Applied[0] != "a.txt" || len(res.Conflicts) != 0 {
		t.Fatalf("apply the fork = %+v, %v", res, err)
	}
	wantFiles(t, "the folder", h.dir, map[string]string{"a.txt": "one\n", "src/b.txt": ""})
	if err := h.k.DiscardSession(ctx, fork.ID); err != nil {
		t.Fatal(err)
	}
	if out := isoGit(t, h.dir, "branch", "--list", "foya/"+fork.ID); out != "" {
		t.Fatalf("the fork's branch is left: %q", out)
	}
	// A discarded session has no files to fork.
	if _, err := h.k.ForkSession(ctx, ses.ID, 2); !errors.Is(err, kernel.ErrConflict) || !strings.Contains(err.Error(), "discarded") {
		t.Fatalf("fork of a discarded session = %v; want a conflict saying so", err)
	}
}

// A fork from the middle of a session in a copy (a folder without git)
// gets a copy of the session's copy, base included, taken back to the
// prompt; the session's copy keeps its files; a fork of the fork and a
// fork of the whole session get theirs; applying the fork brings its own
// change.
// spec: F1
func TestForkIsolatedCopySession(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, isoForkScript()...)
	writeFiles(t, h.dir, map[string]string{"a.txt": "base\n", "keep.txt": "k\n"})
	ses := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationAuto})
	if ses.Isolation == nil || ses.Isolation.Kind != kernel.IsolationCopy {
		t.Fatalf("session isolation %+v; want a copy", ses.Isolation)
	}
	runPrompts(t, h, ses.ID)
	f, err := h.k.ForkSession(ctx, ses.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	fork := f.Session
	if fork.Isolation == nil || fork.Isolation.Kind != kernel.IsolationCopy || fork.Workdir != filepath.Join(fork.Isolation.Dir, "work") ||
		fork.Isolation.Folder != h.dir {
		t.Fatalf("fork = %+v, isolation %+v; want a copy of its own", fork, fork.Isolation)
	}
	wantFiles(t, "the fork", fork.Workdir, map[string]string{"a.txt": "one\n", "keep.txt": "k\n", "build/out.txt": "built\n", "src/b.txt": "", "c.txt": ""})
	wantFiles(t, "the fork's base", filepath.Join(fork.Isolation.Dir, "base"), map[string]string{"a.txt": "base\n", "c.txt": ""})
	wantFiles(t, "the session", ses.Workdir, map[string]string{"a.txt": "two\n", "src/b.txt": "b\n", "c.txt": "c\n"})
	// A fork of the fork, from its first prompt, takes the fork's own
	// copy back through the changes it holds (which name its copy); a
	// fork of the whole session has its files as they are.
	ff, err := h.k.ForkSession(ctx, fork.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "the fork's fork", ff.Session.Workdir, map[string]string{"a.txt": "base\n", "keep.txt": "k\n", "build/out.txt": "", "c.txt": ""})
	wantFiles(t, "the fork", fork.Workdir, map[string]string{"a.txt": "one\n", "build/out.txt": "built\n"})
	whole, err := h.k.ForkSession(ctx, ses.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "the whole session's fork", whole.Session.Workdir, map[string]string{"a.txt": "two\n", "src/b.txt": "b\n", "c.txt": "c\n"})
	res, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: fork.ID})
	if err != nil || strings.Join(res.Applied, ",") != "a.txt,build/out.txt" || len(res.Conflicts) != 0 {
		t.Fatalf("apply the fork = %+v, %v", res, err)
	}
	wantFiles(t, "the folder", h.dir, map[string]string{"a.txt": "one\n", "c.txt": ""})
	if err := h.k.DiscardSession(ctx, ses.ID); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "the fork", fork.Workdir, map[string]string{"a.txt": "one\n", "keep.txt": "k\n"})
}

// Issue 29, bad input: a fork from a prompt whose files cannot be as they
// were (one changed in the session's copy behind Foya's back) is refused
// before anything is made, naming the file and how to fork anyway; with
// FilesNow the fork is made with the files as they are now. A session
// that works in its folder forks into the same folder.
// spec: F1
func TestForkIsolatedSessionFilesNotRestorable(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, append(isoForkScript(), pt.Calls(call("w4", "write", `{"path":"d.txt","content":"d\n"}`)), pt.Say("wrote d"))...)
	isoRepo(t, h.dir, map[string]string{"a.txt": "base\n"})
	ses := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationWorktree})
	runPrompts(t, h, ses.ID)
	writeFiles(t, ses.Workdir, map[string]string{"a.txt": "changed behind Foya's back\n"})
	before, err := h.k.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	copiesBefore, err := h.k.SessionCopies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.k.ForkSession(ctx, ses.ID, 2)
	if !errors.Is(err, kernel.ErrConflict) || !strings.Contains(err.Error(), "a.txt (its content is not what the session's last change of it left)") ||
		!strings.Contains(err.Error(), "--files-now") || !strings.Contains(err.Error(), "no fork was made") {
		t.Fatalf("fork with a.txt changed behind Foya's back = %v; want a conflict naming a.txt", err)
	}
	if after, _ := h.k.Sessions(ctx); len(after) != len(before) {
		t.Errorf("a refused fork stored a session: %d sessions, were %d", len(after), len(before))
	}
	if copies, _ := h.k.SessionCopies(ctx); len(copies) != len(copiesBefore) {
		t.Errorf("a refused fork left a copy: %+v", copies)
	}
	if out := isoGit(t, h.dir, "branch", "--list", "foya/*"); out != "* foya/"+ses.ID && out != "foya/"+ses.ID && out != "+ foya/"+ses.ID {
		t.Errorf("branches after a refused fork: %q", out)
	}
	// A fork from the last prompt does not take a.txt back: it is made.
	if f, err := h.k.ForkSession(ctx, ses.ID, 3); err != nil {
		t.Fatalf("fork at prompt 3 = %v; want it made (a.txt is not taken back)", err)
	} else {
		wantFiles(t, "the fork at 3", f.Session.Workdir, map[string]string{"a.txt": "changed behind Foya's back\n", "src/b.txt": "b\n", "c.txt": ""})
	}
	// Fork anyway, with the files as they are now.
	f, err := h.k.ForkSessionWith(ctx, kernel.ForkOptions{SessionID: ses.ID, AtPrompt: 2, FilesNow: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Draft != "change a, write b" || f.Session.Isolation == nil {
		t.Fatalf("fork anyway = %+v", f)
	}
	wantFiles(t, "the fork with the files now", f.Session.Workdir, map[string]string{"a.txt": "changed behind Foya's back\n", "src/b.txt": "b\n", "c.txt": "c\n"})
	// The fork runs in its own worktree.
	if r := h.runIn(ctx, f.Session.ID, "write d"); r.Status != kernel.RunCompleted {
		t.Fatalf("run in the fork: %s %s", r.Status, r.Error)
	}
	wantFiles(t, "the fork", f.Session.Workdir, map[string]string{"d.txt": "d\n"})
	wantFiles(t, "the session", ses.Workdir, map[string]string{"d.txt": ""})
}

// Issue 29, crash safety: a fork's copy made by a kernel that died before
// recording the fork (its owner is gone) is an orphan the next start
// removes, with its branch, leaving the session's worktree.
func TestRecoveryRemovesACrashedForksWorktree(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	isoRepo(t, h.dir, map[string]string{"a.txt": "a\n"})
	ses := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationWorktree})
	stored, err := h.k.Session(ctx, ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	iso := &isolate.Isolator{Dir: kernel.CopiesDir(filepath.Dir(h.db))}
	from, err := iso.Load(ses.ID)
	if err != nil || from.Workdir != stored.Workdir {
		t.Fatalf("the session's copy record = %+v, %v", from, err)
	}
	rec, err := iso.Fork(ctx, isolate.ForkOptions{SessionID: "ses_crashedfork", From: from, Owner: "own_0123abcd"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.k.Close(); err != nil {
		t.Fatal(err)
	}
	h.open(nil)
	if _, err := os.Stat(rec.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the crashed fork's worktree is still there: %v", err)
	}
	if out := isoGit(t, h.dir, "branch", "--list", "foya/ses_crashedfork"); out != "" {
		t.Fatalf("branch left: %q", out)
	}
	if _, err := os.Stat(ses.Workdir); err != nil {
		t.Fatalf("the session's worktree was removed: %v", err)
	}
}

// Issue 29, item 5: foya fork on an isolated session prints the fork's ID;
// its own worktree exists with the files as they were at that prompt;
// refused with the files named when one cannot be, and made with
// --files-now.
func TestCLIForkIsolatedSession(t *testing.T) {
	bin := foyaBinary(t)
	srv := pt.New(t,
		pt.Calls(call("r1", "read", `{"path":"a.txt"}`)), pt.Calls(call("w1", "write", `{"path":"a.txt","content":"first\n"}`)), pt.Say("one"),
		pt.Calls(call("r2", "read", `{"path":"a.txt"}`)), pt.Calls(call("w2", "write", `{"path":"a.txt","content":"second\n"}`)), pt.Say("two"))
	dir := t.TempDir()
	isoRepo(t, dir, map[string]string{"a.txt": "base\n"})
	db := filepath.Join(t.TempDir(), "foya.db")
	model := []string{"--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db, "--approval", "auto"}
	res := runFoya(t, bin, nil, append(append([]string{"exec"}, model...), "--workdir", dir, "--isolated", "--json", "first")...)
	if res.code != 0 {
		t.Fatalf("exec --isolated: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	ses := sessionOfExec(t, res.stdout)
	if res := runFoya(t, bin, nil, append(append([]string{"exec", "--session", ses}, model...), "second")...); res.code != 0 {
		t.Fatalf("exec --session: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	copies := kernel.CopiesDir(filepath.Dir(db))
	res = runFoya(t, bin, nil, "fork", "--db", db, "--at", "2", ses)
	id := strings.TrimSpace(res.stdout)
	if res.code != 0 || !strings.HasPrefix(id, "ses_") || strings.Contains(id, "\n") {
		t.Fatalf("foya fork --at 2: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got := fileText(t, filepath.Join(copies, id, "work", "a.txt")); got != "first\n" {
		t.Errorf("the fork's a.txt = %q; want it as before the second prompt", got)
	}
	if got := fileText(t, filepath.Join(copies, ses, "work", "a.txt")); got != "second\n" {
		t.Errorf("the session's a.txt = %q; want it as it is", got)
	}
	if out := isoGit(t, dir, "branch", "--list", "foya/"+id); out == "" {
		t.Errorf("no branch foya/%s", id)
	}

	writeFiles(t, filepath.Join(copies, ses, "work"), map[string]string{"a.txt": "by hand\n"})
	res = runFoya(t, bin, nil, "fork", "--db", db, "--at", "1", ses)
	if res.code != 1 || res.stdout != "" || !strings.Contains(res.stderr, "a.txt (its content is not what") || !strings.Contains(res.stderr, "--files-now") {
		t.Fatalf("foya fork of a file changed by hand: exit %d, stdout %q, stderr %q; want exit 1 naming a.txt", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, "fork", "--db", db, "--at", "1", "--files-now", ses)
	id = strings.TrimSpace(res.stdout)
	if res.code != 0 || !strings.HasPrefix(id, "ses_") {
		t.Fatalf("foya fork --files-now: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got := fileText(t, filepath.Join(copies, id, "work", "a.txt")); got != "by hand\n" {
		t.Errorf("the fork --files-now's a.txt = %q; want it as it is now", got)
	}
}

// An isolated session is held while it is forked: with a run going (its
// files changing) a fork from any prompt is refused (busy) and nothing is
// made; once the run has ended the fork is made.
func TestForkIsolatedSessionWithARunGoing(t *testing.T) {
	ctx := context.Background()
	hold := make(chan struct{})
	h := newHarness(t, nil, pt.Say("first"), pt.Turn{Text: "working", Hold: hold})
	writeFiles(t, h.dir, map[string]string{"a.txt": "a\n"})
	ses := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationCopy})
	if r := h.runIn(ctx, ses.ID, "one"); r.Status != kernel.RunCompleted {
		t.Fatalf("run: %s %s", r.Status, r.Error)
	}
	reqs := len(h.srv.Requests())
	ended := make(chan error, 1)
	go func() {
		_, err := h.k.Run(ctx, kernel.RunOptions{SessionID: ses.ID, Prompt: "two", Model: h.model()})
		ended <- err
	}()
	testwait.Until(t, "the held run's request", func() bool { return len(h.srv.Requests()) == reqs+1 })
	_, err := h.k.ForkSession(ctx, ses.ID, 1)
	if !errors.Is(err, kernel.ErrBusy) || !strings.Contains(err.Error(), "fork it once its run has ended") {
		t.Errorf("fork during a run = %v; want busy", err)
	}
	if copies, _ := h.k.SessionCopies(ctx); len(copies) != 1 {
		t.Errorf("a refused fork left a copy: %+v", copies)
	}
	close(hold)
	if err := testwait.Receive(t, ended, "the held run to end"); err != nil {
		t.Fatal(err)
	}
	if f, err := h.k.ForkSession(ctx, ses.ID, 1); err != nil || f.Session.Isolation == nil {
		t.Fatalf("fork after the run = %+v, %v", f, err)
	}
}

// Issue 29, bad input: a file whose content before the fork point is no
// longer stored cannot be taken back: the fork is refused naming it, and
// nothing is made; nor is a fork of a session whose copy was removed
// behind Foya's back.
// spec: F1
func TestForkIsolatedSessionContentNoLongerStored(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil, isoForkScript()...)
	writeFiles(t, h.dir, map[string]string{"a.txt": "base\n"})
	ses := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationCopy})
	runPrompts(t, h, ses.ID)
	changes, err := h.k.Changes(ctx, ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	sum := ""
	for _, c := range changes {
		if filepath.Base(c.Path) == "a.txt" && c.Tool == "edit" {
			sum = c.SHABefore
		}
	}
	if sum == "" {
		t.Fatalf("no edit of a.txt with its content before in %+v", changes)
	}
	db, err := sql.Open("sqlite", "file:"+h.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM blobs WHERE sha256 = ?`, sum); err != nil {
		t.Fatal(err)
	}
	_, err = h.k.ForkSession(ctx, ses.ID, 2)
	if !errors.Is(err, kernel.ErrConflict) || !strings.Contains(err.Error(), "a.txt (its content from before is no longer stored)") {
		t.Fatalf("fork with a.txt's content gone = %v; want a conflict naming a.txt", err)
	}
	if copies, _ := h.k.SessionCopies(ctx); len(copies) != 1 {
		t.Errorf("a refused fork left a copy: %+v", copies)
	}
	if sessions, _ := h.k.Sessions(ctx); len(sessions) != 1 {
		t.Errorf("a refused fork stored a session: %d sessions", len(sessions))
	}
	// A copy removed behind Foya's back: said, nothing made.
	if err := os.RemoveAll(ses.Isolation.Dir); err != nil {
		t.Fatal(err)
	}
	if _, err := h.k.ForkSession(ctx, ses.ID, 3); !errors.Is(err, kernel.ErrConflict) || !strings.Contains(err.Error(), "is not there") {
		t.Fatalf("fork of a session whose copy is gone = %v; want a conflict saying so", err)
	}
	if sessions, _ := h.k.Sessions(ctx); len(sessions) != 1 {
		t.Errorf("a refused fork stored a session: %d sessions", len(sessions))
	}
}
