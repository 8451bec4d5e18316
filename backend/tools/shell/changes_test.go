//go:build unix

package shell

import (
	"sync"
	"testing"

	"foya/backend/approval"
	"foya/backend/event"
)

// changeLog collects what Options.Changed is told, and signals each one.
type changeLog struct {
	mu   sync.Mutex
	seen []Background
	what []string
	note chan struct{}
}

func newChangeLog() *changeLog { return &changeLog{note: make(chan struct{}, 1000)} }

func (l *changeLog) changed(change string, b Background) {
	l.mu.Lock()
	l.what = append(l.what, change)
	l.seen = append(l.seen, b)
	l.mu.Unlock()
	l.note <- struct{}{}
}

// waitFor waits until a change satisfying ok was told and returns it.
func (l *changeLog) waitFor(t *testing.T, what string, ok func(change string, b Background) bool) Background {
	t.Helper()
	for {
		l.mu.Lock()
		for i, b := range l.seen {
			if ok(l.what[i], b) {
				l.mu.Unlock()
				return b
			}
		}
		l.mu.Unlock()
		select {
		case <-l.note:
		case <-t.Context().Done():
			t.Fatalf("never told %s", what)
		}
	}
}

func (l *changeLog) changes() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.what...)
}

// spec: B1 — a background command tells the front ends when it starts, when
// it prints (coalesced) and when it ends or is killed, so that a panel
// follows it without asking on a timer.
func TestBackgroundChanges(t *testing.T) {
	log := newChangeLog()
	b := newBox(t, Options{Changed: log.changed})
	rc := b.rc("ses_1", &gate{mode: approval.FullAccess})
	res := b.bash(t, rc, map[string]any{"command": "echo first; exec sleep 1000",
		"run_in_background": true})
	if res.IsError {
		t.Fatalf("start: %s", res.Text)
	}
	log.waitFor(t, "started", func(c string, bg Background) bool {
		return c == event.BackgroundStarted && bg.ID == "bg1" && bg.SessionID == "ses_1" && bg.Running
	})
	log.waitFor(t, "the first line", func(c string, bg Background) bool {
		return c == event.BackgroundOutput && bg.OutputBytes == int64(len("first\n"))
	})
	// The command sleeps now: nothing more is told.
	if got := log.changes(); len(got) != 2 {
		t.Errorf("changes %v; want started, output", got)
	}
	if _, err := b.sh.Kill("ses_1", "bg1"); err != nil {
		t.Fatal(err)
	}
	end := log.waitFor(t, "ended", func(c string, bg Background) bool { return c == event.BackgroundEnded })
	if end.Running || !end.Killed {
		t.Errorf("ended %+v; want killed, not running", end)
	}
	got := log.changes()
	if got[0] != event.BackgroundStarted || got[len(got)-1] != event.BackgroundEnded {
		t.Errorf("changes %v; want started first, ended last", got)
	}

	// A command that prints in bursts is told at most once per OutputEvery
	// while it runs, and its end carries all it printed.
	log2 := newChangeLog()
	b2 := newBox(t, Options{Changed: log2.changed})
	rc2 := b2.rc("ses_2", &gate{mode: approval.FullAccess})
	res = b2.bash(t, rc2, map[string]any{"command": "for i in $(seq 1 2000); do echo line $i; done", "run_in_background": true})
	if res.IsError {
		t.Fatalf("start: %s", res.Text)
	}
	end = log2.waitFor(t, "ended", func(c string, bg Background) bool { return c == event.BackgroundEnded })
	if end.Running || end.Killed || end.ExitCode != 0 || end.OutputBytes < int64(2000*len("line 1\n")) {
		t.Errorf("ended %+v", end)
	}
	got = log2.changes()
	if got[0] != event.BackgroundStarted || got[len(got)-1] != event.BackgroundEnded {
		t.Errorf("changes %v; want started first, ended last", got)
	}
}
