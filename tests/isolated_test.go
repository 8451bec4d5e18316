package tests

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/isolate"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/sandbox"
	"foya/backend/testwait"
)

// Isolated sessions (issue 29): sessions that work in a git worktree or a
// copy of their folder, applied back or discarded.

// isoGit runs git in dir for a test, with an identity of its own.
func isoGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// isoRepo makes dir a repository with files committed.
func isoRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	isoGit(t, dir, "init", "-q")
	writeFiles(t, dir, files)
	isoGit(t, dir, "add", "-A")
	isoGit(t, dir, "commit", "-qm", "first")
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
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

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (h *harness) isolatedSession(ns kernel.NewSession) kernel.Session {
	h.t.Helper()
	if ns.Workdir == "" {
		ns.Workdir = h.dir
	}
	ns.ApprovalMode, ns.Model = "auto", "m"
	s, err := h.k.CreateSession(context.Background(), ns)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func eventsOfType(evs []llm.Event, sessionID, typ string) []llm.Event {
	var out []llm.Event
	for _, ev := range evs {
		if ev.SessionID == sessionID && ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// Issue 29: two sessions on one repository, each in its own worktree,
// edit the same file; applied back one after the other, the first goes
// in, the second's edit is a conflict shown with both diffs and nothing
// of the folder is overwritten.
func TestIsolatedWorktreeSessionsAppliedOneAfterTheOther(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("r1", "read", `{"path":"a.txt"}`)), pt.Calls(call("w1", "write", `{"path":"a.txt","content":"first session\n"}`)), pt.Say("done"),
		pt.Calls(call("r2", "read", `{"path":"a.txt"}`)), pt.Calls(call("w2", "write", `{"path":"a.txt","content":"second session\n"}`),
			call("w3", "write", `{"path":"b.txt","content":"only the second\n"}`)), pt.Say("done"))
	isoRepo(t, h.dir, map[string]string{"a.txt": "base\n"})
	ctx := context.Background()
	s1 := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationAuto})
	s2 := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationWorktree})
	for _, s := range []kernel.Session{s1, s2} {
		if s.Isolation == nil || s.Isolation.Kind != kernel.IsolationWorktree || s.ProjectID != h.dir || s.Workdir == h.dir ||
			s.Isolation.Branch != "foya/"+s.ID || s.Isolation.Base == "" {
			t.Fatalf("session %+v (isolation %+v): want a worktree of %s on foya/%s", s, s.Isolation, h.dir, s.ID)
		}
		if got, err := h.k.Session(ctx, s.ID); err != nil || got.Isolation == nil || got.Workdir != s.Workdir {
			t.Fatalf("stored session %+v, %v: want its isolation", got, err)
		}
	}
	h.runIn(ctx, s1.ID, "edit a.txt")
	h.runIn(ctx, s2.ID, "edit a.txt too")
	if got := fileText(t, filepath.Join(h.dir, "a.txt")); got != "base\n" {
		t.Fatalf("the folder's a.txt = %q while the sessions worked: isolation leaked", got)
	}
	res, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s1.ID})
	if err != nil || !slices.Equal(res.Applied, []string{"a.txt"}) || len(res.Conflicts) != 0 {
		t.Fatalf("apply the first = %+v, %v", res, err)
	}
	res, err = h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s2.ID})
	if err != nil || !slices.Equal(res.Applied, []string{"b.txt"}) || len(res.Conflicts) != 1 {
		t.Fatalf("apply the second = %+v, %v; want b.txt applied and a.txt a conflict", res, err)
	}
	c := res.Conflicts[0]
	if c.Path != "a.txt" || !strings.Contains(c.FolderDiff, "+first session") || !strings.Contains(c.SessionDiff, "+second session") ||
		!strings.Contains(c.FolderDiff, "-base") {
		t.Fatalf("conflict %+v: want both diffs from the base", c)
	}
	if got := fileText(t, filepath.Join(h.dir, "a.txt")); got != "first session\n" {
		t.Fatalf("a.txt = %q: the second session's conflict overwrote the folder", got)
	}
	if got := fileText(t, filepath.Join(h.dir, "b.txt")); got != "only the second\n" {
		t.Fatalf("b.txt = %q", got)
	}
	// Each apply is on the session's record.
	applied := eventsOfType(h.eventList(), s2.ID, event.TypeIsolationApplied)
	if len(applied) != 1 || !strings.Contains(string(applied[0].Data), `"conflicts":["a.txt"]`) {
		t.Fatalf("isolation.applied events %v", applied)
	}
	// Discarded, the worktree and its branch are gone; the session stays
	// and cannot run again; discarding twice is refused.
	if err := h.k.DiscardSession(ctx, s2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s2.Workdir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("worktree left: %v", err)
	}
	if out := isoGit(t, h.dir, "branch", "--list", "foya/"+s2.ID); out != "" {
		t.Fatalf("branch left: %q", out)
	}
	if err := h.k.DiscardSession(ctx, s2.ID); !errors.Is(err, kernel.ErrConflict) || !strings.Contains(err.Error(), "discarded already") {
		t.Fatalf("discard twice = %v", err)
	}
	if _, err := h.k.Run(ctx, kernel.RunOptions{SessionID: s2.ID, Prompt: "again", Model: h.model()}); !errors.Is(err, kernel.ErrConflict) {
		t.Fatalf("run after discard = %v", err)
	}
	if got, _ := h.k.Session(ctx, s2.ID); got.Isolation == nil || got.Isolation.DiscardedAt.IsZero() {
		t.Fatalf("session after discard: %+v", got.Isolation)
	}
	// Deleting a session removes its copy.
	if err := h.k.DeleteSession(ctx, s1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s1.Isolation.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("copy of a deleted session left: %v", err)
	}
	if out := isoGit(t, h.dir, "worktree", "list"); strings.Contains(out, s1.ID) {
		t.Fatalf("worktree of a deleted session left:\n%s", out)
	}
}

