package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// planned is what a preview and the revert it previews must agree on: all
// of a revert change but its ID, time and trash location (known once the
// revert has moved the file there).
func planned(cs []kernel.Change) []kernel.Change {
	out := make([]kernel.Change, 0, len(cs))
	for _, c := range cs {
		c.ID, c.CreatedAt, c.TrashPath, c.TrashInfo = "", time.Time{}, "", ""
		out = append(out, c)
	}
	return out
}

// spec: F1, F2, W4
// A revert's preview (RevertRequest.DryRun) changes
// nothing, on disk or in the store, and says exactly what the revert then
// does: a whole turn (an edit, a created file, a delete restored from the
// trash), the undo of that revert, one hunk, a restore to a point, and a
// conflict, previewed with and without force.
func TestRevertPreviewMatchesTheRevert(t *testing.T) {
	trashDir := privateTrash(t)
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
	run2 := h.runIn(ctx, sess.ID, "two")

	preview := func(what string, req kernel.RevertRequest) kernel.RevertResult {
		t.Helper()
		return previewThenRevert(t, h, sess.ID, trashDir, what, req)
	}

	// Undo turn two, then undo that undo.
	res := preview("turn two", kernel.RevertRequest{RunID: run2.ID})
	if len(res.Reverted) != 1 {
		t.Fatalf("turn two: %+v", res)
	}
	res = preview("undo of the revert", kernel.RevertRequest{ChangeIDs: []string{res.Reverted[0].ID}})
	if len(res.Reverted) != 1 || readFile(t, filepath.Join(h.dir, "main.go")) == lines {
		t.Fatalf("undo: %+v", res)
	}
	res = preview("restore to before turn two", kernel.RevertRequest{ToChangeID: lastOfRun(t, h, sess.ID, run1.ID)})
	if len(res.Reverted) != 3 { // turn two's edit, its revert and the revert's undo
		t.Fatalf("restore to a point: %+v", res)
	}
	res = preview("turn one", kernel.RevertRequest{RunID: run1.ID})
	if len(res.Reverted) != 4 || len(res.Conflicts) != 0 { // the edit, the folder pkg, pkg/new.go, the delete
		t.Fatalf("turn one: %+v", res)
	}
	sameDir(t, "after undoing turn one", snapshotDir(t, h.dir), before)

	// Redo turn one (undo its revert, the three changes at once), then
	// revert one hunk of its edit.
	ids := []string{}
	for _, c := range res.Reverted {
		ids = append(ids, c.ID)
	}
	preview("redo turn one", kernel.RevertRequest{ChangeIDs: ids})
	changes, _ := h.k.Changes(ctx, sess.ID)
	edit := changes[0]
	preview("hunk 2", kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{2}})

	// The user edits main.go: the preview shows the conflict, with the
	// current content's diff; forced, it shows the overwrite.
	writeFile(t, filepath.Join(h.dir, "main.go"), "edited by the user\n", 0o640)
	dry, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{edit.ID}, DryRun: true})
	if err != nil || len(dry.Conflicts) != 1 || len(dry.Reverted) != 0 || dry.Conflicts[0].Diff == "" || !dry.Conflicts[0].Forceable {
		t.Fatalf("conflict preview: %v %+v", err, dry)
	}
	if readFile(t, filepath.Join(h.dir, "main.go")) != "edited by the user\n" {
		t.Fatal("a previewed conflict changed the file")
	}
	res = preview("forced", kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Force: true})
	if len(res.Reverted) != 1 || readFile(t, filepath.Join(h.dir, "main.go")) != lines {
		t.Fatalf("forced: %+v %q", res, readFile(t, filepath.Join(h.dir, "main.go")))
	}
	// Every hunk of the edit is reverted now: asking for one again is
	// refused, previewed or not. Once the forced revert is undone (the
	// user's content is back), a hunk revert meets the user's content.
	for _, dry := range []bool{true, false} {
		if _, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{1}, DryRun: dry}); !kernel.IsBadRevert(err) {
			t.Fatalf("hunk of a reverted change (dry run %v): %v; want a bad-request error", dry, err)
		}
	}
	preview("undo the forced revert", kernel.RevertRequest{ChangeIDs: []string{res.Reverted[0].ID}})
	if readFile(t, filepath.Join(h.dir, "main.go")) != "edited by the user\n" {
		t.Fatal("undoing the forced revert did not bring the user's content back")
	}
	preview("hunk conflict", kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{1}})
}

