package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"foya/backend/event"
	"foya/backend/mcp/mcpauth"
	"foya/backend/sandbox"
	"foya/backend/tools"
)

// Options configure a Manager.
type Options struct {
	// Registry receives the servers' tools.
	Registry *tools.Registry
	// DeferTokens is the estimated size, in tokens, of all MCP tools'
	// names, descriptions and schemas above which the tools of servers not
	// marked alwaysLoad are deferred behind tool_search (spec E1, E2).
	// Zero or less never defers. It is read at every registry update.
	DeferTokens func() int
	// Environ is the environment stdio servers start from (already
	// filtered of secrets); nil means none but the entry's own.
	Environ func() []string
	// Confine returns how a sandboxed server working in a folder is
	// confined; it is called at every start of the server, so that the
	// policy knows the folder as it is then. Nil means sandboxed servers
	// cannot start.
	Confine func(workdir string) Confinement
	// Verify, if set, is called before every start of a project's server
	// (a restart after a crash included): an error keeps the server from
	// starting and is shown as its failure (an approval that no longer
	// holds: the code it runs changed).
	Verify func(workdir string, e Entry) error
	// SweepEvery is how often a running sandboxed server's Sweep runs
	// besides after each call and at its end (default 30s).
	SweepEvery time.Duration
	// InitTimeout bounds a connection's handshake and tool listing
	// (default 20s); Backoff is the first wait before a reconnection
	// (default 500ms), doubled each time up to MaxBackoff (default 30s).
	InitTimeout, Backoff, MaxBackoff time.Duration
	// Changed, if set, is told what a list of the servers shows changed:
	// a server's state (event.MCPState, with the state and its error), and
	// what Announce is given. Calls for one server come in the order of
	// its changes; Changed must not block for long nor call back into the
	// Manager.
	Changed func(event.MCPChangedData)
	// Elicit asks the user what a server asks during a call
	// (elicitation/create; elicit.go); nil declines every question.
	Elicit ElicitFunc
	// OAuth, if set, signs in to HTTP servers that ask for it (package
	// mcpauth); nil leaves them unauthorized.
	OAuth *mcpauth.Options
}

// Confinement is how a sandboxed server is kept: the sandbox policy, and
// Sweep, which deals with what the server made that the policy cannot
// forbid (a new .git folder, renamed aside) and returns sentences saying
// so; who names the server. Sweep may be nil.
type Confinement struct {
	Policy sandbox.Policy
	Sweep  func(who string) []string
}

// Manager runs the configured servers and keeps their tools in the
// registry.
type Manager struct {
	opts Options

	mu      sync.Mutex
	servers map[string]*server // by key (workdir, name)
	// registered are the MCP tools in the registry, by registry name,
	// with the form they were registered in.
	registered map[string]string
	closed     bool
	// workspaces are the sessions' workspaces, the roots of the user's
	// own servers (Workspace).
	workspaces []string
	syncMu     sync.Mutex
	// logs are the servers' recent log messages (logs.go).
	logs logBook
}

