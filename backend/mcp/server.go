package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"foya/backend/event"
	"foya/backend/mcp/mcpauth"
)

// States of a server.
const (
	Connecting = "connecting"
	Ready      = "ready"
	Failed     = "failed"
	Stopped    = "stopped"
)

// Status is what a person sees of one server.
type Status struct {
	Name string `json:"name"`
	// Workdir is the project a project server belongs to; empty for the
	// user's own servers.
	Workdir     string `json:"workdir,omitempty"`
	Transport   string `json:"transport"`
	CommandLine string `json:"commandLine"`
	State       string `json:"state"`
	// Error says why the server failed or was restarted last.
	Error string `json:"error,omitempty"`
	// Stderr is the end of the server's standard error (stdio servers).
	Stderr     string `json:"stderr,omitempty"`
	Tools      int    `json:"tools"`
	Deferred   bool   `json:"deferred"`
	Sandbox    bool   `json:"sandbox"`
	AlwaysLoad bool   `json:"alwaysLoad"`
	Restarts   int    `json:"restarts"`
	// SignIn is an HTTP server's sign-in state (mcpauth.NotNeeded,
	// SignedIn, SignInNeeded or Error), SignInError why; empty for a
	// stdio server.
	SignIn      string `json:"signIn,omitempty"`
	SignInError string `json:"signInError,omitempty"`
}

// server supervises one configured server: one goroutine connects,
// watches and reconnects it until stop.
type server struct {
	m       *Manager
	entry   Entry
	workdir string
	launch  Launch
	// sandboxed servers get a Confinement at each start.
	sandboxed bool
	// auth is an HTTP server's sign-in (nil without Options.OAuth).
	auth *mcpauth.Session

	restart chan string // why; buffered
	stop    context.CancelFunc
	done    chan struct{}

	mu       sync.Mutex
	state    string
	err      string
	conn     *conn
	tools    []mcp.Tool
	restarts int
	// lastTail is the end of the standard error of the last connection
	// that ended, shown while the server is failed.
	lastTail string
	progress map[string]func(event.Progress)
	// calls are the tool calls running, oldest first: an elicitation
	// belongs to the last (elicit.go).
	calls []*activeCall
	// sweep is the current connection's Confinement.Sweep; notes are
	// what sweeps said that no call result has carried yet.
	sweep    func(who string) []string
	notes    []string
	sweepMu  sync.Mutex    // one sweep at a time: two would rename the same .git
	ready    chan struct{} // closed at the first ready or failure
	readyOne sync.Once
	// tellMu keeps a change and its telling together, so that the states
	// of one server are told in the order they were taken.
	tellMu sync.Mutex
	// launchRun starts the server's supervisor (Manager.told, once its
	// first state is told).
	launchRun func()
	// refusedHTTP is set when the last start failed because the server
	// refused streamable HTTP's initialize with a 4xx (Manager.RefusedHTTP).
	refusedHTTP atomic.Bool
}

// tell tells Options.Changed the server's state as it is now.
func (s *server) tell() {
	s.tellMu.Lock()
	defer s.tellMu.Unlock()
	s.mu.Lock()
	state, err := s.state, s.err
	s.mu.Unlock()
	s.m.Announce(event.MCPChangedData{Change: event.MCPState, Server: s.entry.Name, Workdir: s.workdir, State: state, Error: err})
}

func (s *server) key() string { return s.workdir + "\x00" + s.entry.Name }

// set records the server's state, and why it failed, and tells
// Options.Changed when either changed.
func (s *server) set(state, err string) { s.change(state, err, false) }

// drop forgets the server's connection and records its new state in the
// same step, so that no one ever sees the server ready with no
// connection.
func (s *server) drop(state, err string) { s.change(state, err, true) }