// lastOfRun returns the ID of the last change a run made.
func lastOfRun(t *testing.T, h *harness, sessionID, runID string) string {
	t.Helper()
	changes, err := h.k.Changes(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, c := range changes {
		if c.RunID == runID {
			last = c.ID
		}
	}
	if last == "" {
		t.Fatalf("run %s changed nothing", runID)
	}
	return last
}

// A dry run checks the request as the revert does.
func TestRevertPreviewBadInput(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil, pt.Calls(call("w", "write", `{"path":"a.txt","content":"a\n"}`)), pt.Say("ok"))
	ctx := context.Background()
	run := h.run("write")
	changes, _ := h.k.Changes(ctx, run.SessionID)
	if _, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{changes[0].ID}, Hunks: []int{7}, DryRun: true}); !kernel.IsBadRevert(err) {
		t.Errorf("hunk out of range: %v; want a bad-request error", err)
	}
	if _, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{"chg_nope"}, DryRun: true}); !kernel.IsNotFound(err) {
		t.Errorf("unknown change: %v; want not found", err)
	}
	if _, err := h.k.Revert(ctx, kernel.RevertRequest{DryRun: true}); !kernel.IsBadRevert(err) {
		t.Errorf("nothing selected: %v; want a bad-request error", err)
	}
	if readFile(t, filepath.Join(h.dir, "a.txt")) != "a\n" {
		t.Fatal("a dry run changed the file")
	}
}

