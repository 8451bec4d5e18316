package engine

import (
	"context"
	"strings"
	"sync"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
)

// recorder stores and publishes a run's events in order. Text and argument
// deltas are coalesced for a short while; any other event first flushes what
// is pending, so clients see events in the order they happened. Terminal
// events are never coalesced.
type recorder struct {
	pub   *publisher
	flush time.Duration
	sess  string
	run   string
	// parentCall is set for a sub-agent's run: the task call that started
	// it. Its events carry it and its messages are its own history.
	parentCall string

	mu      sync.Mutex
	pending []pendingDelta
	timer   *time.Timer
	held    *llm.Commit // stored with the next commit (see hold)
	err     error       // the first storage error; the run fails with it
}

type pendingDelta struct {
	typ   string // text.delta, reasoning.delta, tool.update
	step  int
	id    string // call ID for tool.update
	text  strings.Builder
	total int // tool.update: bytes of the call's arguments so far
}

// commit stores c with the given events (after flushing pending deltas) and
// publishes them. Storage uses a context that ignores cancellation: a
// cancelled run must still record how it ended.
func (r *recorder) commit(ctx context.Context, c llm.Commit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commitLocked(ctx, c)
}

func (r *recorder) commitLocked(ctx context.Context, c llm.Commit) error {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if len(r.pending) > 0 {
		evs := make([]llm.Event, 0, len(r.pending)+len(c.Events))
		for i := range r.pending {
			evs = append(evs, r.deltaEvent(&r.pending[i]))
		}
		r.pending = r.pending[:0]
		c.Events = append(evs, c.Events...)
	}
	if r.held != nil {
		c = merge(*r.held, c)
		r.held = nil
	}
	for i := range c.Events {
		c.Events[i].SessionID, c.Events[i].RunID = r.sess, r.run
		c.Events[i].ParentCallID = r.parentCall
	}
	if r.parentCall != "" {
		for i := range c.Messages {
			c.Messages[i].Child = true
		}
	}
	if _, err := r.pub.commit(context.WithoutCancel(ctx), r.sess, c); err != nil {
		if r.err == nil {
			r.err = err
		}
		return err
	}
	return nil
}

// hold keeps c to be stored and published with the next commit, in the
// same transaction and before it: for a commit after which nothing the run
// does can be seen before the next one (the end of a batch's last call, then
// the step's results, then the next step's start), so that a step costs
// fewer transactions. The run's last commit (finish) always follows, so
// nothing held is left behind; a crash before it loses what a crash an
// instant earlier would have. A commit that carries large data (blobs,
// artifacts: a big write's arguments) is stored at once instead, so that
// its bytes are not kept alive while the run goes on.
func (r *recorder) hold(ctx context.Context, c llm.Commit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held != nil {
		c = merge(*r.held, c)
		r.held = nil
	}
	size := 0
	for _, b := range c.Blobs {
		size += len(b)
	}
	for _, a := range c.Artifacts {
		size += len(a.Data)
	}
	if size > maxHeld {
		return r.commitLocked(ctx, c)
	}
	r.held = &c
	return nil
}

// maxHeld is the most blob and artifact bytes a held commit keeps.
const maxHeld = 1 << 20

// storeHeld stores what is held, if anything: before the run reads back from
// the store what may be in it (an image stored with the last results).
func (r *recorder) storeHeld(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held == nil {
		return nil
	}
	return r.commitLocked(ctx, llm.Commit{})
}

func (r *recorder) deltaEvent(p *pendingDelta) llm.Event {
	switch p.typ {
	case event.TypeToolUpdate:
		return argsEvent(p.step, p.id, p.text.String(), p.total)
	case event.TypeReasoningDelta:
		return event.ReasoningDelta(event.ReasoningDeltaData{Step: p.step, Text: p.text.String()})
	}
	return event.TextDelta(event.TextDeltaData{Step: p.step, Text: p.text.String()})
}

// delta queues a piece of text for coalescing.
func (r *recorder) delta(ctx context.Context, typ string, step int, id, text string) {
	if text == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queue(ctx, typ, step, id, text)
}

// args queues a tool.update of a call whose arguments stream: a piece of
// their preview (may be empty) and their size so far. Updates of one call
// coalesce into one event with the latest size.
func (r *recorder) args(ctx context.Context, step int, id, preview string, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queue(ctx, event.TypeToolUpdate, step, id, preview).total = total
}

func (r *recorder) queue(ctx context.Context, typ string, step int, id, text string) *pendingDelta {
	if n := len(r.pending); n == 0 || r.pending[n-1].typ != typ || r.pending[n-1].id != id || r.pending[n-1].step != step {
		r.pending = append(r.pending, pendingDelta{typ: typ, step: step, id: id})
	}
	p := &r.pending[len(r.pending)-1]
	p.text.WriteString(text)
	if r.timer == nil {
		r.timer = time.AfterFunc(r.flush, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.pending) > 0 {
				r.commitLocked(ctx, llm.Commit{})
			}
		})
	}
	return p
}

// close flushes pending deltas and stops the timer.
func (r *recorder) close(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) > 0 || r.timer != nil {
		r.commitLocked(ctx, llm.Commit{})
	}
}

// failed returns the first storage error, if any.
func (r *recorder) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
