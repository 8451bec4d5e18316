package tests

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// spec: F2, W4
// A change knows which of its hunks are reverted, worked out from the
// change and its reverts: revert hunk 1 of 2, then hunk 2, undo the last
// step, revert what is left, undo hunk 1 while hunk 2 stays reverted, and
// after undoing a whole revert the change can be reverted again. The disk
// is checked after each step, and a second read of the list (another
// window, a reload) shows the same state.
func TestRevertHunkState(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"notes.txt"}`)),
		pt.Calls(call("e", "edit", jsonArgs(map[string]any{"path": "notes.txt", "edits": []map[string]string{
			{"old_string": "one\n", "new_string": "ONE\n"}, {"old_string": "nine\n", "new_string": "NINE\nNINE+\n"}}}))),
		pt.Say("done"))
	ctx := context.Background()
	path := filepath.Join(h.dir, "notes.txt")
	before := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	writeFile(t, path, before, 0o644)
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "edit")
	both := strings.NewReplacer("one\n", "ONE\n", "nine\n", "NINE\nNINE+\n").Replace(before)
	onlyTwo := strings.Replace(before, "nine\n", "NINE\nNINE+\n", 1) // hunk 1 reverted
	onlyOne := strings.Replace(before, "one\n", "ONE\n", 1)          // hunk 2 reverted
	disk := func(step, want string) {
		t.Helper()
		if got := readFile(t, path); got != want {
			t.Fatalf("%s: notes.txt = %q; want %q", step, got, want)
		}
	}
	disk("after the edit", both)
	edit := h.firstChange(ctx, sess.ID)
	state := func(step string, reverted []int, whole bool) kernel.Change {
		t.Helper()
		list, err := h.k.Changes(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		c := list[slices.IndexFunc(list, func(c kernel.Change) bool { return c.ID == edit.ID })]
		one, err := h.k.Change(ctx, edit.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Hunks != 2 || !slices.Equal(c.RevertedHunks, reverted) || c.Reverted != whole {
			t.Fatalf("%s: hunks %d, reverted %v, whole %v; want 2, %v, %v", step, c.Hunks, c.RevertedHunks, c.Reverted, reverted, whole)
		}
		if one.Hunks != c.Hunks || !slices.Equal(one.RevertedHunks, c.RevertedHunks) || one.Reverted != c.Reverted || !slices.Equal(one.Reverts, c.Reverts) {
			t.Fatalf("%s: Change says %+v, Changes says %+v", step, one, c)
		}
		return c
	}
	revert := func(step string, req kernel.RevertRequest) kernel.Change {
		t.Helper()
		res, err := h.k.Revert(ctx, req)
		if err != nil || len(res.Conflicts) > 0 || len(res.Reverted) != 1 {
			t.Fatalf("%s: %v %+v", step, err, res)
		}
		return res.Reverted[0]
	}
	state("before any revert", nil, false)

	r1 := revert("revert hunk 1", kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{1}})
	disk("after reverting hunk 1", onlyTwo)
	if !slices.Equal(r1.OfHunks, []int{1}) || r1.RevertOf != edit.ID {
		t.Fatalf("the revert of hunk 1 is recorded as %+v", r1)
	}
	state("after reverting hunk 1", []int{1}, false)
	if _, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{1}}); !kernel.IsBadRevert(err) {
		t.Fatalf("reverting hunk 1 twice: %v; want a bad-request error", err)
	}
	disk("after asking for hunk 1 again", onlyTwo)

	r2 := revert("revert hunk 2", kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{2}})
	disk("after reverting hunk 2", before)
	c := state("after reverting hunk 2", []int{1, 2}, true)
	if !slices.Equal(c.Reverts, []string{r1.ID, r2.ID}) {
		t.Fatalf("reverts in force %v; want %v", c.Reverts, []string{r1.ID, r2.ID})
	}

	// Undo the last step: hunk 2 is back, hunk 1 stays reverted.
	revert("undo hunk 2", kernel.RevertRequest{ChangeIDs: []string{r2.ID}})
	disk("after undoing hunk 2", onlyTwo)
	state("after undoing hunk 2", []int{1}, false)

	// Revert what is left.
	r3 := revert("revert what is left", kernel.RevertRequest{ChangeIDs: []string{edit.ID}})
	disk("after reverting what was left", before)
	if !slices.Equal(r3.OfHunks, []int{2}) {
		t.Fatalf("revert of what was left reverted hunks %v; want [2]", r3.OfHunks)
	}
	state("after reverting what was left", []int{1, 2}, true)

	// Undo hunk 1 while hunk 2 stays reverted: not the last step, its
	// lines are put back where they are now.
	revert("undo hunk 1", kernel.RevertRequest{ChangeIDs: []string{r1.ID}})
	disk("after undoing hunk 1", onlyOne)
	state("after undoing hunk 1", []int{2}, false)
	revert("undo hunk 2 again", kernel.RevertRequest{ChangeIDs: []string{r3.ID}})
	disk("after undoing every hunk revert", both)
	state("after undoing every hunk revert", nil, false)

	// A whole revert, its undo, and the change reverts again.
	whole := revert("revert the change", kernel.RevertRequest{ChangeIDs: []string{edit.ID}})
	disk("after reverting the change", before)
	state("after reverting the change", []int{1, 2}, true)
	revert("undo the revert", kernel.RevertRequest{ChangeIDs: []string{whole.ID}})
	disk("after undoing the revert", both)
	state("after undoing the revert", nil, false)
	revert("revert hunk 2 after the undo", kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{2}})
	disk("after reverting hunk 2 after the undo", onlyOne)
	state("after reverting hunk 2 after the undo", []int{2}, false)
	revert("revert again", kernel.RevertRequest{ChangeIDs: []string{edit.ID}})
	disk("after reverting again", before)
	state("after reverting again", []int{1, 2}, true)
}

// spec: F2, W4
// Reverting a whole turn takes the reverts made since into account: a
// change some of whose hunks were reverted is restored to its before
// content from where its hunk revert left it, and a change reverted in
// full is left alone, instead of both stopping the turn's revert at an
// "already reverted" conflict. Undoing the turn's revert puts back the
// state the hunk revert left.
func TestRevertTurnAfterHunkReverts(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"notes.txt"}`), call("r2", "read", `{"path":"other.txt"}`)),
		pt.Calls(call("e", "edit", jsonArgs(map[string]any{"path": "notes.txt", "edits": []map[string]string{
			{"old_string": "one\n", "new_string": "ONE\n"}, {"old_string": "nine\n", "new_string": "NINE\n"}}})),
			call("w", "write", `{"path":"other.txt","content":"new\n"}`)),
		pt.Say("done"))
	ctx := context.Background()
	notes, other := filepath.Join(h.dir, "notes.txt"), filepath.Join(h.dir, "other.txt")
	before := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	writeFile(t, notes, before, 0o644)
	writeFile(t, other, "old\n", 0o644)
	sess := h.session("auto")
	run := h.runIn(ctx, sess.ID, "edit")
	onlyTwo := strings.Replace(before, "nine\n", "NINE\n", 1)

	list, err := h.k.Changes(ctx, sess.ID)
	if err != nil || len(list) != 2 {
		t.Fatalf("changes: %v %+v", err, list)
	}
	edit, write := list[0], list[1]
	if edit.Path != notes {
		edit, write = write, edit
	}
	mustRevert := func(step string, req kernel.RevertRequest, n int) kernel.RevertResult {
		t.Helper()
		res, err := h.k.Revert(ctx, req)
		if err != nil || len(res.Conflicts) > 0 || len(res.Reverted) != n {
			t.Fatalf("%s: %v; reverted %d, conflicts %+v; want %d reverted, no conflict", step, err, len(res.Reverted), res.Conflicts, n)
		}
		return res
	}
	mustRevert("revert hunk 1", kernel.RevertRequest{ChangeIDs: []string{edit.ID}, Hunks: []int{1}}, 1)
	mustRevert("revert other.txt's change", kernel.RevertRequest{ChangeIDs: []string{write.ID}}, 1)
	if got := readFile(t, notes); got != onlyTwo {
		t.Fatalf("notes.txt after reverting hunk 1 = %q", got)
	}

	preview := mustRevert("preview the turn's revert", kernel.RevertRequest{RunID: run.ID, DryRun: true}, 1)
	if preview.Reverted[0].Path != notes {
		t.Fatalf("the preview reverts %s; want only notes.txt", preview.Reverted[0].Path)
	}
	res := mustRevert("revert the turn", kernel.RevertRequest{RunID: run.ID}, 1)
	if got := readFile(t, notes); got != before {
		t.Fatalf("notes.txt after the turn's revert = %q; want %q", got, before)
	}
	if got := readFile(t, other); got != "old\n" {
		t.Fatalf("other.txt after the turn's revert = %q; want it left as its revert left it", got)
	}
	if c, _ := h.k.Change(ctx, edit.ID); !c.Reverted || !slices.Equal(c.RevertedHunks, []int{1, 2}) {
		t.Fatalf("the edit after the turn's revert: reverted %v, hunks %v; want the whole of it", c.Reverted, c.RevertedHunks)
	}
	if _, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID}); !kernel.IsBadRevert(err) || !strings.Contains(err.Error(), "reverted already") {
		t.Fatalf("reverting the turn twice: %v; want a bad-request error that says it is reverted already", err)
	}
	mustRevert("undo the turn's revert", kernel.RevertRequest{ChangeIDs: []string{res.Reverted[0].ID}}, 1)
	if got := readFile(t, notes); got != onlyTwo {
		t.Fatalf("notes.txt after undoing the turn's revert = %q; want hunk 1 still reverted: %q", got, onlyTwo)
	}
	if c, _ := h.k.Change(ctx, edit.ID); c.Reverted || !slices.Equal(c.RevertedHunks, []int{1}) {
		t.Fatalf("the edit after the undo: reverted %v, hunks %v; want hunk 1 only", c.Reverted, c.RevertedHunks)
	}
}

// firstChange returns a session's first file change.
func (h *harness) firstChange(ctx context.Context, sessionID string) kernel.Change {
	h.t.Helper()
	list, err := h.k.Changes(ctx, sessionID)
	if err != nil || len(list) == 0 {
		h.t.Fatalf("changes: %v %v", err, list)
	}
	return list[0]
}