func (s *server) change(state, err string, drop bool) {
	s.tellMu.Lock()
	defer s.tellMu.Unlock()
	s.mu.Lock()
	if drop {
		s.conn = nil
	}
	was, wasErr := s.state, s.err
	s.state = state
	if err != "" || state == Ready {
		s.err = err
	}
	now := s.err
	s.mu.Unlock()
	if state != was || now != wasErr {
		s.m.Announce(event.MCPChangedData{Change: event.MCPState, Server: s.entry.Name, Workdir: s.workdir, State: state, Error: now})
	}
	if state == Failed || state == Stopped {
		s.readyOne.Do(func() { close(s.ready) })
	}
}

// run is the supervisor loop.
func (s *server) run(ctx context.Context) {
	defer close(s.done)
	backoff := s.m.opts.Backoff
	for {
		s.set(Connecting, "")
		c, err := s.start(ctx)
		if err == nil {
			err = s.listTools(ctx, c)
			if err != nil {
				c.close()
				c = nil
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				s.set(Stopped, "")
				return
			}
			s.set(Failed, err.Error())
		} else {
			s.mu.Lock()
			s.conn = c
			s.mu.Unlock()
			s.set(Ready, "")
			s.m.sync()
			s.readyOne.Do(func() { close(s.ready) })
			up := time.Now()
			why := ""
			var tick <-chan time.Time
			var ticker *time.Ticker
			if s.sandboxed {
				ticker = time.NewTicker(s.m.opts.SweepEvery)
				tick = ticker.C
			}
		watch:
			for {
				select {
				case <-ctx.Done():
				case <-c.done:
					why = "the server stopped: " + c.exitText()
					if s.entry.Transport() != Stdio {
						why = fmt.Sprintf("the server at %s stopped or cannot be reached: %s", s.entry.URL, c.exitText())
					}
					if t := c.stderr; t != nil {
						if tail := t(5); tail != "" {
							why += "; its standard error ends with: " + tail
						}
					}
				case why = <-s.restart:
				case <-tick:
					s.sweepNow()
					continue
				}
				break watch
			}
			if ticker != nil {
				ticker.Stop()
			}
			if ctx.Err() != nil {
				s.drop(Stopped, "")
			} else {
				s.drop(Failed, why)
			}
			c.close()
			s.sweepNow()
			if c.stderr != nil {
				tail := c.stderr(20)
				s.mu.Lock()
				s.lastTail = tail
				s.mu.Unlock()
			}
			if ctx.Err() != nil {
				return
			}
			if time.Since(up) > 30*time.Second {
				backoff = s.m.opts.Backoff
			}
		}
		select {
		case <-ctx.Done():
			s.set(Stopped, "")
			return
		case <-time.After(backoff):
		}
		s.mu.Lock()
		s.restarts++
		s.mu.Unlock()
		backoff = min(backoff*2, s.m.opts.MaxBackoff)
	}
}

// start checks that the server may still start (Options.Verify, for a
// project's) and starts it, in a confinement made now when sandboxed.
func (s *server) start(ctx context.Context) (*conn, error) {
	if v := s.m.opts.Verify; v != nil && s.workdir != "" {
		if err := v(s.workdir, s.entry); err != nil {
			return nil, err
		}
	}
	l := s.launch
	if s.sandboxed {
		conf := s.m.opts.Confine(l.Dir)
		l.Policy = &conf.Policy
		s.mu.Lock()
		s.sweep = conf.Sweep
		s.mu.Unlock()
	}
	e, err := s.runEntry(l)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, e, l, s.m.opts.InitTimeout, s.notify, s.clientOptions())
	s.refusedHTTP.Store(errors.Is(err, transport.ErrLegacySSEServer))
	if err == nil {
		s.setLogLevel(ctx, c.client)
	}
	return c, err
}

// sweepNow runs the confinement's sweep and keeps what it says for the
// next call's result and the status.
func (s *server) sweepNow() []string {
	s.mu.Lock()
	sweep := s.sweep
	s.mu.Unlock()
	if sweep == nil {
		return nil
	}
	s.sweepMu.Lock()
	notes := sweep("the MCP server " + s.entry.Name)
	s.sweepMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, notes...)
	return notes
}

// takeNotes returns the sweeps' notes not told yet, and forgets them.
func (s *server) takeNotes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes
	s.notes = nil
	return n
}

