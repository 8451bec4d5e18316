package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// snapshotDir maps every file below dir to its content and mode.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	return out
}

func sameDir(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q; want %q", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s should not exist", what, k)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// spec: F1
// Undo a turn, undo the undo, restore to a point, revert one hunk; stop at
// a conflict and go on with force; each revert recorded as a change with a
// file.reverted event.
func TestRevertThroughTheKernel(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"main.go"}`)),
		pt.Calls(
			call("e", "edit", jsonArgs(map[string]any{"path": "main.go", "edits": []map[string]string{
				{"old_string": "// one\n", "new_string": "// ONE\n"}, {"old_string": "// nine\n", "new_string": "// NINE\n"}}})),
			call("w", "write", `{"path":"pkg/new.go","content":"package pkg\n"}`),
			call("d", "delete", `{"path":"LICENSE"}`)),
		pt.Say("turn one"),
		pt.Calls(call("e2", "edit", `{"path":"main.go","old_string":"package main","new_string":"package app"}`)),
		pt.Say("turn two"))
	ctx := context.Background()
	lines := "package main\n\n// one\n// two\n// three\n// four\n// five\n// six\n// seven\n// eight\n// nine\n"
	writeFile(t, filepath.Join(h.dir, "main.go"), lines, 0o640)
	writeFile(t, filepath.Join(h.dir, "LICENSE"), "MIT\n", 0o444)
	sess := h.session("auto")
	before := snapshotDir(t, h.dir)
	run1 := h.runIn(ctx, sess.ID, "one")
	afterOne := snapshotDir(t, h.dir)
	run2 := h.runIn(ctx, sess.ID, "two")
	afterTwo := snapshotDir(t, h.dir)
	if afterTwo["main.go"] == afterOne["main.go"] || afterOne["pkg/new.go"] == "" {
		t.Fatalf("the runs changed nothing: %v", afterTwo)
	}

	// Undo turn two.
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run2.ID})
	if err != nil || len(res.Conflicts) > 0 || len(res.Reverted) != 1 {
		t.Fatalf("revert run 2: %v %+v", err, res)
	}
	sameDir(t, "after undoing turn two", snapshotDir(t, h.dir), afterOne)
	undo := res.Reverted[0]
	if undo.Op != "revert" || undo.RevertOf == "" || undo.RunID != "" || undo.SessionID != sess.ID {
		t.Fatalf("revert change: %+v", undo)
	}
	// Undo the undo.
	res, err = h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{undo.ID}})
	if err != nil || len(res.Reverted) != 1 {
		t.Fatalf("revert the revert: %v %+v", err, res)
	}
	sameDir(t, "after undoing the undo", snapshotDir(t, h.dir), afterTwo)

	// Changed outside Foya since, main.go conflicts.
	writeFile(t, filepath.Join(h.dir, "main.go"), "edited by the user\n", 0o640)
	res, err = h.k.Revert(ctx, kernel.RevertRequest{RunID: run2.ID})
	if err != nil || len(res.Conflicts) != 1 || len(res.Reverted) != 0 || !strings.Contains(res.Conflicts[0].Diff, "+edited by the user") {
		t.Fatalf("conflict: %v %+v", err, res)
	}
	if readFile(t, filepath.Join(h.dir, "main.go")) != "edited by the user\n" {
		t.Fatal("a conflicting revert changed the file")
	}
	res, err = h.k.Revert(ctx, kernel.RevertRequest{RunID: run2.ID, Force: true})
	if err != nil || len(res.Reverted) != 1 {
		t.Fatalf("forced: %v %+v", err, res)
	}
	sameDir(t, "after the forced undo", snapshotDir(t, h.dir), afterOne)

	// One hunk of turn one's edit.
	changes, _ := h.k.Changes(ctx, sess.ID)
	edit := changes[0]
	if edit.Op != "edit" || edit.RunID != run1.ID {
		t.Fatalf("first change: %+v", edit)
	}
	res, err = h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{2}})
	if err != nil || len(res.Reverted) != 1 {
		t.Fatalf("hunk: %v %+v", err, res)
	}
	if got := readFile(t, filepath.Join(h.dir, "main.go")); got != strings.Replace(lines, "// one", "// ONE", 1) {
		t.Fatalf("after hunk 2: %q", got)
	}

	// Restore to before everything: the first change too.
	res, err = h.k.Revert(ctx, kernel.RevertRequest{ToChangeID: edit.ID})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("restore to a point: %v %+v", err, res)
	}
	if got := readFile(t, filepath.Join(h.dir, "main.go")); !strings.Contains(got, "// ONE") || !strings.Contains(got, "// NINE") {
		t.Fatalf("restored to just after the first edit: %q", got)
	}
	res, err = h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{1, 2}})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("both hunks: %v %+v", err, res)
	}
	sameDir(t, "after restoring to the start", snapshotDir(t, h.dir), before)

	// Every revert is on record, with an event each.
	evs, _ := h.k.Events(ctx, sess.ID, 0)
	reverted := 0
	for _, ev := range evs {
		if ev.Type == event.TypeFileReverted {
			reverted++
			if field(ev, "changeId") == nil || field(ev, "revertOf") == nil {
				t.Fatalf("event data %s", ev.Data)
			}
		}
	}
	all, _ := h.k.Changes(ctx, sess.ID)
	reverts := 0
	for _, c := range all {
		if c.Op == "revert" {
			reverts++
		}
	}
	if reverted != reverts || reverts < 8 {
		t.Fatalf("%d file.reverted events for %d revert changes", reverted, reverts)
	}
}

// Bad revert requests are refused with clear errors and change nothing.
func TestRevertBadInput(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil, pt.Calls(call("w", "write", `{"path":"a.txt","content":"a\n"}`)), pt.Say("ok"))
	ctx := context.Background()
	run := h.run("write")
	changes, _ := h.k.Changes(ctx, run.SessionID)
	for name, req := range map[string]kernel.RevertRequest{
		"nothing":           {},
		"two selectors":     {RunID: run.ID, ToChangeID: changes[0].ID},
		"hunks with a run":  {RunID: run.ID, Hunks: []int{1}},
		"hunks of two":      {ChangeIDs: []string{changes[0].ID, changes[0].ID}, Hunks: []int{1}},
		"hunk out of range": {ChangeIDs: []string{changes[0].ID}, Hunks: []int{7}},
	} {
		if _, err := h.k.Revert(ctx, req); !kernel.IsBadRevert(err) {
			t.Errorf("%s: %v; want a bad-request error", name, err)
		}
	}
	for name, req := range map[string]kernel.RevertRequest{
		"unknown change": {ChangeIDs: []string{"chg_nope"}},
		"unknown run":    {RunID: "run_nope"},
		"unknown point":  {ToChangeID: "chg_nope"},
	} {
		if _, err := h.k.Revert(ctx, req); !kernel.IsNotFound(err) {
			t.Errorf("%s: %v; want not found", name, err)
		}
	}
	if _, err := h.k.Changes(ctx, "ses_nope"); !kernel.IsNotFound(err) {
		t.Errorf("changes of an unknown session: %v", err)
	}
	if readFile(t, filepath.Join(h.dir, "a.txt")) != "a\n" {
		t.Fatal("a bad request changed the file")
	}
}

// The README walkthrough (docs/walkthrough-files.md), with the real
// binary: foya exec with a scripted model that writes, edits and deletes;
// foya changes --json lists the changes; foya diff shows one; foya revert
// --run restores the workspace; reverting again reports the conflict.
func TestExecWalkthroughRevertsARun(t *testing.T) {
	bin := foyaBinary(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "FOYA_DB=" + filepath.Join(home, "foya.db")}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "greet.py"), "def greet():\n    print(\"hello\")\n", 0o644)
	writeFile(t, filepath.Join(dir, "notes.txt"), "scratch\n", 0o600)
	before := snapshotDir(t, dir)
	srv := pt.New(t,
		pt.Calls(call("c1", "read", `{"path":"greet.py"}`)),
		pt.Calls(
			call("c2", "edit", `{"path":"greet.py","old_string":"print(\"hello\")","new_string":"print(\"hello, world\")"}`),
			call("c3", "write", `{"path":"README.md","content":"# Greeter\n\nRun greet.py.\n"}`),
			call("c4", "delete", `{"path":"notes.txt"}`)),
		pt.Say("Greeting widened, README added, scratch notes moved to the trash."))
	res := runFoya(t, bin, env, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--workdir", dir,
		"--approval", "auto", "--json", "Tidy up the greeter")
	if res.code != 0 {
		t.Fatalf("exec: %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	var runID string
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	for sc.Scan() {
		var ev llm.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == event.TypeRunEnd {
			runID = ev.RunID
		}
	}
	if readFile(t, filepath.Join(dir, "greet.py")) != "def greet():\n    print(\"hello, world\")\n" {
		t.Fatal("the edit did not happen")
	}

	res = runFoya(t, bin, env, "changes", "--json")
	var changes []kernel.Change
	if err := json.Unmarshal([]byte(res.stdout), &changes); err != nil || res.code != 0 {
		t.Fatalf("changes --json: %v\n%s%s", err, res.stdout, res.stderr)
	}
	var ops []string
	for _, c := range changes {
		ops = append(ops, c.Op)
		if c.RunID != runID {
			t.Fatalf("change of run %s; want %s", c.RunID, runID)
		}
	}
	if strings.Join(ops, " ") != "edit create delete" {
		t.Fatalf("ops %v", ops)
	}
	res = runFoya(t, bin, env, "changes")
	if res.code != 0 || !strings.Contains(res.stdout, "greet.py") || !strings.Contains(res.stdout, "+1 -1") {
		t.Fatalf("changes: %s", res.stdout)
	}
	res = runFoya(t, bin, env, "diff", changes[0].ID)
	if res.code != 0 || res.stdout != "--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def greet():\n-    print(\"hello\")\n+    print(\"hello, world\")\n" {
		t.Fatalf("diff: %d %q %s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, env, "revert", "--run", runID)
	if res.code != 0 || !strings.Contains(res.stdout, "Reverted 3 change(s)") {
		t.Fatalf("revert: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	sameDir(t, "after foya revert --run", snapshotDir(t, dir), before)

	// A run whose every change is reverted has nothing left to revert.
	res = runFoya(t, bin, env, "revert", "--run", runID, "--json")
	if res.code != 2 || !strings.Contains(res.stderr, "reverted already") {
		t.Fatalf("second revert: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, args := range [][]string{{"diff"}, {"diff", "chg_nope"}, {"revert"}, {"revert", "--run", "r", "--to", "c"}, {"revert", "--hunk", "x", "c"}, {"changes", "ses_nope"}} {
		if res := runFoya(t, bin, env, args...); res.code != 2 || res.stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, res.code, res.stderr)
		}
	}
}
