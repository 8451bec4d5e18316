//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/doctor"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/workspace"
)

// shellcapFiles lays out a small workspace with modes worth restoring.
func shellcapFiles(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "a.txt"), "alpha\n", 0o640)
	writeFile(t, filepath.Join(dir, "b.txt"), "bravo\n", 0o604)
	writeFile(t, filepath.Join(dir, "c.txt"), "charlie\n", 0o644)
	writeFile(t, filepath.Join(dir, "d.txt"), "delta delta delta\n", 0o644)
	writeFile(t, filepath.Join(dir, "e.sh"), "#!/bin/sh\necho e\n", 0o755)
	writeFile(t, filepath.Join(dir, "sub", "f.txt"), "foxtrot\n", 0o644)
	writeFile(t, filepath.Join(dir, "sub", "g.bin"), "\x00\x01\x02golf", 0o644)
}

// toolChanges returns the file changes of the tool.end events of calls
// named id, and of file.captured events for them.
func toolChanges(h *harness, id string) []event.FileChange {
	var out []event.FileChange
	for _, ev := range h.eventList() {
		switch ev.Type {
		case event.TypeToolEnd:
			var d event.ToolEndData
			json.Unmarshal(ev.Data, &d)
			if d.ID == id {
				out = append(out, d.FileChanges...)
			}
		case event.TypeFileCaptured:
			var d event.FileCapturedData
			json.Unmarshal(ev.Data, &d)
			if d.CallID == id {
				out = append(out, d.FileChanges...)
			}
		}
	}
	return out
}

