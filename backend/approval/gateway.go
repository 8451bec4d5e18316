package approval

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Choice is a person's answer to an approval request.
type Choice string

const (
	// AllowOnce allows this call only.
	AllowOnce Choice = "allow_once"
	// AllowSession allows this call and remembers a grant (Answer.Scope)
	// for the rest of the session.
	AllowSession Choice = "allow_session"
	// Deny refuses the call; Answer.Message reaches the model.
	Deny Choice = "deny"
)

// ParseChoice reads a choice as written by clients.
func ParseChoice(s string) (Choice, error) {
	switch c := Choice(s); c {
	case AllowOnce, AllowSession, Deny:
		return c, nil
	}
	return "", fmt.Errorf("unknown answer %q: want allow_once, allow_session or deny", s)
}

// Answer is a person's answer.
type Answer struct {
	Choice Choice `json:"choice"`
	// Scope is the grant to remember with AllowSession.
	Scope *Grant `json:"scope,omitempty"`
	// Message is an optional note for the model with Deny.
	Message string `json:"message,omitempty"`
}

// Validate checks an answer against the request it answers: a session grant
// must name a scope that covers the request's action.
func (a Answer) Validate(p Pending) error {
	switch a.Choice {
	case AllowOnce, Deny:
		return nil
	case AllowSession:
		if p.Request.Action.Kind == FetchPrivate {
			return errors.New("a loopback or private address is allowed one fetch at a time, never for the session " +
				"(a name can resolve to another address the next time): answer allow once or deny")
		}
		if a.Scope == nil {
			return errors.New("allow for this session needs a scope (tool, command prefix, host or folder)")
		}
		if !a.Scope.Matches(p.Request.Action, p.Request.Action.command()) {
			return fmt.Errorf("the scope %s does not cover this request", a.Scope)
		}
		return nil
	}
	_, err := ParseChoice(string(a.Choice))
	return err
}

// Pending is a request waiting for a person.
type Pending struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	RunID     string    `json:"runId"`
	Request   Request   `json:"request"`
	Reason    string    `json:"reason"`
	Scopes    []Grant   `json:"scopes"`
	AskedAt   time.Time `json:"askedAt"`
	// SubAgent is the description of the sub-agent that asks, when the
	// call belongs to a child run (RunID); empty for the session's own run.
	SubAgent string `json:"subAgent,omitempty"`
}

// Errors of Gateway.Answer.
var (
	ErrUnknownRequest = errors.New("no such approval request")
	ErrAnswered       = errors.New("the approval request was already answered or withdrawn")
)

// Gateway holds the requests that wait for a person and hands each one the
// first answer it gets. It is safe for concurrent use.
type Gateway struct {
	mu      sync.Mutex
	waiting map[string]*waiter
	closed  map[string]bool // answered or withdrawn, so late answers are told so
}

type waiter struct {
	p        Pending
	ch       chan Answer // buffered 1: the first answer
	answered bool
}

// NewGateway returns an empty gateway.
func NewGateway() *Gateway {
	return &Gateway{waiting: map[string]*waiter{}, closed: map[string]bool{}}
}

// Open registers p as waiting, so answers can arrive from the moment it is
// announced. Wait for the answer with Wait.
func (g *Gateway) Open(p Pending) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waiting[p.ID] = &waiter{p: p, ch: make(chan Answer, 1)}
}

// Wait blocks until the request opened with Open is answered or ctx ends,
// whichever comes first; then the request is closed and later answers are
// rejected.
func (g *Gateway) Wait(ctx context.Context, id string) (Answer, error) {
	g.mu.Lock()
	w, ok := g.waiting[id]
	g.mu.Unlock()
	if !ok {
		// Answered between Open and Wait? Its channel is gone with it, so
		// Open must always precede Wait; anything else is a bug.
		return Answer{}, fmt.Errorf("approval %s: %w", id, ErrUnknownRequest)
	}
	defer g.close(id)
	select {
	case a := <-w.ch:
		return a, nil
	case <-ctx.Done():
		// An answer that raced with the cancel still wins if it came first.
		select {
		case a := <-w.ch:
			return a, nil
		default:
		}
		return Answer{}, ctx.Err()
	}
}

func (g *Gateway) close(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.waiting, id)
	g.closed[id] = true
}

// Answer answers a waiting request. The first answer wins; answers to
// unknown, answered or withdrawn requests are errors.
func (g *Gateway) Answer(id string, a Answer) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	w, ok := g.waiting[id]
	if !ok {
		if g.closed[id] {
			return fmt.Errorf("approval %s: %w", id, ErrAnswered)
		}
		return fmt.Errorf("approval %s: %w", id, ErrUnknownRequest)
	}
	if err := a.Validate(w.p); err != nil {
		return fmt.Errorf("approval %s: %w", id, err)
	}
	if w.answered {
		return fmt.Errorf("approval %s: %w", id, ErrAnswered)
	}
	w.answered = true
	w.ch <- a
	return nil
}

// Pending lists the requests waiting in a session ("" for all), oldest first.
func (g *Gateway) Pending(sessionID string) []Pending {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Pending
	for _, w := range g.waiting {
		if !w.answered && (sessionID == "" || w.p.SessionID == sessionID) {
			out = append(out, w.p)
		}
	}
	sortPending(out)
	return out
}

func sortPending(ps []Pending) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].AskedAt.Before(ps[j-1].AskedAt); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// Scopes suggests the grants a person may choose for "allow for this
// session": the narrowest sensible scope first. A FetchPrivate action has
// none: no grant covers it.
func Scopes(a Action) []Grant {
	var out []Grant
	switch a.Kind {
	case FetchPrivate:
		return nil
	case Shell, ShellEscalate, ShellWeakSandbox:
		if c := a.command(); c != nil {
			if p := c.Prefix(); len(p) > 0 && c.MatchesPrefix(p) { // offer only scopes that cover the request
				out = append(out, Grant{Kind: a.Kind, Prefix: p})
			}
		}
	case Fetch:
		if a.Host != "" {
			out = append(out, Grant{Kind: a.Kind, Host: a.Host})
		}
	case ReadOutside, WriteProtected, WriteInside, DeleteInside:
		if len(a.Paths) > 0 {
			dir := commonDir(a.Paths)
			if dir != "" {
				out = append(out, Grant{Kind: a.Kind, Folder: dir})
			}
		}
	}
	return append(out, Grant{Kind: a.Kind, Tool: a.Tool})
}
