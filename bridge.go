package main

import (
	"sync"
	"time"

	"foya/backend/llm"
)

// eventsName is the Wails event that carries kernel events to the window:
// its one argument is an array of event envelopes, in the order the kernel
// published them (frontend/src/backend/wails.ts listens to it).
const eventsName = "foya:events"

// bridgeInterval is the least time between two emits caused by deltas: at
// most 60 a second, whatever the rate of text and reasoning deltas (1,000
// deltas a second cost the window at most 60 emits a second).
const bridgeInterval = time.Second / 60

// bridge forwards the kernel's events to the window in the order they were
// published. A text or reasoning delta waits, at most bridgeInterval, to be
// sent with the deltas after it; any other event is sent at once, in the
// same emit as the deltas before it, so nothing overtakes anything.
//
// add is the kernel's subscriber, called on the publishing goroutine; the
// flush after bridgeInterval runs on a timer's goroutine. emit is called
// with mu held, so emits never overlap and leave in order; it must not
// block for long (Wails' EventsEmit posts to the webview and returns).
type bridge struct {
	emit func([]llm.Event)

	mu      sync.Mutex
	pending []llm.Event
	timer   *time.Timer // armed while deltas wait; nil otherwise
	gen     int         // counts flushes, so that a timer that lost the race to one does nothing
	closed  bool
}

// newBridge returns a bridge that hands each batch of events to emit,
// which owns the slice from then on.
func newBridge(emit func([]llm.Event)) *bridge {
	return &bridge{emit: emit}
}

// add queues one event and sends what is due.
func (b *bridge) add(ev llm.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.pending = append(b.pending, ev)
	if ev.Type != llm.EventTextDelta && ev.Type != llm.EventReasoningDelta {
		b.flushLocked()
		return
	}
	if b.timer == nil {
		gen := b.gen
		b.timer = time.AfterFunc(bridgeInterval, func() { b.tick(gen) })
	}
}

// tick sends the deltas that waited since the flush numbered gen.
func (b *bridge) tick(gen int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || gen != b.gen {
		return
	}
	b.flushLocked()
}

// flushLocked emits everything pending as one batch. b.mu must be held.
func (b *bridge) flushLocked() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.gen++
	if len(b.pending) == 0 {
		return
	}
	batch := b.pending
	b.pending = nil
	b.emit(batch)
}

// close stops the bridge: it drops what waits (the window is going away)
// and ignores later events. It is safe to call more than once.
func (b *bridge) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.closed = true
	b.pending = nil
}
