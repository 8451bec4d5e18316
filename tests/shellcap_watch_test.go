//go:build linux

package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// spec: F1
// What a running bash command changes in files the model
// read is the command's, not a change outside Foya. While the command runs
// (it sleeps past the watcher's debounce after changing them) no
// file.changed_outside event is stored; its changes are the call's File
// Changes; the stale-read guard still refuses a write or edit without a new
// read, for a whole read (its digest) and for a partial one whose size and
// time the command kept (only the record's mark tells). An editor's change
// made after the command is still reported as outside.
func TestIssue15CommandChangesNotOutside(t *testing.T) {
	privateTrash(t)
	script := `echo agent >> a.txt; ref=$(mktemp); touch -r p.txt "$ref"; sed -i s/one/ONE/ p.txt; touch -r "$ref" p.txt; rm -f "$ref"; sleep 0.8`
	h := newHarness(t, nil,
		pt.Calls(call("r1", "read", `{"path":"a.txt"}`), call("r2", "read", `{"path":"p.txt","limit":1}`)),
		pt.Calls(call("c1", "bash", jsonArgs(map[string]any{"command": script}))),
		pt.Calls(call("w1", "write", `{"path":"a.txt","content":"blind\n"}`),
			call("w2", "edit", `{"path":"p.txt","old_string":"two","new_string":"TWO"}`)),
		pt.Say("done"))
	shellcapFiles(t, h.dir)
	writeFile(t, filepath.Join(h.dir, "p.txt"), "one\ntwo\nthree\n", 0o644)
	ctx := context.Background()
	sess := h.session("full_access")
	outside := make(chan llm.Event, 8)
	unsub := h.k.Subscribe(func(ev llm.Event) {
		if ev.Type == event.TypeFileChangedOutside {
			outside <- ev
		}
	})
	defer unsub()
	h.runIn(ctx, sess.ID, "read, change, write")
	dir := realDir(t, h.dir)
	if got := opsOf(dir, toolChanges(h, "c1")); !slices.Equal(got, []string{"write a.txt", "write p.txt"}) {
		t.Fatalf("the command's changes: %q; want a.txt and p.txt", got)
	}
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeFileChangedOutside {
			t.Errorf("the command's change was reported as outside Foya: %s", ev.Data)
		}
	}
	for _, id := range []string{"w1", "w2"} {
		if text := lastToolText(h, id); !strings.Contains(text, "changed since you last read it") {
			t.Errorf("%s without a new read: %q; want it refused as stale", id, text)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "a.txt")); string(b) != "alpha\nagent\n" {
		t.Fatalf("a.txt = %q; the blind write went through", b)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "p.txt")); string(b) != "ONE\ntwo\nthree\n" {
		t.Fatalf("p.txt = %q; the blind edit went through", b)
	}
	// The user's editor changes a.txt after the command: that is outside.
	writeFile(t, filepath.Join(h.dir, "a.txt"), "alpha\nagent\nthe user's line\n", 0o640)
	ev := testwait.Receive(t, outside, "file.changed_outside for the editor's change after the command")
	if field(ev, "path") != filepath.Join(dir, "a.txt") && field(ev, "path") != filepath.Join(h.dir, "a.txt") {
		t.Fatalf("outside event for %v; want a.txt", field(ev, "path"))
	}
}

// spec: B1, F1
// For a background command: what it changes while it
// runs, after its run ended, is not reported as changed outside Foya; it
// is captured against its call when it ends, and the model's write of the
// file it changed still needs a new read.
func TestIssue15BackgroundChangesNotOutside(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil,
		pt.Calls(call("r1", "read", `{"path":"a.txt"}`)),
		pt.Calls(call("bg", "bash", jsonArgs(map[string]any{"command": "sleep 0.3; echo later >> a.txt; sleep 0.8", "run_in_background": true}))),
		pt.Say("started"),
		pt.Calls(call("w1", "write", `{"path":"a.txt","content":"blind\n"}`)), pt.Say("tried"))
	shellcapFiles(t, h.dir)
	ctx := context.Background()
	sess := h.session("full_access")
	h.runIn(ctx, sess.ID, "start it")
	dir := realDir(t, h.dir)
	if got := opsOf(dir, waitCaptured(t, h, "bg")); !slices.Equal(got, []string{"write a.txt"}) {
		t.Fatalf("captured: %q; want a.txt", got)
	}
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeFileChangedOutside {
			t.Errorf("the background command's change was reported as outside Foya: %s", ev.Data)
		}
	}
	h.runIn(ctx, sess.ID, "write it")
	if text := lastToolText(h, "w1"); !strings.Contains(text, "changed since you last read it") {
		t.Errorf("write without a new read: %q; want it refused as stale", text)
	}
}
