package engine

import (
	"context"
	"sync"
)

// changeLocks hold, per session, the lock that keeps apart what compares
// the workspace with the session's File Changes and what adds to them: a
// look at the workspace index together with the
// commit of the records it found (a shell command's capture, a background
// command's at its end), and a change Foya's own tools make on disk
// together with the commit of its record (write, edit, delete, a revert).
// Without it a look could take another call's change, on disk but not yet
// recorded, for its own, and two commits could be stored in the opposite
// order of the looks that found them. The lock is a channel, so that
// waiting for it ends with ctx.
type changeLocks struct {
	waiting func(sessionID string) // Config.LockWait

	mu    sync.Mutex
	locks map[string]*changeLock // by session ID, while someone holds or waits
}

type changeLock struct {
	ch    chan struct{} // holds a token while the lock is held
	users int           // holders and waiters; the entry goes when it drops to 0
}

// lock waits for the session's lock and returns its unlock, which may be
// called more than once.
func (l *changeLocks) lock(ctx context.Context, sessionID string) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*changeLock{}
	}
	cl := l.locks[sessionID]
	if cl == nil {
		cl = &changeLock{ch: make(chan struct{}, 1)}
		l.locks[sessionID] = cl
	}
	cl.users++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		if cl.users--; cl.users == 0 {
			delete(l.locks, sessionID)
		}
		l.mu.Unlock()
	}
	select {
	case cl.ch <- struct{}{}:
	default:
		if l.waiting != nil {
			l.waiting(sessionID)
		}
		select {
		case cl.ch <- struct{}{}:
		case <-ctx.Done():
			done()
			return nil, ctx.Err()
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-cl.ch
			done()
		})
	}, nil
}

// LockChanges takes the session's change lock (see changeLocks) for a look
// at its workspace or a change to it made outside a run's calls (a
// background command's capture, a revert): hold it from before the look
// or the change until the File Changes are committed (Commit). Calls of a
// run take it through their RunContext (tools.RunContext.LockChanges). It
// waits while another holds it, until ctx ends.
func (e *Engine) LockChanges(ctx context.Context, sessionID string) (unlock func(), err error) {
	return e.changes.lock(ctx, sessionID)
}

// callLock is one call's hold on its session's change lock: the tool takes
// it (RunContext.LockChanges), may release it, and what it still holds
// when it returns is released once the call's result, with its File
// Changes, is stored.
type callLock struct {
	locks              *changeLocks
	sessionID, workdir string
	// changing is Config.Changing: it runs, under the lock, before the
	// tool changes paths.
	changing func(ctx context.Context, sessionID, workdir string, paths []string) error

	mu     sync.Mutex
	unlock func() // nil while not held
}

func (c *callLock) lock(ctx context.Context, paths []string) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unlock == nil {
		if c.unlock, err = c.locks.lock(ctx, c.sessionID); err != nil {
			return nil, err
		}
	}
	if len(paths) > 0 && c.changing != nil {
		// The lock stays held: the engine releases it once the call's
		// end is stored.
		if err := c.changing(ctx, c.sessionID, c.workdir, paths); err != nil {
			return nil, err
		}
	}
	return c.release, nil
}

func (c *callLock) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unlock != nil {
		c.unlock()
		c.unlock = nil
	}
}

func (c *callLock) held() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unlock != nil
}
