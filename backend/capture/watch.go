package capture

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools/files"
)

// PollEvery is how often a session watcher that cannot watch the whole
// workspace checks the session's files instead.
const PollEvery = 2 * time.Second

// Watch watches a session's working directory until stop is called or ctx
// ends. When a file the session read or changed is changed by something
// other than Foya, its stale-read record is marked (so write and edit ask
// for a new read even where only its size and time were known) and a
// file.changed_outside event is stored and published. When the watcher
// cannot cover the whole workspace, a file.watch_degraded event says why
// and the session's files are checked every PollEvery instead.
func (c *Capture) Watch(ctx context.Context, sessionID, workdir string) (stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	check := func(path string) { c.checkOutside(ctx, sessionID, path) }
	w, err := c.d.Watch(workdir, files.WatchOptions{
		OnChange: func(path string) {
			if c.skipped(path) {
				return // the database's writes: neither a command's nor the user's
			}
			c.d.Workspace.Touch(sessionID, path) // the next shell command looks at it
			check(path)
		},
		OnDegraded: func(why string) {
			c.d.Workspace.Degrade(sessionID)
			ev := event.FileWatchDegraded(event.FileWatchDegradedData{Reason: why})
			ev.SessionID = sessionID
			// A notice no one can be told of when it cannot be stored: the
			// session's files are checked every PollEvery all the same.
			_ = c.recordEvents(ctx, ev)
		},
	})
	if err != nil {
		// No watcher at all (the system's inotify instances ran out, say):
		// the session's files are checked every PollEvery instead, and the
		// UI says why. The looks around shell commands walk the workspace.
		ev := event.FileWatchDegraded(event.FileWatchDegradedData{Reason: fmt.Sprintf(
			"cannot watch the workspace (%v): Foya checks the files this session read every %s instead", err, PollEvery)})
		ev.SessionID = sessionID
		_ = c.recordEvents(ctx, ev) // as OnDegraded's
		w = nil
	} else {
		c.d.Workspace.Attach(sessionID, w) // its events now narrow the looks before and after a shell command
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(PollEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				// stop was called or the caller's ctx ended: either way
				// the watcher goes, or its inotify watches would stay.
				if w != nil {
					c.d.Workspace.Detach(sessionID, w)
					w.Close()
				}
				return
			case <-t.C:
				if w != nil && w.Degraded() == "" {
					continue
				}
				reads, err := c.d.Reads.FileReads(ctx, sessionID)
				if err != nil {
					continue
				}
				for _, r := range reads {
					check(r.Path)
				}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}, nil
}

// Keep starts watching a session's workspace unless it is watched
// already. The watch lasts until Stop or Close.
func (c *Capture) Keep(sessionID, workdir string) {
	c.mu.Lock()
	_, ok := c.watches[sessionID]
	closed := c.watches == nil
	c.mu.Unlock()
	if ok || closed {
		return
	}
	// Started without the lock: starting adds a watch per folder and may
	// record an event, and Stop and Close must not wait for that.
	stop, err := c.Watch(context.Background(), sessionID, workdir)
	if err != nil {
		return
	}
	c.mu.Lock()
	_, ok = c.watches[sessionID]
	if !ok && c.watches != nil {
		c.watches[sessionID] = stop
		stop = nil
	}
	c.mu.Unlock()
	if stop != nil { // another run started one meanwhile, or the Capture closed
		stop()
	}
}

// Stop ends a session's watch, if any.
func (c *Capture) Stop(sessionID string) {
	c.mu.Lock()
	stop, ok := c.watches[sessionID]
	delete(c.watches, sessionID)
	c.mu.Unlock()
	if ok {
		stop()
	}
}

// Close ends every watch; none starts after it.
func (c *Capture) Close() {
	c.mu.Lock()
	watches := c.watches
	c.watches = nil
	c.mu.Unlock()
	for _, stop := range watches {
		stop()
	}
}

// skipped reports whether path is one of Deps.Skip or below one of them.
func (c *Capture) skipped(path string) bool {
	for _, p := range c.d.Skip {
		if path == p || strings.HasPrefix(path, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// checkOutside looks at the session's files at or below path and reports
// those that are no longer what the session saw. While a shell command of
// the session runs, it only notes path: the command's After checks it
// once the command's own changes are known.
func (c *Capture) checkOutside(ctx context.Context, sessionID, path string) {
	if c.commands.hold(sessionID, path) {
		return
	}
	reads, err := c.d.Reads.FileReads(ctx, sessionID)
	if err != nil {
		return
	}
	for _, r := range reads {
		if r.Path != path && !strings.HasPrefix(r.Path, path+string(filepath.Separator)) {
			continue
		}
		// A record marked as changed is compared with what a revert left,
		// if a revert marked it; else it was reported already.
		seen, reverted := r, false
		if r.Outside {
			if seen, reverted = c.reverted.of(r); !reverted {
				continue
			}
		}
		changed, exists := files.Changed(seen)
		if !changed {
			continue
		}
		if reverted {
			if !c.reverted.take(r) {
				continue
			}
		} else if first, err := c.d.Reads.MarkFileReadOutside(ctx, sessionID, r.Path); err != nil || !first {
			continue
		}
		ev := event.FileChangedOutside(event.FileChangedOutsideData{Path: r.Path, Exists: exists})
		ev.SessionID = sessionID
		// The record stays marked if the notice cannot be stored, so the
		// model still reads the file again; only the notice is lost.
		if err := c.recordEvents(ctx, ev); err != nil {
			return
		}
	}
}

// recheck runs checkOutside on the paths a watcher saw change while shell
// commands ran (held); on all the session's records when there were more
// than runningCommands keeps.
func (c *Capture) recheck(ctx context.Context, sessionID string, h held) {
	paths := h.paths
	if h.all {
		reads, err := c.d.Reads.FileReads(ctx, sessionID)
		if err != nil {
			return
		}
		paths = paths[:0]
		for _, r := range reads {
			paths = append(paths, r.Path)
		}
	}
	for _, p := range paths {
		c.checkOutside(ctx, sessionID, p)
	}
}

// settleDelay is how long after a run ends Settle waits: a background
// command that ended just before may still be capturing its changes
// (After waits up to two seconds for the watcher's barrier).
const settleDelay = 5 * time.Second

// Settle drops, settleDelay after a run of the session ended, the count
// of shell commands whose Before had no After (a background command
// refused after its Before), unless a run of the session is going then,
// and checks what the watcher held meanwhile. The kernel calls it when a
// run ends.
func (c *Capture) Settle(sessionID string) {
	time.AfterFunc(settleDelay, func() {
		c.mu.Lock()
		closed := c.watches == nil
		c.mu.Unlock()
		if closed || c.d.Running != nil && c.d.Running(sessionID) {
			return
		}
		c.recheck(context.Background(), sessionID, c.commands.settle(sessionID, c.runningBackground(sessionID)))
	})
}

// recordEvents stores events and publishes them, through the engine's
// ordering point, so events of a session with a run going stay in seq
// order for clients.
func (c *Capture) recordEvents(ctx context.Context, evs ...llm.Event) error {
	for _, ev := range evs {
		if err := c.d.Timeline.Record(ctx, ev.SessionID, ev); err != nil {
			return fmt.Errorf("record %s: %w", ev.Type, err)
		}
	}
	return nil
}