func opsOf(dir string, fcs []event.FileChange) []string {
	var out []string
	for _, fc := range fcs {
		rel, _ := filepath.Rel(dir, fc.Path)
		s := fc.Op + " " + rel
		if fc.RenamedFrom != "" {
			from, _ := filepath.Rel(dir, fc.RenamedFrom)
			s += " from " + from
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func realDir(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// spec: F1, F2
// A bash call in Full Access creates,
// edits, renames, deletes with rm, truncates (truncate -s0, : >) and chmods
// files; each is a File Change of the call, the model reads no diff, and
// "undo this turn" restores the workspace byte for byte and mode for mode.
func TestIssue15ShellChangesUndoTurn(t *testing.T) {
	privateTrash(t)
	script := `echo new > created.txt && echo more >> a.txt && mv b.txt b2.txt && rm c.txt && truncate -s0 d.txt && ` +
		`: > sub/f.txt && chmod 600 e.sh && mkdir newdir && printf 'x\n' > newdir/y.txt && printf '\003' >> sub/g.bin`
	h := newHarness(t, nil, pt.Calls(call("c1", "bash", jsonArgs(map[string]any{"command": script}))), pt.Say("done"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	before := snapshotDir(t, h.dir)
	run := h.runIn(ctx, sess.ID, "change things")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	dir := realDir(t, h.dir)
	got := opsOf(dir, toolChanges(h, "c1"))
	want := []string{"chmod e.sh", "create created.txt", "create newdir", "create newdir/y.txt", "delete b.txt", "delete c.txt",
		"rename b2.txt from b.txt", "write a.txt", "write d.txt", "write sub/f.txt", "write sub/g.bin"}
	if !slices.Equal(got, want) {
		t.Fatalf("changes of the bash call:\n got %q\nwant %q", got, want)
	}
	for _, fc := range toolChanges(h, "c1") {
		if fc.NotRestorable != "" || fc.CallID != "c1" || fc.Tool != "bash" || fc.RunID != run.ID {
			t.Errorf("change %s %s: notRestorable %q, call %q, tool %q, run %q", fc.Op, fc.Path, fc.NotRestorable, fc.CallID, fc.Tool, fc.RunID)
		}
	}
	// spec F2: the model reads the command's output, not the diffs.
	for _, m := range toolMessages(h.srv.Requests()[1]) {
		if strings.Contains(m.Content, "+++ b/") || strings.Contains(m.Content, "more") {
			t.Errorf("the model read a diff: %q", m.Content)
		}
	}
	stored, err := h.k.Changes(ctx, sess.ID)
	if err != nil || len(stored) != len(want) {
		t.Fatalf("stored changes: %d, %v; want %d", len(stored), err, len(want))
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("undo the turn: %v, conflicts %+v", err, res.Conflicts)
	}
	sameDir(t, "after undoing the turn", snapshotDir(t, h.dir), before)
}

// spec: F1
// Deletes through interpreters that the approval
// policy cannot see before they run (scripts of perl, python3, and tar
// --remove-files in a shell script), in Auto (sandboxed), are captured,
// and "undo this turn" brings the files back with their modes.
func TestIssue15InterpreterDeletesInAuto(t *testing.T) {
	needSandbox(t)
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("c1", "bash", `{"command":"perl del.pl && python3 del.py && sh pack.sh"}`)), pt.Say("done"))
	writeFile(t, filepath.Join(h.dir, "del.pl"), "unlink 'p.txt' or die;\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "del.py"), "import os\nos.remove('q.txt')\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "pack.sh"), "tar --remove-files -cf t.tar t1.txt t2.txt\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "p.txt"), "perl's\n", 0o600)
	writeFile(t, filepath.Join(h.dir, "q.txt"), "python's\n", 0o640)
	writeFile(t, filepath.Join(h.dir, "t1.txt"), "tar one\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "t2.txt"), "tar two\n", 0o755)
	ctx := context.Background()
	sess := h.session("auto")
	before := snapshotDir(t, h.dir)
	run := h.runIn(ctx, sess.ID, "clean up")
	dir := realDir(t, h.dir)
	got := opsOf(dir, toolChanges(h, "c1"))
	want := []string{"create t.tar", "delete p.txt", "delete q.txt", "delete t1.txt", "delete t2.txt"}
	if !slices.Equal(got, want) {
		t.Fatalf("changes: got %q, want %q (result: %s)", got, want, lastToolText(h, "c1"))
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("undo the turn: %v, conflicts %+v", err, res.Conflicts)
	}
	after := snapshotDir(t, h.dir)
	delete(after, ".foya") // made empty by the sandbox, not by the command
	delete(after, ".agents")
	sameDir(t, "after undoing the turn", after, before)
}

func lastToolText(h *harness, id string) string {
	text := ""
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeToolEnd {
			var d event.ToolEndData
			json.Unmarshal(ev.Data, &d)
			if d.ID == id {
				text = d.Text
			}
		}
	}
	return text
}

// waitCaptured waits for the file.captured event of a background command.
func waitCaptured(t *testing.T, h *harness, id string) []event.FileChange {
	t.Helper()
	var changes []event.FileChange
	testwait.Until(t, "file.captured for "+id, func() bool {
		for _, ev := range h.eventList() {
			if ev.Type == event.TypeFileCaptured {
				var d event.FileCapturedData
				json.Unmarshal(ev.Data, &d)
				if d.CallID == id {
					changes = d.FileChanges
					return true
				}
			}
		}
		return false
	})
	return changes
}

// spec: B1, F1
// A background command's changes are found
// when it ends, recorded against the call that started it (file.captured),
// and "undo this turn" reverts them too.
func TestIssue15BackgroundCommandChanges(t *testing.T) {
	privateTrash(t)
	script := `sleep 0.3; echo later > made.txt; echo more >> a.txt; rm c.txt; chmod 700 e.sh; truncate -s0 d.txt`
	h := newHarness(t, nil,
		pt.Calls(call("bg", "bash", jsonArgs(map[string]any{"command": script, "run_in_background": true}))), pt.Say("started"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	before := snapshotDir(t, h.dir)
	run := h.runIn(ctx, sess.ID, "in the background")
	if fcs := toolChanges(h, "bg"); len(fcs) != 0 && !slices.ContainsFunc(h.eventList(), func(ev llm.Event) bool { return ev.Type == event.TypeFileCaptured }) {
		t.Fatalf("the call's result recorded changes before the command ended: %v", opsOf(h.dir, fcs))
	}
	fcs := waitCaptured(t, h, "bg")
	dir := realDir(t, h.dir)
	got := opsOf(dir, fcs)
	want := []string{"chmod e.sh", "create made.txt", "delete c.txt", "write a.txt", "write d.txt"}
	if !slices.Equal(got, want) {
		t.Fatalf("captured: got %q, want %q", got, want)
	}
	for _, fc := range fcs {
		if fc.RunID != run.ID || fc.CallID != "bg" {
			t.Errorf("%s: run %q call %q; want %q, bg", fc.Path, fc.RunID, fc.CallID, run.ID)
		}
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("undo the turn: %v, conflicts %+v", err, res.Conflicts)
	}
	sameDir(t, "after undoing the turn", snapshotDir(t, h.dir), before)
}

// spec: F1
// The user edits a file between two
// turns; the next command does not get the edit blamed on it (a
// file.changed_outside event says what happened; a write tool's change
// in between is neither outside nor the command's), and undoing the first
// turn reports the conflict instead of overwriting the user's edit.
func TestIssue15OutsideEditConflicts(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("c1", "bash", `{"command":"echo agent >> a.txt"}`)), pt.Say("one"),
		pt.Calls(call("w", "write", `{"path":"w.txt","content":"by the write tool\n"}`)),
		pt.Calls(call("c2", "bash", `{"command":"echo other > other.txt"}`)), pt.Say("two"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	// No run started in the session yet: nothing watches its workspace.
	if err := h.k.WaitWatcher(ctx, sess.ID); !errors.Is(err, workspace.ErrNoWatcher) {
		t.Fatalf("WaitWatcher before any run: %v; want %v", err, workspace.ErrNoWatcher)
	}
	run1 := h.runIn(ctx, sess.ID, "one")
	mine := "alpha\nagent\nthe user's line\n"
	if err := os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte(mine), 0o640); err != nil {
		t.Fatal(err)
	}
	// The user's edit comes before the next turn, as people are slower
	// than the watcher: its event narrows the look before the command.
	// The test waits until the kernel's watcher has passed the edit on
	// (a wait on that event, not a sleep).
	if err := h.k.WaitWatcher(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	h.runIn(ctx, sess.ID, "two")
	dir := realDir(t, h.dir)
	if got := opsOf(dir, toolChanges(h, "c2")); !slices.Equal(got, []string{"create other.txt"}) {
		t.Fatalf("the second command's changes: %q; want only other.txt (the edit was the user's)", got)
	}
	outside := false
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeFileChangedOutside && strings.HasSuffix(string(ev.Data), `a.txt"}`) {
			outside = true
		}
		// What Foya's own write tool left is neither outside nor the command's.
		if ev.Type == event.TypeFileChangedOutside && strings.Contains(string(ev.Data), `w.txt"`) {
			t.Errorf("the write tool's change was taken for an outside one: %s", ev.Data)
		}
	}
	if !outside {
		t.Error("no file.changed_outside event for the user's edit")
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run1.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 1 || !strings.HasSuffix(res.Conflicts[0].Path, "a.txt") || len(res.Reverted) != 0 {
		t.Fatalf("revert: conflicts %+v, reverted %d; want the conflict on a.txt", res.Conflicts, len(res.Reverted))
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "a.txt")); string(b) != mine {
		t.Fatalf("a.txt = %q; the user's edit was overwritten", b)
	}
}

// spec: O4, F1
// Bad input: a command rewriting a few thousand files, a file
// larger than the index keeps, a file without read permission, and a
// folder replaced by a symbolic link: each is recorded; what Foya could
// not keep is marked not restorable with the reason, and revert reports it
// instead of pretending; the rest is restored.
func TestIssue15BadInputBoundedAndHonest(t *testing.T) {
	privateTrash(t)
	const n = 3000
	script := `for f in many/*.txt; do echo changed >> "$f"; done; head -c 5000 /dev/zero >> big.bin; echo x >> locked.txt; ` +
		`mv d d.old && ln -s /tmp d`
	h := newHarness(t, nil, pt.Calls(call("c1", "bash", jsonArgs(map[string]any{"command": script}))), pt.Say("done"),
		pt.Calls(call("c2", "bash", `{"command":"true"}`)), pt.Say("again"))
	for i := range n {
		writeFile(t, filepath.Join(h.dir, "many", fmt.Sprintf("f%04d.txt", i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
	writeFile(t, filepath.Join(h.dir, "big.bin"), strings.Repeat("b", 20_000), 0o644)
	writeFile(t, filepath.Join(h.dir, "locked.txt"), "secret\n", 0o200)
	writeFile(t, filepath.Join(h.dir, "d", "inside.txt"), "in d\n", 0o644)
	ctx := context.Background()
	if err := h.k.SetSetting(ctx, kernel.SettingWorkspaceMaxFile, "10000"); err != nil {
		t.Fatal(err)
	}
	sess := h.session("full_access")
	run := h.runIn(ctx, sess.ID, "rewrite")
	fcs := toolChanges(h, "c1")
	var notRestorable []string
	writes := 0
	dir := realDir(t, h.dir)
	for _, fc := range fcs {
		rel, _ := filepath.Rel(dir, fc.Path)
		if fc.NotRestorable != "" {
			notRestorable = append(notRestorable, rel)
		}
		if strings.HasPrefix(rel, "many/") && fc.Op == event.OpWrite {
			writes++
		}
	}
	if writes != n {
		t.Errorf("%d writes under many/; want %d", writes, n)
	}
	slices.Sort(notRestorable)
	wantNR := []string{"big.bin", "locked.txt"}
	if os.Geteuid() == 0 {
		wantNR = wantNR[:1] // root reads files without read permission
	}
	if !slices.Equal(notRestorable, wantNR) {
		t.Errorf("not restorable: %q; want big.bin and locked.txt", notRestorable)
	}
	for _, fc := range fcs {
		if strings.HasSuffix(fc.Path, "big.bin") && (!strings.Contains(fc.NotRestorable, "maxFileBytes") || fc.SHAAfter == "") {
			t.Errorf("big.bin: mark %q, sha after %q; want the reason and a digest", fc.NotRestorable, fc.SHAAfter)
		}
	}
	got := opsOf(dir, fcs)
	for _, w := range []string{"create d", "create d.old", "create d.old/inside.txt", "delete d", "delete d/inside.txt"} {
		if !slices.Contains(got, w) && !slices.Contains(got, strings.Replace(w, "create d.old/inside.txt", "rename d.old/inside.txt from d/inside.txt", 1)) {
			t.Errorf("missing %q among the folder's changes", w)
		}
	}
	// A command that changes nothing records nothing, and the index
	// stays consistent.
	h.runIn(ctx, sess.ID, "again")
	if fcs := toolChanges(h, "c2"); len(fcs) != 0 {
		t.Errorf("a command that changed nothing recorded %q", opsOf(dir, fcs))
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID})
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, c := range res.Conflicts {
		reasons = append(reasons, c.Reason)
	}
	if !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, "cannot be reverted") }) {
		t.Errorf("revert conflicts %q; want the not-restorable ones reported", reasons)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "many", "f0001.txt")); string(b) != "file 1\nchanged\n" {
		t.Errorf("a stopped revert changed files: %q", b)
	}
}

// spec: X1
// A command cancelled with its turn still has its changes
// recorded (they happened), and undoing the turn reverts them.
func TestIssue15CancelledCommandChangesRecorded(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil, pt.Calls(call("c1", "bash", `{"command":"echo half > half.txt; rm c.txt; sleep 30"}`)), pt.Say("never"))
	shellcapFiles(t, h.dir)
	ctx, cancel := context.WithCancel(context.Background())
	sess := h.session("full_access")
	before := snapshotDir(t, h.dir)
	go func() {
		// The command has made its changes: cancel the turn (bounded by
		// testwait.Limit, so that a command that never gets there ends too).
		for deadline := time.Now().Add(testwait.Limit); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(h.dir, "half.txt")); err == nil {
				if _, err := os.Stat(filepath.Join(h.dir, "c.txt")); err != nil {
					break
				}
			}
		}
		cancel()
	}()
	run := h.runIn(ctx, sess.ID, "cancel me")
	if run.Status != kernel.RunCancelled {
		t.Fatalf("run %s; want cancelled", run.Status)
	}
	dir := realDir(t, h.dir)
	stored, err := h.k.Changes(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range stored {
		rel, _ := filepath.Rel(dir, c.Path)
		got = append(got, c.Op+" "+rel)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"create half.txt", "delete c.txt"}) {
		t.Fatalf("recorded %q; want the cancelled command's changes", got)
	}
	res, err := h.k.Revert(context.Background(), kernel.RevertRequest{RunID: run.ID})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("undo: %v %+v", err, res.Conflicts)
	}
	sameDir(t, "after undo", snapshotDir(t, h.dir), before)
}

