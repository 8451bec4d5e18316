package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"foya/backend/fspath"
)

// WatchOptions configure a Watcher.
type WatchOptions struct {
	// MaxWatches bounds how many folders are watched (default 4096). When
	// it is reached, or the OS refuses more watches, the watcher is
	// degraded: Degraded says why, OnDegraded is told once, and changes
	// in the folders not watched go unseen (the stale-read guard still
	// compares digests before every write).
	MaxWatches int
	// OnChange is called with the absolute path of each file or folder
	// that was created, written, removed, renamed or had its mode changed,
	// once the path has been quiet for Debounce. It runs on the watcher's
	// goroutine, one call at a time.
	OnChange func(path string)
	// OnDegraded is called once, on the watcher's goroutine or in Watch,
	// when the watcher stops covering the whole tree.
	OnDegraded func(reason string)
	// Debounce defaults to 100 ms.
	Debounce time.Duration
	// BarrierDir is where Barrier makes its private folder (outside the
	// workspace); empty means the system's temporary folder.
	BarrierDir string
}

// Watcher watches a workspace recursively with fsnotify, skipping .git
// folders and folders .gitignore ignores. The Watchers of a process share
// one fsnotify watcher (see watchConn). Close stops it and waits for its
// goroutine.
type Watcher struct {
	root string
	opts WatchOptions
	conn *watchConn

	mu       sync.Mutex
	watched  map[string]bool
	degraded string
	waiting  map[string]chan struct{} // Barrier's markers, by path
	queue    []fsnotify.Event         // delivered by conn, not yet handled
	dropped  bool                     // events were lost since the loop last looked

	wake       chan struct{} // the queue has something
	barrierDir string        // watched too; "" when it could not be made
	seq        atomic.Uint64

	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup
}

// maxQueued bounds the events a Watcher holds for its goroutine (a slow
// OnChange must not hold up the other Watchers, nor grow without bound):
// past it, events are dropped and the Watcher is degraded, as when the
// system's own queue overflows. Barrier's markers are always kept.
const maxQueued = 1 << 16

// Watch starts watching root and every folder below it.
func Watch(root string, opts WatchOptions) (*Watcher, error) {
	if opts.MaxWatches <= 0 {
		opts.MaxWatches = 4096
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	real, err := workdir(root)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	w := &Watcher{root: real, opts: opts, watched: map[string]bool{}, waiting: map[string]chan struct{}{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	if w.conn, err = joinWatchConn(w); err != nil {
		return nil, fmt.Errorf("watch %s: %w", real, err)
	}
	w.addTree(real, nil)
	if d, err := os.MkdirTemp(opts.BarrierDir, "foya-watch-"); err == nil {
		if w.conn.acquire(d) == nil {
			w.mu.Lock()
			w.barrierDir = d
			w.mu.Unlock()
		} else {
			os.Remove(d)
		}
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Root returns the watched folder, resolved.
func (w *Watcher) Root() string { return w.root }

// Watched returns how many folders are watched.
func (w *Watcher) Watched() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watched)
}

// Degraded returns why the watcher does not cover the whole tree, or "".
func (w *Watcher) Degraded() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.degraded
}

// Close stops the watcher, waits for its goroutine and gives up its
// watches.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		close(w.done)
		w.wg.Wait()
		w.mu.Lock()
		dirs := make([]string, 0, len(w.watched)+1)
		for d := range w.watched {
			dirs = append(dirs, d)
		}
		if w.barrierDir != "" {
			dirs = append(dirs, w.barrierDir)
		}
		w.mu.Unlock()
		w.closeErr = w.conn.leave(w, dirs)
		if w.barrierDir != "" {
			os.RemoveAll(w.barrierDir)
		}
	})
	return w.closeErr
}

// deliver queues ev for the watcher's goroutine when it happened in a
// folder the watcher watches (dir is the folder ev.Name is in). It runs
// on conn's goroutine and never blocks.
func (w *Watcher) deliver(ev fsnotify.Event, dir string) {
	w.mu.Lock()
	marker := w.barrierDir != "" && dir == w.barrierDir
	mine := marker || w.watched[dir] || w.watched[ev.Name]
	if mine {
		if len(w.queue) < maxQueued || marker {
			w.queue = append(w.queue, ev)
		} else {
			w.dropped = true
		}
	}
	w.mu.Unlock()
	if mine {
		w.poke()
	}
}

// overflowed notes that the system dropped events.
func (w *Watcher) overflowed() {
	w.mu.Lock()
	w.dropped = true
	w.mu.Unlock()
	w.poke()
}

func (w *Watcher) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// ErrNoBarrier is returned by Barrier when the watcher cannot tell that
// it has seen every change made before the call.
var ErrNoBarrier = errors.New("the watcher cannot confirm it has seen every change")

// Barrier returns once every change made in the workspace before the call
// has been passed to OnChange (without waiting for Debounce). It writes a
// marker file in a private folder watched by the same watcher and waits
// for its event: the system hands a watcher's events over in the order
// they happened (inotify and kqueue keep one queue per watcher), so the
// changes made before the marker have been seen by then. It returns
// ErrNoBarrier when it cannot confirm that (no private folder, the
// watcher closed) and ctx's error when ctx ends first.
func (w *Watcher) Barrier(ctx context.Context) error {
	if w.barrierDir == "" {
		return ErrNoBarrier
	}
	name := filepath.Join(w.barrierDir, strconv.FormatUint(w.seq.Add(1), 10))
	ch := make(chan struct{})
	w.mu.Lock()
	w.waiting[name] = ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.waiting, name)
		w.mu.Unlock()
		os.Remove(name)
	}()
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		return fmt.Errorf("%w: %w", ErrNoBarrier, err)
	}
	select {
	case <-ch:
		return nil
	case <-w.done:
		return ErrNoBarrier
	case <-ctx.Done():
		return ctx.Err()
	}
}