// listTools reads the server's tools into s.tools.
func (s *server) listTools(ctx context.Context, c *conn) error {
	if c.client.GetServerCapabilities().Tools == nil {
		s.mu.Lock()
		s.tools = nil
		s.mu.Unlock()
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.InitTimeout)
	defer cancel()
	res, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("list its tools: %w", err)
	}
	list := slices.Clone(res.Tools)
	slices.SortFunc(list, func(a, b mcp.Tool) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	s.mu.Lock()
	s.tools = list
	s.mu.Unlock()
	return nil
}

// notify handles a server's notifications: progress of a call, and a
// changed tool list (the registry follows; new tools are offered from the
// next step).
func (s *server) notify(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		f := n.Params.AdditionalFields
		token := fmt.Sprint(f["progressToken"])
		s.mu.Lock()
		fn := s.progress[token]
		s.mu.Unlock()
		if fn == nil {
			return
		}
		p := event.Progress{}
		if v, ok := f["progress"].(float64); ok {
			p.Done = &v
		}
		if v, ok := f["total"].(float64); ok {
			p.Total = &v
		}
		if v, ok := f["message"].(string); ok {
			p.Message = bounded(v, 512)
		}
		fn(p)
	case string(mcp.MethodNotificationMessage):
		s.logged(n)
	case mcp.MethodNotificationToolsListChanged:
		go func() {
			s.mu.Lock()
			c := s.conn
			s.mu.Unlock()
			if c == nil {
				return
			}
			if err := s.listTools(context.Background(), c); err == nil {
				s.m.sync()
			}
		}()
	}
}

// requestRestart asks the supervisor to reconnect (a hung server).
func (s *server) requestRestart(why string) {
	select {
	case s.restart <- why:
	default:
	}
}

// errNotConnected is returned by current when the server has no
// connection: it is connecting, down (failed, with why) or stopped.
type errNotConnected struct{ name, state, why string }

func (e errNotConnected) Error() string {
	var msg string
	switch e.state {
	case Connecting:
		msg = fmt.Sprintf("MCP server %s is connecting", e.name)
		if e.why != "" {
			msg += " again after: " + e.why
		}
	case Stopped:
		return fmt.Sprintf("MCP server %s has stopped: Foya no longer runs it (it was removed, changed or Foya is closing)", e.name)
	default:
		msg = fmt.Sprintf("MCP server %s is down", e.name)
		if e.why != "" {
			msg += ": " + e.why
		}
	}
	return msg + ". Foya reconnects it on its own; try again later, or go on without it"
}

func (s *server) current() (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil, errNotConnected{s.entry.Name, s.state, s.err}
	}
	return s.conn, nil
}

// callOutcome is a call's result or why there is none, worded for the
// model.
type callOutcome struct {
	res  *mcp.CallToolResult
	fail string
	// notes say what the sandbox's sweep did after the call (a .git the
	// server made, renamed aside).
	notes []string
}

// call calls one tool. Cancelling ctx cancels the call (the server gets
// notifications/cancelled: from mcp-go over stdio, from cancellingHTTP
// and cancellingSSE over HTTP); a server that sends nothing, neither the
// result nor progress, for the entry's timeout is restarted.
func (s *server) call(ctx context.Context, tool string, args json.RawMessage, token string, progress func(event.Progress)) callOutcome {
	o := s.callOnce(ctx, tool, args, token, progress)
	if s.sandboxed {
		s.sweepNow()
		o.notes = s.takeNotes()
	}
	return o
}