// spec: X2
// The index is kept across a restart, so what changed
// while Foya was closed is seen as changed outside (not blamed on the next
// command), and a turn recorded before the restart is undone after it.
func TestIssue15IndexSurvivesRestart(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("c1", "bash", `{"command":"echo one >> a.txt"}`)), pt.Say("one"),
		pt.Calls(call("c2", "bash", `{"command":"echo two > two.txt"}`)), pt.Say("two"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	before := snapshotDir(t, h.dir)
	run1 := h.runIn(ctx, sess.ID, "one")
	h.k.Close()
	writeFile(t, filepath.Join(h.dir, "closed.txt"), "while closed\n", 0o644)
	h.open(nil)
	run2 := h.runIn(ctx, sess.ID, "two")
	dir := realDir(t, h.dir)
	if got := opsOf(dir, toolChanges(h, "c2")); !slices.Equal(got, []string{"create two.txt"}) {
		t.Fatalf("after the restart the command was blamed for %q", got)
	}
	if _, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run2.ID}); err != nil {
		t.Fatal(err)
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run1.ID})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("undo the first turn: %v %+v", err, res.Conflicts)
	}
	before["closed.txt"] = "-rw-r--r-- while closed\n"
	sameDir(t, "after undoing both turns", snapshotDir(t, h.dir), before)
	if u := h.k.WorkspaceUsage(); u.Blobs == 0 || u.Indexes != 1 {
		t.Errorf("usage %+v; want blobs and one index", u)
	}
	// foya doctor shows it too.
	if d := doctor.Run(ctx, doctor.Options{DBPath: h.db}).Workspace; d.Usage.Blobs == 0 || d.Status != doctor.OK {
		t.Errorf("doctor's workspace finding %+v; want its disk use", d)
	}
	if err := h.k.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if u := h.k.WorkspaceUsage(); u.Indexes != 0 {
		t.Errorf("usage after deleting the session %+v; want no index", u)
	}
	// Its blobs are pruned once no index refers to them and they are old
	// enough that no other kernel can be writing them.
	if p, err := h.k.PruneWorkspace(0); err != nil || p.Blobs == 0 || h.k.WorkspaceUsage().Blobs != 0 {
		t.Errorf("prune: %+v, %v; usage %+v; want every blob gone", p, err, h.k.WorkspaceUsage())
	}
}