// spec: F1
// ChangeContents gives a review the whole text of a
// change's file before and after it, and says when a side is not there.
func TestChangeContents(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"a.txt"}`)),
		pt.Calls(call("e", "edit", `{"path":"a.txt","old_string":"two","new_string":"TWO"}`),
			call("w", "write", `{"path":"b.txt","content":"new\n"}`),
			call("d", "delete", `{"path":"a.txt"}`)),
		pt.Say("ok"))
	ctx := context.Background()
	writeFile(t, filepath.Join(h.dir, "a.txt"), "one\ntwo\n", 0o644)
	run := h.run("go")
	changes, _ := h.k.Changes(ctx, run.SessionID)
	if len(changes) != 3 {
		t.Fatalf("changes: %+v", changes)
	}
	for i, want := range []kernel.ChangeContents{
		{Before: "one\ntwo\n", BeforeKnown: true, After: "one\nTWO\n", AfterKnown: true},
		{After: "new\n", AfterKnown: true},
		{Before: "one\nTWO\n", BeforeKnown: true},
	} {
		got, err := h.k.ChangeContents(ctx, changes[i].ID)
		want.ChangeID = changes[i].ID
		if err != nil || got != want {
			t.Errorf("ChangeContents(%s %s) = %+v, %v; want %+v", changes[i].Op, changes[i].Path, got, err, want)
		}
	}
	if _, err := h.k.ChangeContents(ctx, "chg_nope"); !kernel.IsNotFound(err) {
		t.Errorf("unknown change: %v; want not found", err)
	}
}

// previewThenRevert runs req as a dry run, checks that it changed nothing
// (workspace, trash, store), runs it for real and checks the two agree; it
// returns the real result.
func previewThenRevert(t *testing.T, h *harness, sessionID, trashDir, what string, req kernel.RevertRequest) kernel.RevertResult {
	t.Helper()
	ctx := context.Background()
	// What the watcher makes of the last revert's (or the user's) changes
	// is in before the counts are taken: only the preview may not add.
	if err := h.k.WaitWatcher(ctx, sessionID); err != nil {
		t.Fatal(err)
	}
	disk, trash := snapshotDir(t, h.dir), snapshotDir(t, trashDir)
	changes, _ := h.k.Changes(ctx, sessionID)
	evs, _ := h.k.Events(ctx, sessionID, 0)
	dry := req
	dry.DryRun = true
	p, err := h.k.Revert(ctx, dry)
	if err != nil {
		t.Fatalf("%s: preview: %v", what, err)
	}
	if !p.DryRun {
		t.Errorf("%s: preview result not marked DryRun", what)
	}
	sameDir(t, what+": the workspace after the preview", snapshotDir(t, h.dir), disk)
	sameDir(t, what+": the trash after the preview", snapshotDir(t, trashDir), trash)
	changesAfter, _ := h.k.Changes(ctx, sessionID)
	evsAfter, _ := h.k.Events(ctx, sessionID, 0)
	if len(changesAfter) != len(changes) || len(evsAfter) != len(evs) {
		var added []string
		for _, e := range evsAfter[min(len(evs), len(evsAfter)):] {
			added = append(added, string(e.Type))
		}
		t.Fatalf("%s: the preview recorded something: %d changes, %d events; had %d, %d (new: %v)", what, len(changesAfter), len(evsAfter), len(changes), len(evs), added)
	}
	for _, c := range p.Reverted {
		if c.ID != "" || c.TrashPath != "" {
			t.Errorf("%s: a previewed change has an ID or a trash location: %+v", what, c)
		}
	}
	res, err := h.k.Revert(ctx, req)
	if err != nil {
		t.Fatalf("%s: revert: %v", what, err)
	}
	if got, want := planned(p.Reverted), planned(res.Reverted); !slices.EqualFunc(got, want, func(a, b kernel.Change) bool {
		return a.Path == b.Path && a.Op == b.Op && a.RevertOf == b.RevertOf && a.SessionID == b.SessionID &&
			a.ExistedBefore == b.ExistedBefore && a.ExistsAfter == b.ExistsAfter && a.IsDir == b.IsDir &&
			a.SHABefore == b.SHABefore && a.SHAAfter == b.SHAAfter && a.Diff == b.Diff &&
			a.Added == b.Added && a.Removed == b.Removed && a.Binary == b.Binary && a.ModeBefore == b.ModeBefore
	}) {
		t.Fatalf("%s: preview\n%+v\nbut the revert did\n%+v", what, got, want)
	}
	if len(p.Conflicts) != len(res.Conflicts) {
		t.Fatalf("%s: preview conflicts %+v; the revert met %+v", what, p.Conflicts, res.Conflicts)
	}
	for i := range p.Conflicts {
		if p.Conflicts[i] != res.Conflicts[i] {
			t.Fatalf("%s: preview conflict %+v; the revert met %+v", what, p.Conflicts[i], res.Conflicts[i])
		}
	}
	return res
}

// spec: D1, F1
// The preview of restoring a deleted folder (from the
// trash, with the files in it) and of moving it back equals the reverts.
func TestRevertPreviewOfAFolder(t *testing.T) {
	trashDir := privateTrash(t)
	h := newHarness(t, nil, pt.Calls(call("d", "delete", `{"path":"docs"}`)), pt.Say("ok"))
	ctx := context.Background()
	writeFile(t, filepath.Join(h.dir, "docs", "a.md"), "# a\n", 0o644)
	writeFile(t, filepath.Join(h.dir, "docs", "sub", "b.md"), "# b\n", 0o600)
	before := snapshotDir(t, h.dir)
	run := h.run("delete docs")
	changes, _ := h.k.Changes(ctx, run.SessionID)
	if len(changes) != 1 || !changes[0].IsDir || changes[0].TrashPath == "" {
		t.Fatalf("delete: %+v", changes)
	}
	res := previewThenRevert(t, h, run.SessionID, trashDir, "restore the folder", kernel.RevertRequest{ChangeIDs: []string{changes[0].ID}})
	sameDir(t, "after restoring the folder", snapshotDir(t, h.dir), before)
	back := previewThenRevert(t, h, run.SessionID, trashDir, "move it back", kernel.RevertRequest{ChangeIDs: []string{res.Reverted[0].ID}})
	if _, err := os.Stat(filepath.Join(h.dir, "docs")); !os.IsNotExist(err) {
		t.Fatalf("docs after undoing the restore: %v", err)
	}
	// The trash is emptied: the preview fails as the revert would, and
	// says why.
	if len(back.Reverted) != 1 || back.Reverted[0].TrashPath == "" {
		t.Fatalf("move back: %+v", back)
	}
	if err := os.RemoveAll(back.Reverted[0].TrashPath); err != nil {
		t.Fatal(err)
	}
	again := kernel.RevertRequest{ChangeIDs: []string{back.Reverted[0].ID}}
	for _, dry := range []bool{true, false} {
		again.DryRun = dry
		if _, err := h.k.Revert(ctx, again); err == nil || !strings.Contains(err.Error(), "no longer in the trash") {
			t.Errorf("revert (dry run %v) of a folder gone from the trash: %v; want it to say so", dry, err)
		}
	}
}
