package engine

import (
	"context"
	"errors"
	"slices"

	"foya/backend/event"
	"foya/backend/llm"
)

// ErrNoRun is returned by Steer when the session has no run that can take
// a message: none is going, or the one going has ended its last step. The
// caller sends the message as the next prompt instead.
var ErrNoRun = errors.New("the session has no run going")

// steerMsg is a message waiting for the run's next step boundary, and the
// channel its sender waits on: nil once stored in the run's history,
// ErrNoRun if the run ended first, the storage error otherwise.
type steerMsg struct {
	id, text string
	done     []chan error // its sender's, and those of the same message sent again meanwhile
}

// answer tells every sender of m what became of it.
func (m steerMsg) answer(err error) {
	for _, c := range m.done {
		c <- err
	}
}

// inbox holds a run's steering messages. Its mutex, not the run's
// goroutine, guards it: Steer adds from any goroutine. Once closed, the
// run takes no message: the decision to end a run and the refusal of a
// message that came too late are made under the same lock, so a message
// is either in the run's history or returned to its sender, never both,
// never neither.
type inbox struct {
	pending []steerMsg
	stored  map[string]bool // IDs of the messages stored in the run's history
	closed  bool
}

// Steer hands text to the session's running run, to be stored as a user
// message of its history before the run's next model request (at the next
// step boundary; a run whose model just answered takes another step for
// it). It returns once the message is stored, with nil; or ErrNoRun if
// the session has no run going or the run ended before a step took it
// (nothing is stored then); or ctx's error (the message may still be
// stored: the run.steer event with id says so). Sub-agents' runs take no
// message: the session's own run does.
func (e *Engine) Steer(ctx context.Context, sessionID, id, text string) error {
	e.mu.Lock()
	r := e.active[sessionID]
	e.mu.Unlock()
	if r == nil {
		return ErrNoRun
	}
	done := make(chan error, 1)
	r.mu.Lock()
	switch i := slices.IndexFunc(r.inbox.pending, func(m steerMsg) bool { return m.id == id }); {
	case r.inbox.stored[id]:
		// Sent again after it was stored: stored once, delivered.
		r.mu.Unlock()
		return nil
	case r.inbox.closed:
		r.mu.Unlock()
		return ErrNoRun
	case i >= 0:
		r.inbox.pending[i].done = append(r.inbox.pending[i].done, done)
	default:
		r.inbox.pending = append(r.inbox.pending, steerMsg{id: id, text: text, done: []chan error{done}})
	}
	r.mu.Unlock()
	if e.cfg.SteerWait != nil {
		e.cfg.SteerWait(sessionID, id)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// takeSteers stores the messages sent to the run since its last step as
// user messages, each with its run.steer event in one commit, in the
// order they came, and adds them to the history the next request is
// built from. step is the step whose request will hold them.
func (r *runner) takeSteers(ctx context.Context, step int) error {
	r.mu.Lock()
	msgs := r.inbox.pending
	r.inbox.pending = nil
	r.mu.Unlock()
	for i, m := range msgs {
		user := llm.Message{Role: llm.RoleUser, Content: m.text}
		err := r.rec.commit(ctx, llm.Commit{
			Messages: []llm.StoredMessage{{SessionID: r.sess.ID, RunID: r.run.ID, Message: user}},
			Events:   []llm.Event{event.RunSteer(event.RunSteerData{ID: m.id, Step: step, Text: m.text})},
		})
		if err != nil {
			// Not stored: this one and those after it go back to their
			// senders, who send them as the next prompt.
			for _, rest := range msgs[i:] {
				rest.answer(ErrNoRun)
			}
			return err
		}
		r.hist = append(r.hist, user)
		r.mu.Lock()
		if r.inbox.stored == nil {
			r.inbox.stored = map[string]bool{}
		}
		r.inbox.stored[m.id] = true
		r.mu.Unlock()
		m.answer(nil)
	}
	return nil
}

// steerWaiting reports whether a message waits for the next step; if none
// does, it closes the inbox (the run is about to end). Both under one
// lock: see inbox.
func (r *runner) steerWaiting() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.inbox.pending) > 0 {
		return true
	}
	r.inbox.closed = true
	return false
}

// closeInbox refuses further messages and returns those still waiting to
// their senders with ErrNoRun: the run ends without another step.
func (r *runner) closeInbox() {
	r.mu.Lock()
	msgs := r.inbox.pending
	r.inbox.pending, r.inbox.closed = nil, true
	r.mu.Unlock()
	for _, m := range msgs {
		m.answer(ErrNoRun)
	}
}
