package files

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// The Watchers of a process share one fsnotify watcher: on Linux each is an
// inotify instance, and a user may have only a few (128 by default,
// fs.inotify.max_user_instances, for all of that user's programs), while
// Foya watches the workspace of every session that ran since it started.
// One instance for all of them leaves the others to editors, file managers
// and the rest of the desktop.
var watchConns struct {
	mu  sync.Mutex
	cur *watchConn // nil when no Watcher is open
}

// watchConn is one fsnotify watcher and the Watchers it serves. It lives
// while a Watcher uses it: the last one to close closes it.
type watchConn struct {
	fsw *fsnotify.Watcher

	mu   sync.Mutex // subs; dispatch takes it, and never waits on fsnotify under it
	subs map[*Watcher]bool

	// rmu guards refs and the calls to fsw.Add and Remove, which may wait
	// for fsnotify's goroutine, and it for dispatch: so not under mu.
	rmu  sync.Mutex
	refs map[string]int // folder → how many Watchers watch it

	done chan struct{} // the dispatching goroutine ended
}

// joinWatchConn returns the shared connection with w among its Watchers,
// opening it when there is none.
func joinWatchConn(w *Watcher) (*watchConn, error) {
	watchConns.mu.Lock()
	defer watchConns.mu.Unlock()
	c := watchConns.cur
	if c == nil {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			return nil, err
		}
		c = &watchConn{fsw: fsw, subs: map[*Watcher]bool{}, refs: map[string]int{}, done: make(chan struct{})}
		go c.dispatch()
		watchConns.cur = c
	}
	c.mu.Lock()
	c.subs[w] = true
	c.mu.Unlock()
	return c, nil
}

// leave takes w off the connection, drops the folders it still watched,
// and closes the connection when w was its last Watcher; it then waits
// for the dispatching goroutine, so nothing is delivered to w afterwards.
func (c *watchConn) leave(w *Watcher, dirs []string) error {
	watchConns.mu.Lock()
	c.mu.Lock()
	delete(c.subs, w)
	last := len(c.subs) == 0
	c.mu.Unlock()
	if last && watchConns.cur == c {
		watchConns.cur = nil // a Watcher opened from now on opens a new one
	}
	watchConns.mu.Unlock()
	if last {
		err := c.fsw.Close()
		<-c.done
		return err
	}
	for _, d := range dirs {
		c.release(d)
	}
	return nil
}

// acquire watches dir for one more Watcher. fsnotify is asked every time:
// dir may be a new folder at a path watched before.
func (c *watchConn) acquire(dir string) error {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if err := c.fsw.Add(dir); err != nil {
		return err
	}
	c.refs[dir]++
	return nil
}

// release drops one Watcher's watch of dir, and the system's once no
// Watcher watches it.
func (c *watchConn) release(dir string) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	n, ok := c.refs[dir]
	switch {
	case !ok:
	case n > 1:
		c.refs[dir] = n - 1
	default:
		delete(c.refs, dir)
		// The folder may be gone, and its watch with it: nothing to undo.
		_ = c.fsw.Remove(dir)
	}
}

// dispatch hands each event, in the order the system gave them, to the
// Watchers watching its folder (their queues keep that order, which
// Barrier relies on), and an overflow to all of them.
func (c *watchConn) dispatch() {
	defer close(c.done)
	events, errs := c.fsw.Events, c.fsw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			dir := filepath.Dir(ev.Name)
			c.mu.Lock()
			for w := range c.subs {
				w.deliver(ev, dir)
			}
			c.mu.Unlock()
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				c.mu.Lock()
				for w := range c.subs {
					w.overflowed()
				}
				c.mu.Unlock()
			}
		}
	}
}
