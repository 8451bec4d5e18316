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
//
// Other processes (a foya mode in a terminal, a foya exec --session) store
// events in the same sessions. The publisher remembers the last seq it
// handed over of each session (from the store at start, see Known): the
// events before a commit's that it did not hand over are another
// process's, and go first (catchUp); CatchUp hands over those stored since
// without a commit of this process.
type publisher struct {
	store Store
	emit  func(llm.Event)

	mu    sync.Mutex
	locks map[string]*sessionLock // by session ID, while someone holds or waits
	last  map[string]int64        // by session ID: the last seq handed over
}

// eventReader is what catchUp reads other processes' events with; a store
// without it publishes only this process's events.
type eventReader interface {
	Events(ctx context.Context, sessionID string, after int64, limit int) ([]llm.Event, error)
}

type sessionLock struct {
	mu    sync.Mutex
	users int // holders and waiters; the entry goes when it drops to 0
}

// commit stores c, whose events all belong to sessionID, and publishes the
// stored events before any later commit of the session is stored.
func (p *publisher) commit(ctx context.Context, sessionID string, c llm.Commit) ([]llm.Event, error) {
	unlock := p.lock(sessionID)
	defer unlock()
	stored, err := p.store.Apply(ctx, c)
	if err != nil {
		return nil, err
	}
	if len(stored) > 0 && stored[0].Seq > 1 {
		p.catchUp(ctx, sessionID, stored[0].Seq-1)
	}
	for _, ev := range stored {
		p.emit(ev)
	}
	p.handed(sessionID, stored)
	return stored, nil
}

// CatchUp publishes the session's events stored by other processes up to
// seq upTo (all: -1) that this process has not published.
func (p *publisher) CatchUp(ctx context.Context, sessionID string, upTo int64) {
	unlock := p.lock(sessionID)
	defer unlock()
	p.catchUp(ctx, sessionID, upTo)
}

// catchUp publishes the stored events of the session after the last one
// handed over, up to seq upTo (all: -1). The session's lock is held. An
// event that cannot be read now is left for the next try: the front ends
// read the store when they see a gap.
func (p *publisher) catchUp(ctx context.Context, sessionID string, upTo int64) {
	r, ok := p.store.(eventReader)
	if !ok {
		return
	}
	p.mu.Lock()
	last := p.last[sessionID]
	p.mu.Unlock()
	if upTo >= 0 && upTo <= last {
		return
	}
	evs, err := r.Events(ctx, sessionID, last, maxCatchUp)
	if err != nil {
		return
	}
	var out []llm.Event
	for _, ev := range evs {
		if upTo >= 0 && ev.Seq > upTo {
			break
		}
		p.emit(ev)
		out = append(out, ev)
	}
	p.handed(sessionID, out)
}

// maxCatchUp bounds the events one catch-up reads: a front end that misses
// more reads them from the store when it sees the gap.
const maxCatchUp = 10_000

// handed notes the last seq of evs as handed over.
func (p *publisher) handed(sessionID string, evs []llm.Event) {
	if len(evs) == 0 {
		return
	}
	p.mu.Lock()
	if seq := evs[len(evs)-1].Seq; seq > p.last[sessionID] {
		p.last[sessionID] = seq
	}
	p.mu.Unlock()
}

// Known sets the last seq handed over of each session, as the store has
// them when the process starts: what was stored before is not published.
func (p *publisher) Known(last map[string]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, seq := range last {
		p.last[id] = max(p.last[id], seq)
	}
}

// Published returns the last seq handed over of a session.
func (p *publisher) Published(sessionID string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last[sessionID]
}

// lock takes the session's lock and returns its release.
func (p *publisher) lock(sessionID string) func() {
	p.mu.Lock()
	l := p.locks[sessionID]
	if l == nil {
		l = &sessionLock{}
		p.locks[sessionID] = l
	}
	l.users++
	p.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		p.mu.Lock()
		if l.users--; l.users == 0 {
			delete(p.locks, sessionID)
		}
		p.mu.Unlock()
	}
}
