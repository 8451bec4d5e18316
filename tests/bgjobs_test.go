package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"foya/backend/event"
	pt "foya/backend/provider/providertest"
)

// spec: B1, F1
// Found by the crash harness with -bg-tracked: a background
// command's change made while no command of the session ran is recorded
// against the background command's call by the look before the next
// foreground command, not reported as made outside Foya (which took it
// into the index, so that the command's own capture at its end found
// nothing). With one background command alive the record is not marked
// unconfirmed.
func TestLookBeforeACommandGivesChangesToTheLiveBackgroundCommand(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("bg", "bash", jsonArgs(map[string]any{"command": "sleep 0.2; echo bg >> a.txt; exec sleep 30", "run_in_background": true}))),
		pt.Say("started"),
		pt.Calls(call("fg", "bash", `{"command":"true"}`)),
		pt.Say("done"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	h.runIn(ctx, sess.ID, "in the background")
	a := filepath.Join(h.dir, "a.txt")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(a); string(b) == "alpha\nbg\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background command did not change a.txt")
		}
	}
	h.runIn(ctx, sess.ID, "a command in the foreground")
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeFileChangedOutside {
			t.Errorf("the look before the foreground command reported %s as changed outside Foya", ev.Data)
		}
	}
	fcs := waitCaptured(t, h, "bg")
	if got := opsOf(realDir(t, h.dir), fcs); !slices.Equal(got, []string{"write a.txt"}) {
		t.Fatalf("the background command's changes: %q; want write a.txt", got)
	}
	if fcs[0].Unconfirmed {
		t.Errorf("the change is marked unconfirmed with one background command alive: %+v", fcs[0])
	}
	list, err := h.k.Changes(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range list {
		if fc.CallID == "fg" {
			t.Errorf("the foreground command was given a change: %+v", fc)
		}
	}
}
