package mcpconfig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"foya/backend/fault"
	"foya/backend/mcp"
	"foya/backend/mcp/mcpauth"
	"foya/backend/tools"
)

// One is a connection to one server of its own, beside the servers Foya
// runs for sessions: foya mcp tools and foya mcp call exercise a server
// with it. Close ends it.
type One struct {
	m     *mcp.Manager
	scope string
	name  string
}

// Tools returns the server's tools as it lists them.
func (o *One) Tools() ([]mcpgo.Tool, error) { return o.m.ServerTools(o.scope, o.name) }

// Call calls one tool with args (a JSON object or empty) and returns the
// server's result, an isError one included; an error says why there is
// none.
func (o *One) Call(ctx context.Context, tool string, args json.RawMessage) (*mcpgo.CallToolResult, error) {
	return o.m.CallTool(ctx, o.scope, o.name, tool, args)
}

// SetElicit sets how the server's questions (elicitation/create) are
// answered; without it they are declined.
func (o *One) SetElicit(fn mcp.ElicitFunc) { o.m.SetElicit(fn) }

// Close ends the connection and the server's process.
func (o *One) Close() { o.m.Close() }

// Dial connects to the server name as a session in workdir would use it:
// the project's (approved, and sandboxed as approved) wins over the
// user's of the same name. It fails with what to do when there is no such
// server, it is disabled or unapproved, or it does not connect.
func (s *Servers) Dial(ctx context.Context, workdir, name string, auth DialAuth) (*One, error) {
	if workdir != "" {
		var err error
		if workdir, err = filepath.Abs(workdir); err != nil {
			return nil, fault.Wrap(err, fault.ErrInvalid)
		}
		pes, files, _ := projectEntries(workdir)
		if i := slices.IndexFunc(pes, func(e mcp.Entry) bool { return e.Name == name }); i >= 0 {
			e, why, ok := s.runnable(ctx, workdir, pes[i])
			if !ok {
				return nil, fault.Wrap(fmt.Errorf("the MCP server %s of %s may not run: %s", name, files[name], why), fault.ErrInvalid)
			}
			return s.dial(ctx, workdir, e, auth)
		}
	}
	es, _ := mcp.ReadFile(s.file)
	i := slices.IndexFunc(es, func(e mcp.Entry) bool { return e.Name == name })
	if i < 0 {
		where := s.file
		if workdir != "" {
			where += " nor in the project's .foya/mcp.json or .mcp.json at " + workdir
		}
		return nil, notFound("no MCP server %q in %s: see foya mcp list, or give --url URL", name, where)
	}
	if ws, exposed := s.trust.Exposed(ctx, s.file, workdir); exposed {
		return nil, fault.Wrap(fmt.Errorf("%s lies inside the workspace %s of a session, where its agent can write, so Foya does not start its servers: "+
			"keep Foya's data folder out of your workspaces", s.file, ws), fault.ErrInvalid)
	}
	if es[i].Disabled {
		return nil, fault.Wrap(fmt.Errorf("MCP server %s is disabled in %s: remove \"disabled\" from its entry to use it", name, s.file), fault.ErrInvalid)
	}
	return s.dial(ctx, "", es[i], auth)
}

// DialURL connects to the server at a URL: streamable HTTP, or SSE with
// sse set; without it, a server that refuses streamable HTTP's
// initialize with a 4xx (it speaks only SSE) is tried over SSE. A server
// that does not answer, cannot be reached or asks for authorization (a
// failed sign-in included) is not: SSE would only wait as long again.
func (s *Servers) DialURL(ctx context.Context, rawURL string, headers map[string]string, sse bool, auth DialAuth) (*One, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fault.Wrap(fmt.Errorf("%q is not an http:// or https:// URL", rawURL), fault.ErrInvalid)
	}
	e := mcp.Entry{Name: u.Host, URL: rawURL, Headers: headers, Type: mcp.HTTP}
	if sse {
		e.Type = mcp.SSE
		return s.dial(ctx, "", e, auth)
	}
	one, err := s.dial(ctx, "", e, auth)
	var refused errRefusedHTTP
	if err == nil || !errors.As(err, &refused) {
		return one, err
	}
	e.Type = mcp.SSE
	one, sseErr := s.dial(ctx, "", e, auth)
	if sseErr != nil {
		return nil, fmt.Errorf("%w; it refused streamable HTTP (a 4xx to its initialize POST), so SSE was tried too: %v", err, sseErr)
	}
	return one, nil
}

// errRefusedHTTP is a dial's error when the server refused streamable
// HTTP (mcp.Manager.RefusedHTTP).
type errRefusedHTTP struct{ error }

func (e errRefusedHTTP) Unwrap() error { return e.error }

// DialAuth is how a command signs in to the server it dials: the client
// settings its flags give (nil: the entry's own), and Opened, told the
// authorization page's address when a sign-in opens it.
type DialAuth struct {
	Config *mcpauth.Config
	Opened func(url string)
}

// errSignIn marks a sign-in that failed.
var errSignIn = errors.New("sign-in failed")

// dial runs e alone in a manager of its own and waits for its first
// connection; a server that asks for a sign-in gets it there and then,
// the person at the command line answering in the browser.
func (s *Servers) dial(ctx context.Context, scope string, e mcp.Entry, auth DialAuth) (*One, error) {
	o := s.opts
	o.Registry = tools.NewRegistry()
	o.Changed = nil
	o.DeferTokens = nil
	o.Backoff = time.Hour // one attempt: the person runs the command again
	if auth.Config != nil {
		if e.Transport() == mcp.Stdio {
			return nil, fault.Wrap(fmt.Errorf("MCP server %s is a stdio server: client IDs, secrets, keys and grants apply to HTTP servers only", e.Name), fault.ErrInvalid)
		}
		if err := auth.Config.Check(); err != nil {
			return nil, fault.Wrap(err, fault.ErrInvalid)
		}
		e.OAuth = auth.Config
	}
	if o.OAuth != nil {
		ao := *o.OAuth
		ao.Interactive = true
		if opened := auth.Opened; opened != nil {
			open := ao.Opener
			if open == nil {
				open = mcpauth.SystemOpener
			}
			ao.Opener = func(ctx context.Context, u string) error {
				opened(u)
				return open(ctx, u)
			}
		}
		o.OAuth = &ao
	}
	m := mcp.NewManager(o)
	m.Set(scope, []mcp.Entry{e})
	m.Wait(ctx, scope)
	for _, st := range m.Statuses() {
		if st.State != mcp.Ready && st.SignIn == mcpauth.SignInNeeded {
			if _, err := m.SignIn(ctx, scope, e.Name); err != nil {
				m.Close()
				return nil, fmt.Errorf("MCP server %s needs a sign-in, which failed: %w: %w", e.Name, err, errSignIn)
			}
			m.Wait(ctx, scope)
		}
	}
	for _, st := range m.Statuses() {
		if st.State != mcp.Ready {
			refused := m.RefusedHTTP(scope, e.Name)
			m.Close()
			msg := st.Error
			if st.Stderr != "" {
				msg += "; its standard error ends with:\n" + st.Stderr
			}
			err := fmt.Errorf("MCP server %s did not connect: %s", e.Name, msg)
			if refused {
				return nil, errRefusedHTTP{err}
			}
			return nil, err
		}
	}
	return &One{m: m, scope: scope, name: e.Name}, nil
}
