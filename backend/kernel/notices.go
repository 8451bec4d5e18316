package kernel

import (
	"sync"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools/shell"
)

// notices is the kernel's bus of notices (event.Notices): events that are
// published and never stored, so they have no seq and are kept apart from
// Subscribe's, whose subscribers count on seq order with no gap. The zero
// value is ready to use.
type notices struct {
	mu   sync.Mutex
	subs map[int]func(llm.Event)
	next int
}

// SubscribeNotices calls fn with every notice (background.changed,
// mcp.changed; docs/events.md) until the returned function is called. A
// notice has Seq 0 and is never stored, so a front end that was not
// listening lists again instead of replaying. fn is called on the
// goroutine of what changed, one notice of a background command or an MCP
// server at a time and in their order; it must not block for long nor
// call back into the kernel before it returns.
func (k *Kernel) SubscribeNotices(fn func(llm.Event)) (unsubscribe func()) {
	n := &k.notices
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.subs == nil {
		n.subs = map[int]func(llm.Event){}
	}
	id := n.next
	n.next++
	n.subs[id] = fn
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		delete(n.subs, id)
	}
}

// notice publishes ev, a notice of session sessionID ("" for none).
func (k *Kernel) notice(sessionID string, ev llm.Event) {
	ev.SessionID, ev.Time = sessionID, time.Now().UTC()
	n := &k.notices
	n.mu.Lock()
	fns := make([]func(llm.Event), 0, len(n.subs))
	for _, fn := range n.subs {
		fns = append(fns, fn)
	}
	n.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

// backgroundChanged publishes a background command's change
// (shell.Options.Changed).
func (k *Kernel) backgroundChanged(change string, b shell.Background) {
	c := backgroundOf(b)
	k.notice(b.SessionID, event.BackgroundChanged(event.BackgroundChangedData{Change: change, ID: c.ID, SessionID: c.SessionID,
		Command: c.Command, PID: c.PID, StartedAt: c.StartedAt, Running: c.Running, ExitCode: c.ExitCode, Signal: c.Signal,
		Killed: c.Killed, TimedOut: c.TimedOut, DurationNs: c.DurationNs, Sandbox: c.Sandbox, OutputBytes: c.OutputBytes}))
}

// mcpChanged publishes a change of the MCP servers (mcp.Options.Changed).
func (k *Kernel) mcpChanged(c event.MCPChangedData) {
	k.notice("", event.MCPChanged(c))
}
