package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// spec: W4
// "Changed outside Foya" marks, live from the watcher, after a revert:
// the revert marks the session's records of its files as
// changed (the model must read them again), and an editor's change made
// after it is still reported, as a file.changed_outside event after the
// file.reverted one. The kernel is restarted before the revert, so no run
// started the watch: the revert does.
func TestOutsideChangeAfterARevertIsReported(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("r", "read", `{"path":"notes.txt"}`)),
		pt.Calls(call("w", "write", `{"path":"notes.txt","content":"after\n"}`), call("n", "write", `{"path":"new.txt","content":"new\n"}`)),
		pt.Say("done"))
	ctx := context.Background()
	notes, made := filepath.Join(h.dir, "notes.txt"), filepath.Join(h.dir, "new.txt")
	writeFile(t, notes, "before\n", 0o644)
	sess := h.session("auto")
	run := h.runIn(ctx, sess.ID, "change them")
	if readFile(t, notes) != "after\n" || readFile(t, made) != "new\n" {
		t.Fatal("the run changed nothing")
	}
	h.k.Close()
	h.open(nil)

	got := make(chan llm.Event, 16)
	unsub := h.k.Subscribe(func(ev llm.Event) {
		if ev.SessionID == sess.ID && (ev.Type == event.TypeFileChangedOutside || ev.Type == event.TypeFileReverted) {
			select {
			case got <- ev:
			default:
			}
		}
	})
	defer unsub()
	res, err := h.k.Revert(ctx, kernel.RevertRequest{RunID: run.ID})
	if err != nil || len(res.Reverted) != 2 || len(res.Conflicts) != 0 {
		t.Fatalf("revert: %v %+v", err, res)
	}
	if _, err := os.Stat(made); readFile(t, notes) != "before\n" || err == nil {
		t.Fatal("the revert did not restore the files")
	}
	var lastRevert int64
	for range 2 {
		ev := <-got
		if ev.Type != event.TypeFileReverted {
			t.Fatalf("the revert's own writes were reported as outside changes: %+v %s", ev, ev.Data)
		}
		lastRevert = ev.Seq
	}

	wait := func(path string) llm.Event {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case ev := <-got:
				if field(ev, "path") == path {
					return ev
				}
			case <-deadline:
				t.Fatalf("no file.changed_outside for %s after an editor changed it following the revert", path)
			}
		}
	}
	// The file the revert removed, made again in an editor.
	writeFile(t, made, "made in an editor\n", 0o644)
	if ev := wait(made); ev.Type != event.TypeFileChangedOutside || field(ev, "exists") != true || ev.Seq <= lastRevert {
		t.Fatalf("new.txt: %+v %s", ev, ev.Data)
	}
	// The file the revert restored, edited in an editor.
	writeFile(t, notes, "edited in an editor\n", 0o644)
	if ev := wait(notes); ev.Type != event.TypeFileChangedOutside || field(ev, "exists") != true {
		t.Fatalf("notes.txt: %+v %s", ev, ev.Data)
	}
	stored, err := h.k.Events(ctx, sess.ID, lastRevert)
	if err != nil {
		t.Fatal(err)
	}
	outside := 0
	for _, ev := range stored {
		if ev.Type == event.TypeFileChangedOutside {
			outside++
		}
	}
	if outside != 2 {
		t.Fatalf("stored %d file.changed_outside events after the revert; want 2", outside)
	}
}
