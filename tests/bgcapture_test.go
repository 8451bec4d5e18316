package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// spec: B1, F1
// Found by the crash harness's shell cases: a background
// command's changes, recorded when it ends, leave out what the file tools
// changed while it ran (here a write and a delete, made after the index
// last looked), and its own change starts where the newest record of the
// path left it, so that undoing the turn restores the workspace.
func TestBackgroundCaptureLeavesOutTheFileTools(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("bg", "bash", jsonArgs(map[string]any{"command": "sleep 0.5; echo bg >> a.txt", "run_in_background": true}))),
		pt.Calls(call("w", "write", `{"path":"w.txt","content":"by the write tool\n"}`), call("d", "delete", `{"path":"c.txt"}`)),
		pt.Say("started"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	before := snapshotDir(t, h.dir)
	run := h.runIn(ctx, sess.ID, "in the background")
	fcs := waitCaptured(t, h, "bg")
	if got := opsOf(realDir(t, h.dir), fcs); !slices.Equal(got, []string{"write a.txt"}) {
		t.Fatalf("the background command's changes: %q; want only its own, write a.txt", got)
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID})
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("undo the turn: %v, conflicts %+v", err, res.Conflicts)
	}
	sameDir(t, "after undoing the turn", snapshotDir(t, h.dir), before)
}

// spec: F1
// Found by the crash harness's shell cases: a command's chmod of
// an empty file reverts; the index keeps empty contents as contents, not
// as "no copy kept".
func TestShellChmodOfAnEmptyFileReverts(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("t", "bash", `{"command":"truncate -s0 a.txt"}`)),
		pt.Calls(call("m", "bash", `{"command":"chmod 600 a.txt"}`)), pt.Say("done"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	h.runIn(ctx, sess.ID, "truncate, then chmod")
	list, err := h.k.Changes(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var chmod kernel.Change
	for _, fc := range list {
		if fc.CallID == "m" {
			chmod = fc
		}
	}
	if chmod.ID == "" || chmod.Op != "chmod" || chmod.NotRestorable != "" {
		t.Fatalf("the chmod's change: %+v (all %+v); want a restorable chmod", chmod, list)
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{chmod.ID}})
	if err != nil || len(res.Conflicts) > 0 || len(res.Reverted) != 1 {
		t.Fatalf("revert the chmod: %+v, %v", res, err)
	}
	fi, err := os.Stat(filepath.Join(h.dir, "a.txt"))
	if err != nil || fi.Size() != 0 || fi.Mode().Perm() != 0o640 {
		t.Errorf("a.txt after the revert: %v, %v; want empty, mode 0640", fi.Mode(), err)
	}
}