// Issue 29: a copy session on a folder without git: an edit, a deletion
// and a new file are applied back; the copy is listed with its disk use.
func TestIsolatedCopySessionOfAFolderWithoutGit(t *testing.T) {
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"edit.txt"}`)), pt.Calls(call("w", "write", `{"path":"edit.txt","content":"edited\n"}`),
			call("n", "write", `{"path":"sub/new.txt","content":"created\n"}`),
			call("d", "delete", `{"path":"gone.txt"}`)), pt.Say("done"))
	writeFiles(t, h.dir, map[string]string{"edit.txt": "old\n", "gone.txt": "bye\n", "keep.txt": "k\n"})
	ctx := context.Background()
	s := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationAuto})
	if s.Isolation == nil || s.Isolation.Kind != kernel.IsolationCopy || fileText(t, filepath.Join(s.Workdir, "keep.txt")) != "k\n" {
		t.Fatalf("session %+v: want a copy of the folder", s.Isolation)
	}
	h.runIn(ctx, s.ID, "edit, create, delete")
	if fileText(t, filepath.Join(h.dir, "edit.txt")) != "old\n" {
		t.Fatal("the folder changed while the session worked in its copy")
	}
	copies, err := h.k.SessionCopies(ctx)
	if err != nil || len(copies) != 1 || copies[0].SessionID != s.ID || copies[0].Bytes <= 0 || copies[0].Orphan {
		t.Fatalf("SessionCopies = %+v, %v", copies, err)
	}
	res, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID})
	if err != nil || !slices.Equal(res.Applied, []string{"edit.txt", "gone.txt", "sub/new.txt"}) || len(res.Conflicts) != 0 {
		t.Fatalf("apply = %+v, %v", res, err)
	}
	if fileText(t, filepath.Join(h.dir, "edit.txt")) != "edited\n" || fileText(t, filepath.Join(h.dir, "sub/new.txt")) != "created\n" {
		t.Fatal("the folder does not have the session's files")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "gone.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("gone.txt: %v", err)
	}
	// Applying again brings nothing: the base moved.
	if res, err = h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID}); err != nil || len(res.Applied)+len(res.Conflicts) != 0 {
		t.Fatalf("apply again = %+v, %v", res, err)
	}
}

// Issue 29: recovery removes a crashed session's orphaned worktree: the
// worktree was made, the session never recorded, and the kernel that
// made it is gone; the next start removes it, its branch, and prunes the
// repository's worktree list.
func TestRecoveryRemovesACrashedSessionsWorktree(t *testing.T) {
	h := newHarness(t, nil)
	isoRepo(t, h.dir, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	live := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationWorktree})
	copies := kernel.CopiesDir(filepath.Dir(h.db))
	iso := &isolate.Isolator{Dir: copies}
	// What a kernel that died between making the copy and recording the
	// session leaves: its owner's lock file is gone with it.
	rec, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_crashed", Folder: h.dir, Kind: isolate.Worktree, Owner: "own_0123abcd"})
	if err != nil {
		t.Fatal(err)
	}
	if listed, err := h.k.SessionCopies(ctx); err != nil || len(listed) != 2 || !slices.ContainsFunc(listed, func(c kernel.SessionCopy) bool { return c.Orphan && c.SessionID == "ses_crashed" }) {
		t.Fatalf("SessionCopies = %+v, %v; want the orphan listed", listed, err)
	}
	// Bad input of RemoveOrphanCopy, which removes one now: a copy whose
	// session is recorded, no copy, not a session ID.
	if err := h.k.RemoveOrphanCopy(ctx, live.ID); !errors.Is(err, kernel.ErrConflict) {
		t.Fatalf("RemoveOrphanCopy of a live session's copy = %v", err)
	}
	if err := h.k.RemoveOrphanCopy(ctx, "ses_none"); !kernel.IsNotFound(err) {
		t.Fatalf("RemoveOrphanCopy of no copy = %v", err)
	}
	if err := h.k.RemoveOrphanCopy(ctx, "../x"); !errors.Is(err, kernel.ErrInvalid) {
		t.Fatalf("RemoveOrphanCopy of ../x = %v", err)
	}
	other, err := iso.Make(ctx, isolate.MakeOptions{SessionID: "ses_other", Folder: h.dir, Kind: isolate.Worktree, Owner: "own_0123abce"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.k.RemoveOrphanCopy(ctx, "ses_other"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("RemoveOrphanCopy left %s: %v", other.Dir, err)
	}
	if err := h.k.Close(); err != nil {
		t.Fatal(err)
	}
	h.open(nil)
	if _, err := os.Stat(rec.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the crashed session's worktree is still there: %v", err)
	}
	if out := isoGit(t, h.dir, "worktree", "list"); strings.Contains(out, "ses_crashed") || !strings.Contains(out, live.ID) {
		t.Fatalf("worktrees after recovery:\n%s", out)
	}
	if out := isoGit(t, h.dir, "branch", "--list", "foya/ses_crashed"); out != "" {
		t.Fatalf("branch left: %q", out)
	}
	if _, err := os.Stat(live.Workdir); err != nil {
		t.Fatalf("the live session's worktree was removed: %v", err)
	}
}

// Issue 29, bad input: a branch that exists, a copy that would not fit,
// an isolation nobody knows, a branch without a worktree, applying or
// discarding a session that works in its folder. Each is refused with
// what to do, and nothing is recorded or left on disk.
func TestIsolatedSessionBadInput(t *testing.T) {
	h := newHarnessWith(t, kernel.Options{FreeSpace: func(string) (uint64, error) { return 1 << 20, nil }}, nil)
	isoRepo(t, h.dir, map[string]string{"a.txt": "a\n"})
	isoGit(t, h.dir, "branch", "taken")
	ctx := context.Background()
	plain := t.TempDir()
	writeFiles(t, plain, map[string]string{"big.bin": strings.Repeat("x", 2<<20)})
	for _, c := range []struct {
		name string
		ns   kernel.NewSession
		kind error
		says string
	}{
		{"branch exists", kernel.NewSession{Isolation: kernel.IsolationAuto, Branch: "taken"}, kernel.ErrConflict, "branch taken already exists"},
		{"copy does not fit", kernel.NewSession{Workdir: plain, Isolation: kernel.IsolationCopy}, kernel.ErrUnavailable, "free"},
		{"unknown isolation", kernel.NewSession{Isolation: "container"}, kernel.ErrInvalid, "give none"},
		{"branch without isolation", kernel.NewSession{Branch: "b"}, kernel.ErrInvalid, "choose isolation"},
		{"branch of a copy", kernel.NewSession{Workdir: plain, Isolation: kernel.IsolationAuto, Branch: "b"}, kernel.ErrInvalid, "leave the branch out"},
		{"worktree outside a repository", kernel.NewSession{Workdir: plain, Isolation: kernel.IsolationWorktree}, kernel.ErrInvalid, "not in a git repository"},
	} {
		ns := c.ns
		if ns.Workdir == "" {
			ns.Workdir = h.dir
		}
		ns.ApprovalMode = "auto"
		_, err := h.k.CreateSession(ctx, ns)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: CreateSession = %v; want %v saying %q", c.name, err, c.kind, c.says)
		}
	}
	if list, _ := h.k.Sessions(ctx); len(list) != 0 {
		t.Fatalf("sessions recorded: %+v", list)
	}
	if copies, _ := h.k.SessionCopies(ctx); len(copies) != 0 {
		t.Fatalf("copies left: %+v", copies)
	}
	s := h.session("auto")
	if _, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID}); !errors.Is(err, kernel.ErrInvalid) || !strings.Contains(err.Error(), "works in its folder") {
		t.Fatalf("apply a session in its folder = %v", err)
	}
	if err := h.k.DiscardSession(ctx, s.ID); !errors.Is(err, kernel.ErrInvalid) {
		t.Fatalf("discard a session in its folder = %v", err)
	}
	if _, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: "ses_none"}); !kernel.IsNotFound(err) {
		t.Fatalf("apply an unknown session = %v", err)
	}
}

// Issue 29, bad input: a dirty folder. The worktree starts at the last
// commit; the session says which uncommitted changes it lacks, and
// applying leaves them as they are (a conflict where the session changed
// the same file).
func TestIsolatedWorktreeOfADirtyFolder(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(call("r", "read", `{"path":"a.txt"}`)), pt.Calls(call("w", "write", `{"path":"a.txt","content":"session\n"}`)), pt.Say("done"))
	isoRepo(t, h.dir, map[string]string{"a.txt": "a\n"})
	writeFiles(t, h.dir, map[string]string{"a.txt": "uncommitted\n"})
	ctx := context.Background()
	s := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationAuto})
	if !slices.Contains(s.Isolation.Uncommitted, "a.txt") || fileText(t, filepath.Join(s.Workdir, "a.txt")) != "a\n" {
		t.Fatalf("isolation %+v: want a.txt listed as uncommitted and the worktree at the commit", s.Isolation)
	}
	h.runIn(ctx, s.ID, "edit")
	res, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID})
	if err != nil || len(res.Conflicts) != 1 || fileText(t, filepath.Join(h.dir, "a.txt")) != "uncommitted\n" {
		t.Fatalf("apply = %+v, %v; want a.txt a conflict, the uncommitted change kept", res, err)
	}
	// Bad input: a path to take that the session did not change; nothing
	// is written.
	if _, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID, Take: []string{"a.txt", "nope.txt"}}); !errors.Is(err, kernel.ErrInvalid) ||
		!strings.Contains(err.Error(), "take nope.txt") || fileText(t, filepath.Join(h.dir, "a.txt")) != "uncommitted\n" {
		t.Fatalf("apply taking nope.txt = %v", err)
	}
	if n := len(eventsOfType(h.eventList(), s.ID, event.TypeIsolationApplied)); n != 1 {
		t.Fatalf("%d isolation.applied events; want the first apply's alone", n)
	}
	// Taken on purpose, the session's version goes in.
	res, err = h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID, Take: []string{"a.txt"}})
	if err != nil || !slices.Equal(res.Applied, []string{"a.txt"}) || fileText(t, filepath.Join(h.dir, "a.txt")) != "session\n" {
		t.Fatalf("apply taking a.txt = %+v, %v", res, err)
	}
}

// Issue 29: the folder's setup command runs in the new copy, in the
// sandbox; its output comes as isolation.setup events, and the session's
// first run waits for its end. A failing one is reported with its status.
func TestIsolatedSessionSetupCommand(t *testing.T) {
	if c := sandbox.Probe(); c.Mechanism == "" {
		testwait.Missing(t, "every sandbox mechanism ("+c.Reason+")", "the setup command of an isolated copy")
	}
	h := newHarness(t, nil, pt.Say("ready"), pt.Say("ready too"))
	writeFiles(t, h.dir, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	// It waits for a file the test makes, so the test sees it running.
	setup := "echo prepared > setup.txt; echo \"$FOYA_SOURCE_DIR\" > source.txt; echo installing; while [ ! -e go ]; do sleep 0.01; done"
	if err := h.k.SetSetting(ctx, "isolate.setup."+h.dir, setup); err != nil {
		t.Fatal(err)
	}
	s := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationCopy})
	if s.Isolation.Setup == "" {
		t.Fatalf("isolation %+v: want its setup command", s.Isolation)
	}
	// While it runs, the session is busy: no run, no apply, no delete.
	if !h.k.SetupRunning(s.ID) {
		t.Fatal("SetupRunning = false right after the session was made")
	}
	if _, err := h.k.Run(ctx, kernel.RunOptions{SessionID: s.ID, Prompt: "too soon", Model: h.model()}); !errors.Is(err, kernel.ErrBusy) ||
		!strings.Contains(err.Error(), "setup command is still running") {
		t.Fatalf("run during the setup = %v; want busy", err)
	}
	if _, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID}); !errors.Is(err, kernel.ErrBusy) {
		t.Fatalf("apply during the setup = %v; want busy", err)
	}
	if err := h.k.DeleteSession(ctx, s.ID); !errors.Is(err, kernel.ErrBusy) {
		t.Fatalf("delete during the setup = %v; want busy", err)
	}
	writeFiles(t, s.Workdir, map[string]string{"go": ""})
	if err := h.k.WaitSetup(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if h.k.SetupRunning(s.ID) {
		t.Fatal("SetupRunning after WaitSetup")
	}
	h.runIn(ctx, s.ID, "go")
	evs := eventsOfType(h.eventList(), s.ID, event.TypeIsolationSetup)
	if len(evs) < 2 {
		t.Fatalf("setup events %v", evs)
	}
	last := evs[len(evs)-1]
	var d event.IsolationSetupData
	if err := json.Unmarshal(last.Data, &d); err != nil {
		t.Fatal(err)
	}
	if d.State != event.SetupSucceeded {
		t.Fatalf("setup ended %+v", d)
	}
	var printed strings.Builder
	for _, ev := range evs {
		var o event.IsolationSetupData
		_ = json.Unmarshal(ev.Data, &o)
		if o.State == event.SetupOutput {
			printed.WriteString(o.Output)
		}
	}
	if !strings.Contains(printed.String()+d.Output, "installing") || fileText(t, filepath.Join(s.Workdir, "setup.txt")) != "prepared\n" {
		t.Fatalf("setup output %q / %q; setup.txt in the copy?", printed.String(), d.Output)
	}
	// The run came after the setup's end.
	all := h.eventList()
	endAt := slices.IndexFunc(all, func(ev llm.Event) bool { return ev.SessionID == s.ID && ev.Seq == last.Seq })
	startAt := slices.IndexFunc(all, func(ev llm.Event) bool { return ev.SessionID == s.ID && ev.Type == event.TypeRunStart })
	if startAt < endAt {
		t.Fatalf("run.start at %d before the setup's end at %d", startAt, endAt)
	}
	if got := fileText(t, filepath.Join(s.Workdir, "source.txt")); got != h.dir+"\n" {
		t.Fatalf("FOYA_SOURCE_DIR = %q; want the folder %s", got, h.dir)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "setup.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the setup command wrote into the folder: %v", err)
	}
	// A failing setup command is reported with its status.
	if err := h.k.SetSetting(ctx, "isolate.setup."+h.dir, "echo broken >&2; exit 3"); err != nil {
		t.Fatal(err)
	}
	s2 := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationCopy})
	if err := h.k.WaitSetup(ctx, s2.ID); err != nil {
		t.Fatal(err)
	}
	h.runIn(ctx, s2.ID, "go") // a failed setup does not stop the session
	evs = eventsOfType(h.eventList(), s2.ID, event.TypeIsolationSetup)
	if err := json.Unmarshal(evs[len(evs)-1].Data, &d); err != nil || d.State != event.SetupFailed || d.ExitCode == nil || *d.ExitCode != 3 ||
		!strings.Contains(d.Error, "status 3") || !strings.Contains(d.Output, "broken") {
		t.Fatalf("failed setup = %+v, %v", d, err)
	}
	// Bad input: a setup setting for a folder that is not an absolute path.
	if err := h.k.SetSetting(ctx, "isolate.setup.relative/dir", "true"); err == nil || !strings.Contains(err.Error(), "absolute path") {
		t.Fatalf("setting of a relative folder = %v", err)
	}
}

// Issue 29: a preview of applying writes nothing and moves nothing; the
// apply after it does what the preview said.
func TestIsolatedApplyPreview(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(call("w", "write", `{"path":"new.txt","content":"n\n"}`)), pt.Say("done"))
	isoRepo(t, h.dir, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationWorktree})
	h.runIn(ctx, s.ID, "make a file")
	writeFiles(t, s.Workdir, map[string]string{"a.txt": "session\n"})
	writeFiles(t, h.dir, map[string]string{"a.txt": "folder\n"})
	for range 2 {
		res, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID, Preview: true, Take: []string{"a.txt"}})
		if err != nil || !slices.Equal(res.Applied, []string{"new.txt"}) || len(res.Conflicts) != 1 {
			t.Fatalf("preview = %+v, %v", res, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the preview wrote new.txt: %v", err)
	}
	if fileText(t, filepath.Join(h.dir, "a.txt")) != "folder\n" || len(eventsOfType(h.eventList(), s.ID, event.TypeIsolationApplied)) != 0 {
		t.Fatal("the preview changed the folder or was recorded as an apply")
	}
	res, err := h.k.ApplySession(ctx, kernel.ApplyOptions{SessionID: s.ID})
	if err != nil || !slices.Equal(res.Applied, []string{"new.txt"}) || len(res.Conflicts) != 1 {
		t.Fatalf("apply = %+v, %v", res, err)
	}
}

// Issue 29: an isolated copy shares its folder's approvals of project
// files: the project's rules, approved in the folder, are approved in a
// worktree of it with the same content; once the copy's file differs they
// are not (an approval covers exact content), and the folder's approval
// stays as it was.
func TestIsolatedCopySharesTheFoldersApprovals(t *testing.T) {
	h := newHarness(t, nil)
	rules := `{"allow":[{"tool":"write"}]}`
	isoRepo(t, h.dir, map[string]string{".foya/permissions.json": rules, "a.txt": "a\n"})
	ctx := context.Background()
	pr, err := h.k.ProjectRules(ctx, h.dir)
	if err != nil || pr.Status != kernel.RulesUnapproved {
		t.Fatalf("rules before: %+v, %v", pr, err)
	}
	if err := h.k.TrustProjectRules(ctx, h.dir, pr.Hash); err != nil {
		t.Fatal(err)
	}
	s := h.isolatedSession(kernel.NewSession{Isolation: kernel.IsolationWorktree})
	if got, err := h.k.ProjectRules(ctx, s.Workdir); err != nil || got.Status != kernel.RulesApproved {
		t.Fatalf("rules in the worktree: %+v, %v; want approved as in the folder", got, err)
	}
	writeFiles(t, s.Workdir, map[string]string{".foya/permissions.json": `{"allow":[{"tool":"bash"}]}`})
	if got, err := h.k.ProjectRules(ctx, s.Workdir); err != nil || got.Status != kernel.RulesChanged {
		t.Fatalf("rules changed in the worktree: %+v, %v; want changed", got, err)
	}
	if got, err := h.k.ProjectRules(ctx, h.dir); err != nil || got.Status != kernel.RulesApproved {
		t.Fatalf("rules in the folder: %+v, %v; want still approved", got, err)
	}
	// A folder of a session that works in its folder keeps its own.
	other := t.TempDir()
	writeFiles(t, other, map[string]string{".foya/permissions.json": rules})
	if got, err := h.k.ProjectRules(ctx, other); err != nil || got.Status != kernel.RulesUnapproved {
		t.Fatalf("rules of another folder: %+v, %v", got, err)
	}
}
