package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/testwait"
	"foya/backend/tools/files"
)

// spec: W4 — a session whose workspace cannot be watched at all (the
// system's inotify instances ran out) is still watched, by polling, and
// the UI is told why instead of outside changes going unreported.
func TestWatchWithoutAWatcherPollsAndSaysWhy(t *testing.T) {
	watchWorkspace = func(string, files.WatchOptions) (*files.Watcher, error) {
		return nil, errors.New("inotify: too many open files")
	}
	t.Cleanup(func() { watchWorkspace = files.Watch })
	ctx := context.Background()
	k, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "foya.db"), TextFlush: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	degraded := make(chan llm.Event, 1)
	defer k.Subscribe(func(ev llm.Event) {
		if ev.Type == event.TypeFileWatchDegraded {
			select {
			case degraded <- ev:
			default:
			}
		}
	})()
	sess, err := k.CreateSession(ctx, NewSession{Workdir: t.TempDir(), ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := k.WatchSession(ctx, sess.ID)
	if err != nil {
		t.Fatalf("WatchSession without a watcher: %v; want polling instead", err)
	}
	defer stop()
	ev := testwait.Receive(t, degraded, "the file.watch_degraded event")
	var d event.FileWatchDegradedData
	if err := json.Unmarshal(ev.Data, &d); err != nil || !strings.Contains(d.Reason, "too many open files") || !strings.Contains(d.Reason, "every") {
		t.Fatalf("reason %q (%v); want the watcher's error and what Foya does instead", d.Reason, err)
	}
}