// NewManager returns a manager with no servers.
func NewManager(o Options) *Manager {
	if o.InitTimeout <= 0 {
		o.InitTimeout = 20 * time.Second
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.SweepEvery <= 0 {
		o.SweepEvery = 30 * time.Second
	}
	if o.DeferTokens == nil {
		o.DeferTokens = func() int { return 0 }
	}
	return &Manager{opts: o, servers: map[string]*server{}, registered: map[string]string{}}
}

// Set makes the servers of one scope (workdir "" for the user's own, else
// a project's folder) exactly entries: servers no longer listed stop,
// changed ones restart, new ones start. Entries marked disabled do not
// run. Set returns at once; Wait waits for the first connections.
func (m *Manager) Set(workdir string, entries []Entry) {
	want := map[string]Entry{}
	for _, e := range entries {
		if !e.Disabled {
			want[workdir+"\x00"+e.Name] = e
		}
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var stop []*server
	for key, s := range m.servers {
		if s.workdir != workdir {
			continue
		}
		if e, ok := want[key]; ok && same(e, s.entry) {
			delete(want, key)
			continue
		}
		delete(m.servers, key)
		stop = append(stop, s)
	}
	var started []*server
	for key, e := range want {
		s := m.newServer(workdir, e)
		m.servers[key] = s
		started = append(started, s)
	}
	m.mu.Unlock()
	m.told(started...)
	for _, s := range stop {
		s.stop()
		<-s.done
	}
	if len(stop) > 0 {
		m.sync()
	}
}

func same(a, b Entry) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func (m *Manager) newServer(workdir string, e Entry) *server {
	s := &server{m: m, entry: e, workdir: workdir, restart: make(chan string, 1), done: make(chan struct{}),
		state: Connecting, progress: map[string]func(event.Progress){}, ready: make(chan struct{})}
	dir := workdir
	if dir == "" {
		// The user's own servers start in the home folder; without one
		// (HOME unset or gone), in Foya's own folder.
		dir, _ = homeDir()
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			dir = ""
		}
	}
	s.launch = Launch{Dir: dir}
	if e.Transport() != Stdio && m.opts.OAuth != nil {
		var cfg mcpauth.Config
		if e.OAuth != nil {
			cfg = *e.OAuth
		}
		s.auth = mcpauth.New(e.URL, cfg, *m.opts.OAuth)
		s.launch.Auth = s.auth.Wrap
	}
	if m.opts.Environ != nil {
		s.launch.Environ = m.opts.Environ()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	if e.Sandbox && e.Transport() == Stdio {
		if m.opts.Confine == nil {
			s.state, s.err = Failed, "sandboxed servers cannot start here: the sandbox is not available"
			close(s.ready)
			close(s.done)
			s.launchRun = func() {}
			return s
		}
		s.sandboxed = true
	}
	s.launchRun = func() { go s.run(ctx) }
	return s
}

// Restart stops a server and starts it afresh, without waiting for a
// backoff (a person asked: the server was fixed, or it hangs); a
// project's server of workdir wins over the user's of the same name, as
// for calls. Its restart count starts again from zero. It returns the
// scope of the server it restarted.
func (m *Manager) Restart(workdir, name string) (string, error) {
	old, err := m.find(workdir, name)
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	if m.closed || m.servers[old.key()] != old {
		m.mu.Unlock()
		return "", fmt.Errorf("MCP server %q stopped meanwhile: see foya mcp list", name)
	}
	s := m.newServer(old.workdir, old.entry)
	if old.auth != nil {
		// The sign-in lives on: its state and token are the server's.
		s.auth = old.auth
		s.launch.Auth = old.auth.Wrap
	}
	m.servers[old.key()] = s
	m.mu.Unlock()
	m.told(s)
	old.stop()
	<-old.done
	m.sync()
	return old.workdir, nil
}

// Announce tells Options.Changed a change the Manager cannot see itself:
// the configuration changed, a person approved a project's server.
func (m *Manager) Announce(c event.MCPChangedData) {
	if m.opts.Changed != nil {
		m.opts.Changed(c)
	}
}

// told tells the state of new servers, then starts them: a server starts
// connecting (or failed at once, a sandboxed one where there is no
// sandbox), and its supervisor tells only what changes after, so its
// first state is always told first, however fast it fails. It is called
// without m.mu held.
func (m *Manager) told(list ...*server) {
	for _, s := range list {
		s.tell()
		s.launchRun()
	}
}

// Wait waits until every server of the scopes given has connected or
// failed once, or ctx ends.
func (m *Manager) Wait(ctx context.Context, workdirs ...string) {
	m.mu.Lock()
	var ready []chan struct{}
	for _, s := range m.servers {
		if slices.Contains(workdirs, s.workdir) {
			ready = append(ready, s.ready)
		}
	}
	m.mu.Unlock()
	for _, r := range ready {
		select {
		case <-r:
		case <-ctx.Done():
			return
		}
	}
}

// Close stops every server and removes their tools from the registry.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, s)
	}
	m.servers = map[string]*server{}
	m.mu.Unlock()
	for _, s := range list {
		s.stop()
	}
	for _, s := range list {
		<-s.done
	}
	m.sync()
}

