package mcpconfig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"foya/backend/event"
	"foya/backend/fault"
	"foya/backend/mcp"
	"foya/backend/store"
	"foya/backend/trust"
)

// File is the user's MCP servers file in the data folder.
const File = "mcp.json"

// Project MCP files, in the order they are read.
var projectFiles = []string{filepath.Join(".foya", "mcp.json"), ".mcp.json"}

// loadWait bounds how long a load waits for the servers to connect.
const loadWait = 20 * time.Second

func (c Config) entry() mcp.Entry {
	return mcp.Entry{Name: c.Name, Type: c.Type, Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL,
		Headers: c.Headers, Sandbox: c.Sandbox, AlwaysLoad: c.AlwaysLoad, Timeout: c.Timeout}
}

// Options configure New.
type Options struct {
	// Manager configures the manager that runs the servers; its Verify is
	// Servers' own (a project's server starts only while approved).
	Manager mcp.Options
	// DataDir is the folder of the user's File.
	DataDir string
	// Trust keeps the approvals of projects' servers and says when the
	// user's File lies in a session's workspace.
	Trust *trust.Ledger
}

// Servers is the configured MCP servers and the manager that runs them.
type Servers struct {
	m *mcp.Manager
	// opts are m's options, for the one-server managers of Dial.
	opts  mcp.Options
	file  string
	trust *trust.Ledger
	mu    sync.Mutex // serializes loads
}

// fileMu serializes changes of the user's file, whichever Servers (of one
// process) makes them.
var fileMu sync.Mutex

// New returns the servers of o; none runs until a load.
func New(o Options) *Servers {
	s := &Servers{file: filepath.Join(o.DataDir, File), trust: o.Trust}
	mo := o.Manager
	// A project's server starts (and restarts) only while its approval
	// holds for its entry and code as they are then.
	mo.Verify = func(workdir string, e mcp.Entry) error {
		code, vars := s.covered(workdir, e)
		if _, why, ok := s.approval(context.Background(), workdir, e, code, vars); !ok {
			return errors.New(why)
		}
		return nil
	}
	s.m = mcp.NewManager(mo)
	s.opts = mo
	return s
}

// Close stops every server.
func (s *Servers) Close() { s.m.Close() }

// File is the path of the user's servers file.
func (s *Servers) File() string { return s.file }

// projectEntries reads a project's MCP files.
func projectEntries(workdir string) ([]mcp.Entry, map[string]string, []mcp.Problem) {
	var out []mcp.Entry
	files := map[string]string{}
	var problems []mcp.Problem
	for _, rel := range projectFiles {
		f := filepath.Join(workdir, rel)
		es, ps := mcp.ReadFile(f)
		problems = append(problems, ps...)
		for _, e := range es {
			if _, ok := files[e.Name]; !ok {
				files[e.Name] = f
				e.OAuth = projectOAuth(e.OAuth)
				out = append(out, e)
			}
		}
	}
	return out, files, problems
}

// Load gives the manager the user's servers and, for workdir, the
// project's approved ones, as the files say now (unchanged servers keep
// running; changed or unapproved ones stop), then waits (bounded) for them
// to connect, so that a run's first step sees their tools.
func (s *Servers) Load(ctx context.Context, workdir string) {
	s.mu.Lock()
	scopes := []string{""}
	// Like the user's rules, the user's servers file is not read while
	// any session's workspace holds it: that session's agent could have
	// written it. Servers started from it before keep running as they were.
	if _, exposed := s.trust.Exposed(ctx, s.file, workdir); !exposed {
		es, _ := mcp.ReadFile(s.file)
		s.m.Set("", es)
	}
	if workdir != "" {
		scopes = append(scopes, workdir)
		s.m.Workspace(workdir) // a root of the user's servers from now on
		es, _, _ := projectEntries(workdir)
		var run []mcp.Entry
		for _, e := range es {
			if e, _, ok := s.runnable(ctx, workdir, e); ok {
				run = append(run, e)
			}
		}
		s.m.Set(workdir, run)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, loadWait)
	defer cancel()
	s.m.Wait(ctx, scopes...)
}

// runnable returns a project's entry as it runs (a stdio server in the
// sandbox unless approved without), or why it may not run: it is not
// approved as it is now.
func (s *Servers) runnable(ctx context.Context, workdir string, e mcp.Entry) (mcp.Entry, string, bool) {
	code, vars := s.covered(workdir, e)
	a, why, ok := s.approval(ctx, workdir, e, code, vars)
	if !ok {
		return e, why, false
	}
	if e.Transport() == mcp.Stdio && !a.Unconfined {
		e.Sandbox = true
	}
	return e, "", true
}