// spec: F1, D2, D3
// The inline forms of the interpreter
// deletes (perl -e unlink, python3 -c os.remove, tar --remove-files). The
// approval policy recognises them as permanent deletes, which Auto refuses
// without asking (use the delete tool, which moves files to the trash):
// no approval is asked, nothing runs, nothing changes and nothing is
// captured. In Full Access they run, their deletes are captured as File
// Changes of each call, and "undo this turn" restores the files byte for
// byte and mode for mode. (The forms the policy cannot recognise, scripts,
// run in Auto: TestIssue15InterpreterDeletesInAuto.)
func TestIssue15InlineInterpreterDeletes(t *testing.T) {
	needSandbox(t)
	privateTrash(t)
	cmds := map[string]string{
		"c1": `perl -e 'unlink "p.txt" or die'`,
		"c2": `python3 -c 'import os; os.remove("q.txt")'`,
		"c3": `tar --remove-files -cf t.tar t1.txt t2.txt`,
	}
	args := func(id string) string {
		b, _ := json.Marshal(map[string]string{"command": cmds[id]})
		return string(b)
	}
	for _, mode := range []string{"auto", "full_access"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, nil,
				pt.Calls(call("c1", "bash", args("c1"))), pt.Calls(call("c2", "bash", args("c2"))),
				pt.Calls(call("c3", "bash", args("c3"))), pt.Say("done"))
			writeFile(t, filepath.Join(h.dir, "p.txt"), "perl's\n", 0o600)
			writeFile(t, filepath.Join(h.dir, "q.txt"), "python's\x00\n", 0o640)
			writeFile(t, filepath.Join(h.dir, "t1.txt"), "tar one\n", 0o644)
			writeFile(t, filepath.Join(h.dir, "t2.txt"), "tar two\n", 0o755)
			ans := &answerer{}
			defer ans.watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })()
			ctx := context.Background()
			sess := h.session(mode)
			before := snapshotDir(t, h.dir)
			run := h.runIn(ctx, sess.ID, "clean up")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			ans.mu.Lock()
			asked := slices.Clone(ans.asked)
			ans.mu.Unlock()
			if len(asked) != 0 {
				t.Fatalf("asked about %q; want no question (Auto refuses, Full Access allows)", asked)
			}
			dir := realDir(t, h.dir)
			if mode == "auto" {
				for id, cmd := range cmds {
					if txt := lastToolText(h, id); !strings.Contains(txt, "refused in Auto mode") || !strings.Contains(txt, "the command did not run") {
						t.Errorf("%s (%s): result %q; want refused in Auto mode, not run", id, cmd, txt)
					}
					if got := toolChanges(h, id); len(got) != 0 {
						t.Errorf("%s (%s): changes %q; want none (it did not run)", id, cmd, opsOf(dir, got))
					}
				}
				sameDir(t, "after the refused commands", snapshotDir(t, h.dir), before)
				return
			}
			for id, want := range map[string][]string{
				"c1": {"delete p.txt"},
				"c2": {"delete q.txt"},
				"c3": {"create t.tar", "delete t1.txt", "delete t2.txt"},
			} {
				if got := opsOf(dir, toolChanges(h, id)); !slices.Equal(got, want) {
					t.Fatalf("%s (%s): changes %q, want %q (result: %s)", id, cmds[id], got, want, lastToolText(h, id))
				}
			}
			res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID})
			if err != nil || len(res.Conflicts) > 0 {
				t.Fatalf("undo the turn: %v, conflicts %+v", err, res.Conflicts)
			}
			sameDir(t, "after undoing the turn", snapshotDir(t, h.dir), before)
		})
	}
}
