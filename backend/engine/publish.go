package engine

import (
	"context"
	"sync"

	"foya/backend/llm"
)

// publisher is the one ordering point of events: every commit that carries
// a session's events (a run's steps, a mode switch, a revert, an outside
// change, an approval, a recovered run) is stored and then handed to Emit
// while the session's lock is held, so the next commit of that session is
// stored only after the last one was published. The store gives events
// their seq inside the commit's transaction, so subscribers receive each
// session's events in seq order, with no gap and no repeat. Sessions do not
// wait for each other.
type publisher struct {
	store Store
	emit  func(llm.Event)

	mu    sync.Mutex
	locks map[string]*sessionLock // by session ID, while someone holds or waits
}

type sessionLock struct {
	mu    sync.Mutex
	users int // holders and waiters; the entry goes when it drops to 0
}

// commit stores c, whose events all belong to sessionID, and publishes the
// stored events before any later commit of the session is stored.
func (p *publisher) commit(ctx context.Context, sessionID string, c llm.Commit) ([]llm.Event, error) {
	p.mu.Lock()
	l := p.locks[sessionID]
	if l == nil {
		l = &sessionLock{}
		p.locks[sessionID] = l
	}
	l.users++
	p.mu.Unlock()
	l.mu.Lock()
	defer func() {
		l.mu.Unlock()
		p.mu.Lock()
		if l.users--; l.users == 0 {
			delete(p.locks, sessionID)
		}
		p.mu.Unlock()
	}()
	stored, err := p.store.Apply(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, ev := range stored {
		p.emit(ev)
	}
	return stored, nil
}