// List lists the user's servers and, with a workdir, the project's,
// starting those that should run and waiting briefly for them.
func (s *Servers) List(ctx context.Context, workdir string) (List, error) {
	if workdir != "" {
		var err error
		if workdir, err = filepath.Abs(workdir); err != nil {
			return List{}, fault.Wrap(err, fault.ErrInvalid)
		}
	}
	s.Load(ctx, workdir)
	running := map[string]mcp.Status{}
	for _, st := range s.m.Statuses() {
		running[st.Workdir+"\x00"+st.Name] = st
	}
	list := List{Servers: []Server{}, Problems: []string{}}
	add := func(scope, file, wd string, e mcp.Entry, missing string) *Server {
		v := shown(e)
		v.Scope, v.File, v.State = scope, file, missing
		if r, ok := running[wd+"\x00"+e.Name]; ok && missing != Unapproved && missing != Disabled {
			v.State, v.Error, v.Stderr, v.Tools, v.Deferred, v.Sandbox, v.Restarts = r.State, r.Error, r.Stderr, r.Tools, r.Deferred, r.Sandbox, r.Restarts
			v.SignIn, v.SignInError = r.SignIn, r.SignInError
		}
		list.Servers = append(list.Servers, v)
		return &list.Servers[len(list.Servers)-1]
	}
	es, ps := mcp.ReadFile(s.file)
	for _, p := range ps {
		list.Problems = append(list.Problems, p.Error())
	}
	if ws, exposed := s.trust.Exposed(ctx, s.file, workdir); exposed && len(es) > 0 {
		list.Problems = append(list.Problems, fmt.Sprintf("%s lies inside the workspace %s of a session, where its agent can write, so Foya does not start "+
			"its servers: keep Foya's data folder out of your workspaces (open sessions on a subfolder and delete the one on %s, or point --db elsewhere)",
			s.file, ws, ws))
	}
	for _, e := range es {
		state := mcp.Stopped
		if e.Disabled {
			state = Disabled
		}
		v := add("user", s.file, "", e, state)
		v.Vars, v.PassVars = nil, nil // the user's entries run as written: nothing is read from the environment
	}
	if workdir != "" {
		pes, files, pps := projectEntries(workdir)
		for _, p := range pps {
			list.Problems = append(list.Problems, p.Error())
		}
		for _, e := range pes {
			state := Unapproved
			code, vars := s.covered(workdir, e)
			a, why, ok := s.approval(ctx, workdir, e, code, vars)
			if ok {
				state = mcp.Stopped
			}
			if e.Transport() == mcp.Stdio {
				e.Sandbox = !a.Unconfined // running status overrides
			}
			v := add("project", files[e.Name], workdir, e, state)
			v.Code, v.Fingerprint = code.Files(), fingerprint(e, code, vars)
			if !ok && strings.Contains(why, "changed since") {
				v.Error = why
			}
		}
	}
	return list, nil
}

// editFile reads the user's file, lets edit change its entries and
// writes it back, then reloads the user's servers. A file with problems is
// not rewritten: that would drop what could not be read.
func (s *Servers) editFile(ctx context.Context, edit func(es []mcp.Entry) ([]mcp.Entry, error)) error {
	fileMu.Lock()
	defer fileMu.Unlock()
	es, ps := mcp.ReadFile(s.file)
	if len(ps) > 0 {
		return fault.Errorf(fault.ErrConflict, "%s cannot be read (%s): fix or remove it first", s.file, ps[0].Error())
	}
	es, err := edit(es)
	if err != nil {
		return err
	}
	data, err := mcp.Marshal(es)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.file), 0o700); err != nil {
		return fmt.Errorf("save MCP servers: %w", err)
	}
	tmp := s.file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("save MCP servers: %w", err)
	}
	if err := os.Rename(tmp, s.file); err != nil {
		return fmt.Errorf("save MCP servers: %w", err)
	}
	s.Load(ctx, "")
	s.m.Announce(event.MCPChangedData{Change: event.MCPConfig})
	return nil
}

// notFound is an error meaning store.ErrNotFound with the text given.
func notFound(format string, a ...any) error {
	return fault.Errorf(store.ErrNotFound, format, a...)
}

// Add adds or replaces one of the user's servers; it starts at once.
func (s *Servers) Add(ctx context.Context, c Config) error {
	e := c.entry()
	if err := e.Validate(); err != nil {
		return fault.Errorf(fault.ErrInvalid, "MCP server %q: %w", c.Name, err)
	}
	return s.editFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		es = slices.DeleteFunc(es, func(x mcp.Entry) bool { return x.Name == e.Name })
		return append(es, e), nil
	})
}

// Remove removes one of the user's servers and stops it.
func (s *Servers) Remove(ctx context.Context, name string) error {
	return s.editFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		n := len(es)
		es = slices.DeleteFunc(es, func(x mcp.Entry) bool { return x.Name == name })
		if len(es) == n {
			return nil, notFound("no MCP server %q in %s", name, s.file)
		}
		return es, nil
	})
}