// Statuses lists the servers, user's first, by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, s)
	}
	m.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].key() < list[j].key() })
	deferred := m.deferredNow()
	out := make([]Status, len(list))
	for i, s := range list {
		out[i] = s.status()
		out[i].Deferred = deferred && !s.entry.AlwaysLoad
	}
	return out
}

func (m *Manager) deferredNow() bool {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	for _, form := range m.registered {
		if strings.HasPrefix(form, string(tools.Deferred)) {
			return true
		}
	}
	return false
}

// find returns the server of a scope by name; a project's server wins
// over the user's of the same name.
func (m *Manager) find(workdir, name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.servers[workdir+"\x00"+name]; ok && workdir != "" {
		return s, nil
	}
	if s, ok := m.servers["\x00"+name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no MCP server %q: see foya mcp list", name)
}

// sync makes the registry hold exactly the ready servers' tools, deferred
// when they are too large together.
func (m *Manager) sync() {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	m.mu.Lock()
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, s)
	}
	m.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].key() < list[j].key() })

	type want struct {
		t    *tool
		form string
	}
	wanted := map[string]want{}
	taken := func(n string) bool {
		if _, ok := wanted[n]; ok {
			return true
		}
		_, _, exists := m.opts.Registry.Lookup(n)
		_, ours := m.registered[n]
		return exists && !ours
	}
	tokens := 0
	for _, s := range list {
		s.mu.Lock()
		ts := slices.Clone(s.tools)
		s.mu.Unlock()
		for _, mt := range ts {
			schema := inputSchema(mt)
			name := ToolName(s.entry.Name, mt.Name, taken)
			t := &tool{s: s, raw: mt.Name, spec: tools.Spec{Name: name, Description: describe(s.entry.Name, mt), Schema: schema}}
			if h := mt.Annotations.ReadOnlyHint; h != nil && *h {
				t.readOnlyHint = true
			}
			tokens += (len(name) + len(t.spec.Description) + len(schema)) / 4
			wanted[name] = want{t: t}
		}
	}
	deferAll := false
	if limit := m.opts.DeferTokens(); limit > 0 && tokens > limit {
		deferAll = true
	}
	for name, w := range wanted {
		w.t.spec.Exposure = tools.Direct
		if deferAll && !w.t.s.entry.AlwaysLoad {
			w.t.spec.Exposure = tools.Deferred
		}
		w.form = string(w.t.spec.Exposure) + "\x00" + w.t.s.key() + "\x00" + w.t.raw + "\x00" + w.t.spec.Description + "\x00" + string(w.t.spec.Schema)
		wanted[name] = w
	}
	for name, form := range m.registered {
		if w, ok := wanted[name]; !ok || w.form != form {
			m.opts.Registry.Remove(name)
			delete(m.registered, name)
		}
	}
	for name, w := range wanted {
		if _, ok := m.registered[name]; ok {
			continue
		}
		if err := m.opts.Registry.Put(w.t); err != nil {
			w.t.s.mu.Lock()
			w.t.s.err = fmt.Sprintf("tool %q left out: %v", w.t.raw, err)
			w.t.s.mu.Unlock()
			continue
		}
		m.registered[name] = w.form
	}
}

// inputSchema returns a tool's input schema as JSON, an empty object
// schema when it has none.
func inputSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	data, err := json.Marshal(t)
	if err == nil {
		var w struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(data, &w) == nil && len(w.InputSchema) > 0 && string(w.InputSchema) != "null" {
			return w.InputSchema
		}
	}
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

// maxDescription bounds a tool description from a server.
const maxDescription = 4 << 10

func describe(server string, t mcp.Tool) string {
	d := strings.TrimSpace(t.Description)
	if d == "" {
		d = t.Title
	}
	return bounded(fmt.Sprintf("%s (tool %q of MCP server %s)", d, t.Name, server), maxDescription)
}

// bounded cuts s to at most n bytes at a character boundary.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func homeDir() (string, error) { return os.UserHomeDir() }