// addTree watches dir and the folders below it that are not ignored. Files
// found are passed to found (for folders that appeared with content).
func (w *Watcher) addTree(dir string, found func(path string)) {
	if !w.add(dir) {
		return
	}
	top, err := openDirHandle(plainLoc(dir))
	if err != nil {
		return
	}
	rules, comps := rulesFor(nil, dir, w.root)
	job := dirJob{top: top, abs: dir, comps: comps, rules: rules}
	var stack []dirJob
	stack = append(stack, job)
	for len(stack) > 0 {
		job := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		subs := readDir(job, &walkStats{}, func(e entry) bool {
			if !e.typ.IsDir() {
				if found != nil && !strings.HasPrefix(filepath.Base(e.abs), tempPrefix) {
					found(e.abs)
				}
				return false
			}
			return w.add(e.abs)
		})
		stack = append(stack, subs...)
	}
}

// add watches one folder; it returns false when the folder is not watched
// (the limit is reached, or the OS refused).
func (w *Watcher) add(dir string) bool {
	w.mu.Lock()
	already, full := w.watched[dir], len(w.watched) >= w.opts.MaxWatches
	if !already && !full {
		w.watched[dir] = true // before the system watches it: conn delivers only the watched folders' events
	}
	w.mu.Unlock()
	switch {
	case already:
		return true
	case full:
		w.degrade(fmt.Sprintf("watching only %d folders (the limit): changes in the others are not seen live", w.opts.MaxWatches))
		return false
	}
	if err := w.conn.acquire(dir); err != nil {
		w.mu.Lock()
		delete(w.watched, dir)
		w.mu.Unlock()
		switch {
		case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE):
			w.degrade(fmt.Sprintf("the system refused to watch more than %d folders (%v; on Linux raise fs.inotify.max_user_watches): changes in the others are not seen live", w.Watched(), err))
		case errors.Is(err, fs.ErrNotExist):
		default:
			w.degrade(fmt.Sprintf("could not watch %s (%v): changes in it are not seen live", dir, err))
		}
		return false
	}
	return true
}

// degrade notes, once, why the tree is not fully covered, and tells
// OnDegraded.
func (w *Watcher) degrade(reason string) {
	w.mu.Lock()
	first := w.degraded == ""
	if first {
		w.degraded = reason
	}
	w.mu.Unlock()
	if first && w.opts.OnDegraded != nil {
		w.opts.OnDegraded(reason)
	}
}

// skip reports whether events for path are of no interest: Foya's own
// temporary files and anything in a .git folder.
func (w *Watcher) skip(path string) bool {
	if strings.HasPrefix(filepath.Base(path), tempPrefix) {
		return true
	}
	rel, ok := fspath.Rel(w.root, path)
	if !ok {
		return true
	}
	return slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), ".git")
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	pending := map[string]time.Time{}
	tick := time.NewTicker(w.opts.Debounce / 2)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-w.wake:
			w.mu.Lock()
			batch, dropped := w.queue, w.dropped
			w.queue, w.dropped = nil, false
			w.mu.Unlock()
			if dropped {
				w.degrade("the system dropped change events (too many at once): some changes were not seen live")
			}
			for _, ev := range batch {
				w.handle(ev, pending)
			}
		case now := <-tick.C:
			w.report(pending, now)
		}
	}
}

// handle takes in one event on the watcher's goroutine: a Barrier's
// marker, or a change to report once quiet.
func (w *Watcher) handle(ev fsnotify.Event, pending map[string]time.Time) {
	if w.barrierDir != "" && filepath.Dir(ev.Name) == w.barrierDir {
		w.mu.Lock()
		ch := w.waiting[ev.Name]
		delete(w.waiting, ev.Name)
		w.mu.Unlock()
		if ch != nil {
			// Everything before the marker is in: report it now.
			w.report(pending, time.Time{})
			close(ch)
		}
		return
	}
	if w.skip(ev.Name) {
		return
	}
	pending[ev.Name] = time.Now()
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// A new folder: watch it, and report what is already in it.
			w.addTree(ev.Name, func(p string) { pending[p] = time.Now() })
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		var gone []string
		w.mu.Lock()
		for d := range w.watched {
			if d == ev.Name || strings.HasPrefix(d, ev.Name+string(filepath.Separator)) {
				delete(w.watched, d)
				gone = append(gone, d)
			}
		}
		w.mu.Unlock()
		for _, d := range gone {
			w.conn.release(d)
		}
	}
}

// report passes to OnChange the pending paths quiet for Debounce at now,
// or all of them when now is zero, and forgets them.
func (w *Watcher) report(pending map[string]time.Time, now time.Time) {
	var ready []string
	for p, t := range pending {
		if now.IsZero() || now.Sub(t) >= w.opts.Debounce {
			ready = append(ready, p)
			delete(pending, p)
		}
	}
	slices.Sort(ready)
	for _, p := range ready {
		if w.opts.OnChange != nil {
			w.opts.OnChange(p)
		}
	}
}
