package capture

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/testwait"
	"foya/backend/tools/files"
	"foya/backend/workspace"
)

// spec: W4 — a session whose workspace cannot be watched at all (the
// system's inotify instances ran out) is still watched, by polling, and
// the UI is told why instead of outside changes going unreported.
func TestWatchWithoutAWatcherPollsAndSaysWhy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "read.txt")
	write(t, p, "one\n")
	st := newStore()
	st.read(t, "s", p)
	ws := workspace.New(workspace.Options{Dir: t.TempDir()})
	defer ws.Close()
	c := New(Deps{Workspace: ws, Records: st, Reads: st, Timeline: st,
		Watch: func(string, files.WatchOptions) (*files.Watcher, error) {
			return nil, errors.New("inotify: too many open files")
		}})
	defer c.Close()
	stop, err := c.Watch(ctx, "s", dir)
	if err != nil {
		t.Fatalf("Watch without a watcher: %v; want polling instead", err)
	}
	defer stop()
	ev := testwait.Receive(t, st.recorded, "the file.watch_degraded event")
	var d event.FileWatchDegradedData
	if ev.Type != event.TypeFileWatchDegraded || json.Unmarshal(ev.Data, &d) != nil || ev.SessionID != "s" ||
		!strings.Contains(d.Reason, "too many open files") || !strings.Contains(d.Reason, "every") {
		t.Fatalf("event %s %q; want file.watch_degraded with the watcher's error and what Foya does instead", ev.Type, ev.Data)
	}

	write(t, p, "an editor's change\n")
	ev = testwait.Receive(t, st.recorded, "the polled file.changed_outside event")
	var o event.FileChangedOutsideData
	if ev.Type != event.TypeFileChangedOutside || json.Unmarshal(ev.Data, &o) != nil || o.Path != p || !o.Exists {
		t.Fatalf("event %s %q; want file.changed_outside of %s", ev.Type, ev.Data, p)
	}
}

// A session's watch is kept once (Keep), ends with Stop, and none starts
// after Close.
func TestKeepWatchesOnceUntilStopOrClose(t *testing.T) {
	dir := t.TempDir()
	st := newStore()
	ws := workspace.New(workspace.Options{Dir: t.TempDir()})
	defer ws.Close()
	started := 0
	var watchErr error // the last watcher's, to tell a machine out of inotify instances from a bug
	c := New(Deps{Workspace: ws, Records: st, Reads: st, Timeline: st,
		Watch: func(root string, o files.WatchOptions) (*files.Watcher, error) {
			started++
			w, err := files.Watch(root, o)
			watchErr = err
			return w, err
		}})
	ws.Warm("s", dir) // as a run does before it keeps watching
	c.Keep("s", dir)
	c.Keep("s", dir)
	if started != 1 {
		t.Fatalf("two Keeps started %d watchers; want 1", started)
	}
	if err := ws.WaitWatcher(context.Background(), "s"); err != nil {
		t.Fatalf("the kept watch is not attached to the index: %v (the watcher: %v)", err, watchErr)
	}
	c.Stop("s")
	if err := ws.WaitWatcher(context.Background(), "s"); !errors.Is(err, workspace.ErrNoWatcher) {
		t.Fatalf("after Stop: %v; want %v", err, workspace.ErrNoWatcher)
	}
	c.Keep("s", dir)
	c.Close()
	c.Keep("s", dir)
	if started != 2 {
		t.Fatalf("%d watchers started; want 2 (none after Close)", started)
	}
	if err := ws.WaitWatcher(context.Background(), "s"); !errors.Is(err, workspace.ErrNoWatcher) {
		t.Fatalf("after Close: %v; want %v", err, workspace.ErrNoWatcher)
	}
}

// A watch whose context ends without its stop being called detaches and
// closes its watcher all the same: a caller that only cancels must not
// leave the watcher's system watches behind.
func TestWatchEndsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	st := newStore()
	ws := workspace.New(workspace.Options{Dir: t.TempDir()})
	defer ws.Close()
	var w *files.Watcher
	c := New(Deps{Workspace: ws, Records: st, Reads: st, Timeline: st,
		Watch: func(root string, o files.WatchOptions) (*files.Watcher, error) {
			var err error
			w, err = files.Watch(root, o)
			if err != nil {
				t.Errorf("watch %s: %v", root, err)
			}
			return w, err
		}})
	defer c.Close()
	ws.Warm("s", dir)
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := c.Watch(ctx, "s", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := ws.WaitWatcher(context.Background(), "s"); err != nil {
		t.Fatalf("the watch is not attached: %v", err)
	}
	cancel()
	testwait.Until(t, "the watch to detach once its context ended", func() bool {
		return errors.Is(ws.WaitWatcher(context.Background(), "s"), workspace.ErrNoWatcher)
	})
	// Closed: its Barrier can no longer confirm anything.
	testwait.Until(t, "the watcher to close once its context ended", func() bool {
		return errors.Is(w.Barrier(context.Background()), files.ErrNoBarrier)
	})
}