// Import copies the servers of a Claude Desktop, Cursor, Claude Code or
// VS Code file into the user's file; servers of a name already there are
// kept as they are. Variables in an entry's command, arguments,
// environment, URL and headers (${VAR}, ${VAR:-default}, ${env:VAR}) are
// expanded from Foya's environment now, as those programs expand them
// when they start the server (mcp.Entry.Expand). Entries that cannot be
// read or expanded are reported in Problems; the others are imported.
// When none can be, the error says why, every problem included, once.
func (s *Servers) Import(ctx context.Context, file string) (Imported, error) {
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Imported{}, fault.Errorf(fault.ErrInvalid, "import %s: %w", file, err)
	}
	parsed, ps := mcp.Parse(file, data)
	var in []mcp.Entry
	for _, e := range parsed {
		x, err := e.Expand(os.LookupEnv)
		if err != nil {
			ps = append(ps, mcp.Problem{File: file, What: err.Error()})
			continue
		}
		in = append(in, x)
	}
	res := Imported{Added: []string{}, Skipped: []string{}, Problems: []string{}}
	for _, p := range ps {
		res.Problems = append(res.Problems, p.Error())
	}
	if len(in) == 0 {
		if len(ps) > 0 {
			return res, fault.Errorf(fault.ErrInvalid, "nothing imported: %s", strings.Join(res.Problems, "; "))
		}
		return res, fault.Errorf(fault.ErrInvalid, "%s has no MCP servers", file)
	}
	err = s.editFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		for _, e := range in {
			if slices.ContainsFunc(es, func(x mcp.Entry) bool { return x.Name == e.Name }) {
				res.Skipped = append(res.Skipped, e.Name)
				continue
			}
			e.ImportedFrom = file
			es = append(es, e)
			res.Added = append(res.Added, e.Name)
		}
		return es, nil
	})
	return res, err
}

// SetAlwaysLoad sets whether one of the user's servers keeps its tools in
// every request even when MCP tools are deferred behind tool_search. A
// project's servers say so in the project's own file, which Foya does not
// rewrite.
func (s *Servers) SetAlwaysLoad(ctx context.Context, name string, on bool) error {
	return s.editFile(ctx, func(es []mcp.Entry) ([]mcp.Entry, error) {
		i := slices.IndexFunc(es, func(x mcp.Entry) bool { return x.Name == name })
		if i < 0 {
			return nil, notFound("no MCP server %q in %s: a project's server says \"alwaysLoad\" in the project's own file", name, s.file)
		}
		es[i].AlwaysLoad = on
		return es, nil
	})
}

// Restart stops a running server (the user's, or with a workdir the
// project's of that name) and starts it again at once, then waits briefly
// for it to be ready.
func (s *Servers) Restart(ctx context.Context, workdir, name string) (Server, error) {
	wd := s.scope(ctx, workdir)
	scope, err := s.m.Restart(wd, name)
	if err != nil {
		return Server{}, fault.Wrap(err, store.ErrNotFound)
	}
	return s.settled(ctx, wd, scope, name)
}

// settled waits (up to loadWait) for the servers of scope to have loaded
// again after a restart or a sign-in, and gives name's entry as listed then.
func (s *Servers) settled(ctx context.Context, wd, scope, name string) (Server, error) {
	wctx, cancel := context.WithTimeout(ctx, loadWait)
	s.m.Wait(wctx, scope)
	cancel()
	list, err := s.List(ctx, wd)
	if err != nil {
		return Server{}, err
	}
	want := "user"
	if scope != "" {
		want = "project"
	}
	for _, v := range list.Servers {
		if v.Name == name && v.Scope == want {
			return v, nil
		}
	}
	return Server{}, notFound("no MCP server %q", name)
}

// Resources lists a server's resources (a project's server for workdir
// wins over the user's of the same name).
func (s *Servers) Resources(ctx context.Context, workdir, server string) ([]Resource, error) {
	r, err := s.m.Resources(ctx, s.scope(ctx, workdir), server)
	return mapSlice(r, resourceOf), fault.Wrap(err, fault.ErrInvalid)
}

// ReadResource reads one resource; a front end may attach its text to the
// next prompt.
func (s *Servers) ReadResource(ctx context.Context, workdir, server, uri string) ([]Content, error) {
	c, err := s.m.ReadResource(ctx, s.scope(ctx, workdir), server, uri)
	return mapSlice(c, contentOf), fault.Wrap(err, fault.ErrInvalid)
}

// Prompts lists a server's prompts.
func (s *Servers) Prompts(ctx context.Context, workdir, server string) ([]Prompt, error) {
	p, err := s.m.Prompts(ctx, s.scope(ctx, workdir), server)
	return mapSlice(p, promptOf), fault.Wrap(err, fault.ErrInvalid)
}

// GetPrompt fills one prompt with arguments.
func (s *Servers) GetPrompt(ctx context.Context, workdir, server, name string, args map[string]string) ([]Message, error) {
	m, err := s.m.GetPrompt(ctx, s.scope(ctx, workdir), server, name, args)
	return mapSlice(m, messageOf), fault.Wrap(err, fault.ErrInvalid)
}

// scope loads the servers of workdir ("" for the user's alone) and returns
// its absolute path, the manager's scope.
func (s *Servers) scope(ctx context.Context, workdir string) string {
	if workdir == "" {
		s.Load(ctx, "")
		return ""
	}
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return ""
	}
	s.Load(ctx, abs)
	return abs
}