func (s *server) callOnce(ctx context.Context, tool string, args json.RawMessage, token string, progress func(event.Progress)) callOutcome {
	c, err := s.current()
	if err != nil {
		return callOutcome{fail: err.Error()}
	}
	// The timeout bounds silence, not work: a server that reports
	// progress is alive, so each notifications/progress of the call
	// starts the timeout again, and a hung server is one that sends
	// nothing, neither result nor progress, for the whole timeout.
	// An elicitation of the call holds the timeout while the user answers.
	timeout := s.entry.CallTimeout()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var silent atomic.Bool
	hush := &silence{timeout: timeout}
	hush.mu.Lock()
	hush.timer = time.AfterFunc(timeout, func() {
		hush.mu.Lock()
		hush.fired = true
		hush.mu.Unlock()
		silent.Store(true)
		cancel()
	})
	hush.mu.Unlock()
	defer hush.timer.Stop()
	defer s.begin(&activeCall{ctx: cctx, rc: runContextOf(ctx), callID: token, hold: hush.hold})()
	s.mu.Lock()
	s.progress[token] = func(p event.Progress) {
		hush.reset()
		if progress != nil {
			progress(p)
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.progress, token)
		s.mu.Unlock()
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	if len(args) > 0 {
		req.Params.Arguments = args
	}
	req.Params.Meta = &mcp.Meta{ProgressToken: token}
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		res, err := c.client.CallTool(cctx, req)
		ch <- answer{res, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-c.done:
		// The process died: the transport may not notice before its own
		// reader does, so do not wait for it.
		cancel()
		return callOutcome{fail: s.stoppedText(c)}
	}
	switch {
	case a.err == nil:
		return callOutcome{res: a.res}
	case ctx.Err() != nil:
		return callOutcome{fail: "the call was cancelled"}
	case silent.Load():
		s.requestRestart(fmt.Sprintf("a call to %s sent nothing for %v (no result, no progress)", tool, timeout))
		return callOutcome{fail: fmt.Sprintf("MCP server %s sent nothing for %v during the call (no result, no progress), so Foya is restarting it. "+
			"Try again later, or go on without it; a server whose work takes longer should report progress, or be given a longer \"timeout\" in its entry", s.entry.Name, timeout)}
	}
	select {
	case <-c.done:
		return callOutcome{fail: s.stoppedText(c)}
	case <-time.After(500 * time.Millisecond):
	}
	var te *transport.Error
	if errors.As(a.err, &te) && s.entry.Transport() != Stdio {
		if why, ok := unreachable(a.err); ok {
			s.requestRestart(fmt.Sprintf("the server at %s stopped answering during a call: %s", s.entry.URL, why))
			return callOutcome{fail: s.stoppedHTTP(why)}
		}
		s.requestRestart("a call failed: " + a.err.Error())
	}
	return callOutcome{fail: fmt.Sprintf("MCP server %s: %s", s.entry.Name, bounded(a.err.Error(), 2048))}
}

func (s *server) stoppedText(c *conn) string {
	msg := fmt.Sprintf("MCP server %s stopped during the call (%s)", s.entry.Name, c.exitText())
	if c.stderr != nil {
		if t := c.stderr(5); t != "" {
			msg += "; its standard error ends with: " + t
		}
	}
	return msg + ". Foya restarts it; the call may or may not have taken effect"
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.entry.Name, Workdir: s.workdir, Transport: s.entry.Transport(), CommandLine: s.entry.CommandLine(),
		State: s.state, Error: s.err, Tools: len(s.tools), Sandbox: s.sandboxed,
		AlwaysLoad: s.entry.AlwaysLoad, Restarts: s.restarts}
	if len(s.notes) > 0 {
		// What a sweep did that no call has told yet (a .git the server
		// made while no call ran, renamed aside).
		st.Error = strings.Join(append(slices.Clone(s.notes), st.Error), "; ")
		st.Error = strings.TrimSuffix(st.Error, "; ")
	}
	if s.auth != nil {
		st.SignIn, st.SignInError = s.auth.State()
		if st.SignIn == mcpauth.SignInNeeded && s.state == Failed {
			st.Error = "the server needs you to sign in"
			if st.SignInError != "" {
				st.Error += ": " + st.SignInError
			}
		}
	}
	if c := s.conn; c != nil && c.stderr != nil {
		st.Stderr = c.stderr(20)
	} else if s.state == Failed {
		st.Stderr = s.lastTail
	}
	return st
}
