package tests

import (
	"context"
	"slices"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// spec: B1, F1
// Issue 16 item 1 (the crash harness's shell cases): a background
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
