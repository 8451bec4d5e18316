package kernel

import (
	"context"
	"sort"
	"sync"
	"time"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/mcp"
	"foya/backend/tools"
)

// An MCP server's elicitation/create during a tool call of a session's
// run is published as an mcp.elicitation notice in state pending (spec
// M1): a front end shows the form (or the URL) and answers with
// AnswerElicitation; a second notice, of the same ID, says how it ended.
// It ends unanswered, cancelled, when the run is cancelled or the call
// ends. A headless kernel (foya exec with no terminal) has no one to
// ask, and foya exec on a terminal asks approvals only
// (DeclineElicitations): both decline at once, and the notice says so.

// elicits are the elicitations waiting for an answer. The zero value is
// ready to use.
type elicits struct {
	mu      sync.Mutex
	waiting map[string]*elicitWaiter
	closed  map[string]bool
	// decline, when set, declines every question at once with this note
	// (DeclineElicitations).
	decline string
}

// DeclineElicitations makes the kernel decline every MCP server's
// question at once, with note for the server and the mcp.elicitation
// notice: for a front end that cannot show them (foya exec on a terminal,
// which asks approvals only).
func (k *Kernel) DeclineElicitations(note string) {
	k.elicits.mu.Lock()
	defer k.elicits.mu.Unlock()
	k.elicits.decline = note
}

type elicitWaiter struct {
	d        event.MCPElicitationData
	ch       chan ElicitAnswer // buffered 1: the first answer
	answered bool
}

// headlessNote is the note of a question a headless Foya declines.
const headlessNote = "Foya runs here without a person to answer (foya exec with no terminal, or --json), so it declined the MCP server's question"

// elicit asks the user what an MCP server asks (mcp.Options.Elicit).
func (k *Kernel) elicit(ctx context.Context, rc *tools.RunContext, callID string, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
	d := event.MCPElicitationData{ID: engine.NewID("eli"), Server: e.Server, Mode: e.Mode, Message: e.Message,
		Fields: e.Fields, URL: e.URL, State: event.ElicitPending, AskedAt: time.Now().UTC()}
	if rc == nil || rc.SessionID == "" {
		return mcp.ElicitAnswer{Action: mcp.Decline, Note: "the server asked outside a tool call of a session, where Foya has no one to show it to"}, nil
	}
	d.SessionID, d.RunID, d.CallID = rc.SessionID, rc.RunID, callID
	declined := func(note string) (mcp.ElicitAnswer, error) {
		d.State, d.Note = event.ElicitDeclined, note
		k.notice(d.SessionID, event.MCPElicitation(d))
		return mcp.ElicitAnswer{Action: mcp.Decline, Note: note}, nil
	}
	k.elicits.mu.Lock()
	note := k.elicits.decline
	k.elicits.mu.Unlock()
	switch {
	case e.Unshowable != "":
		return declined(e.Unshowable)
	case k.gateway == nil:
		return declined(headlessNote)
	case note != "":
		return declined(note)
	}
	w := &elicitWaiter{d: d, ch: make(chan ElicitAnswer, 1)}
	k.elicits.mu.Lock()
	if k.elicits.waiting == nil {
		k.elicits.waiting, k.elicits.closed = map[string]*elicitWaiter{}, map[string]bool{}
	}
	k.elicits.waiting[d.ID] = w
	k.elicits.mu.Unlock()
	defer func() {
		k.elicits.mu.Lock()
		delete(k.elicits.waiting, d.ID)
		k.elicits.closed[d.ID] = true
		k.elicits.mu.Unlock()
	}()
	k.notice(d.SessionID, event.MCPElicitation(d))
	var a ElicitAnswer
	select {
	case a = <-w.ch:
	case <-ctx.Done():
		select {
		case a = <-w.ch: // an answer that raced with the end still wins
		default:
			d.State, d.Note = event.ElicitCancelled, "it ended unanswered: the run was cancelled or the server's call ended"
			k.notice(d.SessionID, event.MCPElicitation(d))
			return mcp.ElicitAnswer{}, ctx.Err()
		}
	}
	d.State = map[string]string{ElicitAccept: event.ElicitAccepted, ElicitDecline: event.ElicitDeclined, ElicitCancel: event.ElicitCancelled}[a.Action]
	k.notice(d.SessionID, event.MCPElicitation(d))
	return mcp.ElicitAnswer{Action: a.Action, Content: a.Content}, nil
}

// AnswerElicitation answers a pending MCP elicitation; the first answer
// wins. Values that do not fit the form are refused (ErrInvalid), each
// field at fault named, and the question still waits.
func (k *Kernel) AnswerElicitation(id string, a ElicitAnswer) error {
	k.elicits.mu.Lock()
	defer k.elicits.mu.Unlock()
	w, ok := k.elicits.waiting[id]
	switch {
	case !ok && k.elicits.closed[id], ok && w.answered:
		return kindf(ErrConflict, "the MCP server's question %s was already answered or has ended", id)
	case !ok:
		return kindf(ErrNotFound, "no MCP server's question %s is waiting", id)
	}
	switch a.Action {
	case ElicitAccept:
		if w.d.Mode == event.ElicitURL {
			a.Content = nil
			break
		}
		if a.Content == nil {
			a.Content = map[string]any{}
		}
		if errs := mcp.Validate(w.d.Fields, a.Content); errs != nil {
			return kindf(ErrInvalid, "the values do not fit the form: %s", mcp.JoinErrors(errs))
		}
	case ElicitDecline, ElicitCancel:
		a.Content = nil
	default:
		return kindf(ErrInvalid, "unknown answer %q: want accept, decline or cancel", a.Action)
	}
	w.answered = true
	w.ch <- a
	return nil
}

// PendingElicitations lists the MCP servers' questions waiting in a
// session ("" for every session), oldest first.
func (k *Kernel) PendingElicitations(sessionID string) []event.MCPElicitationData {
	k.elicits.mu.Lock()
	defer k.elicits.mu.Unlock()
	out := []event.MCPElicitationData{}
	for _, w := range k.elicits.waiting {
		if !w.answered && (sessionID == "" || w.d.SessionID == sessionID) {
			out = append(out, w.d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AskedAt.Before(out[j].AskedAt) })
	return out
}
