package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"foya/backend/sandbox"
)

// tail keeps the last bytes a server wrote to its standard error.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// Lines returns at most n last lines.
func (t *tail) Lines(n int) string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	s = strings.TrimRight(strings.ToValidUTF8(s, "\uFFFD"), "\n")
	if lines := strings.Split(s, "\n"); len(lines) > n {
		s = strings.Join(lines[len(lines)-n:], "\n")
	}
	return s
}

// conn is one live connection to a server.
type conn struct {
	client *client.Client
	// done is closed when the server is gone: its process exited or the
	// HTTP connection was lost.
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	exit string // how it ended, once done
	// stderr returns the last lines of the server's standard error.
	stderr func(n int) string
	// kill ends the server's process tree (nil for HTTP).
	kill func()
}

func (c *conn) end(why string) {
	c.once.Do(func() {
		c.mu.Lock()
		c.exit = why
		c.mu.Unlock()
		close(c.done)
	})
}

func (c *conn) exitText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

// close ends the connection and the process.
func (c *conn) close() {
	if c.kill != nil {
		c.kill()
	}
	_ = c.client.Close()
	c.end("closed by Foya")
}

// Launch says how a stdio server starts: its folder, environment and, if
// sandboxed, the sandbox policy.
type Launch struct {
	Dir     string
	Environ []string
	// Policy is set for a sandboxed server; Writable already holds the
	// workspace.
	Policy *sandbox.Policy
	// Auth, set for an HTTP server that may ask for a sign-in, wraps the
	// connection's HTTP transport (mcpauth.Session.Wrap).
	Auth func(http.RoundTripper) http.RoundTripper
}

// dial connects to a server and completes the MCP handshake within
// timeout. Notifications go to onNote.
func dial(ctx context.Context, e Entry, l Launch, timeout time.Duration, onNote func(mcp.JSONRPCNotification), opts []client.ClientOption) (*conn, error) {
	var c *conn
	var err error
	switch e.Transport() {
	case Stdio:
		if l.Policy != nil {
			c, err = startSandboxed(e, l, opts)
		} else {
			c, err = startProcess(e, l, opts)
		}
	default:
		c, err = startHTTP(e, l, opts)
	}
	if err != nil {
		return nil, err
	}
	c.client.OnNotification(onNote)
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	init := make(chan error, 1)
	go func() {
		// Start gets the supervisor's context, not the handshake's: an SSE
		// transport keeps its event stream open for as long as that
		// context lives, so a context that ends with dial would end the
		// connection (the server then knows no session). The handshake is
		// still bounded: on timeout, close ends the transport.
		if err := c.client.Start(ctx); err != nil {
			init <- err
			return
		}
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
		req.Params.ClientInfo = mcp.Implementation{Name: "foya", Version: "1"}
		_, err := c.client.Initialize(ictx, req)
		init <- err
	}()
	select {
	case err = <-init:
	case <-c.done:
		err = fmt.Errorf("the server ended before the handshake (%s)", c.exitText())
	case <-ictx.Done():
		err = handshakeSilence(e, timeout)
	}
	if err != nil && c.kill != nil {
		// A transport error often comes just before the process's exit:
		// say how it ended when it does.
		select {
		case <-c.done:
			err = fmt.Errorf("the server ended before the handshake (%s)", c.exitText())
		case <-time.After(time.Second):
		}
	}
	if why, ok := unreachable(err); ok && e.Transport() != Stdio {
		err = fmt.Errorf("the server at %s cannot be reached: %s", e.URL, why)
	}
	if err != nil {
		c.close()
		if c.stderr != nil {
			if s := c.stderr(5); s != "" {
				err = fmt.Errorf("%w; its standard error ends with: %s", err, s)
			}
		}
		return nil, err
	}
	return c, nil
}

// environ is base with the entry's variables added or replacing.
func environ(base []string, set map[string]string) []string {
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+set[k])
	}
	return out
}

// entryDir is an entry's cwd, a relative one taken from the folder the
// server starts in (the project's, for a project's server), as
// Entry.Code reads it.
func entryDir(dir, cwd string) string {
	if dir == "" {
		return cwd
	}
	return abs(dir, cwd)
}

// startProcess starts a stdio server as a plain child process in its own
// process group.
func startProcess(e Entry, l Launch, opts []client.ClientOption) (*conn, error) {
	cmd := exec.Command(e.Command, e.Args...)
	cmd.Dir = l.Dir
	if e.Cwd != "" {
		cmd.Dir = entryDir(l.Dir, e.Cwd)
	}
	if cmd.Dir != "" {
		// exec would report a missing folder as a missing program.
		if fi, err := os.Stat(cmd.Dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("start %s: its folder %s is not there: fix the entry's cwd or make the folder", e.Command, cmd.Dir)
		}
	}
	cmd.Env = environ(l.Environ, e.Env)
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", e.Command, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", e.Command, err)
	}
	errs := &tail{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", e.Command, err)
	}
	c := &conn{done: make(chan struct{}), stderr: errs.Lines}
	c.kill = func() { killGroup(cmd) }
	c.client = client.NewClient(transport.NewIO(stdout, stdin, nil), opts...)
	go func() {
		err := cmd.Wait()
		why := "exited with status 0"
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			why = ee.ProcessState.String()
		case err != nil:
			why = err.Error()
		}
		killGroup(cmd) // what it left behind
		c.end(why)
	}()
	return c, nil
}

// startSandboxed starts a stdio server in the sandbox. The sandbox keeps
// a process's output to itself, so the server talks through two FIFOs in
// a private folder the sandbox lets it write; its standard error is the
// sandbox's output tail.
func startSandboxed(e Entry, l Launch, opts []client.ClientOption) (*conn, error) {
	dir, in, out, err := fifos()
	if err != nil {
		return nil, err
	}
	pol := *l.Policy
	pol.Restricted = true
	pol.Writable = append(append([]string(nil), pol.Writable...), dir)
	script := "exec " + e.CommandLine() + ` <"$FOYA_MCP_DIR/in" >"$FOYA_MCP_DIR/out"`
	env := environ(l.Environ, e.Env)
	env = append(env, "FOYA_MCP_DIR="+dir)
	wd := l.Dir
	if e.Cwd != "" {
		wd = entryDir(l.Dir, e.Cwd)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := sandbox.Start(ctx, sandbox.Command{Script: script, Dir: wd, Env: env, Policy: pol})
	if err != nil {
		cancel()
		in.Close()
		out.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s in the sandbox: %w", e.Command, err)
	}
	c := &conn{done: make(chan struct{})}
	c.stderr = func(n int) string {
		data, _, _ := p.Read(0)
		t := &tail{buf: data}
		return t.Lines(n)
	}
	c.kill = cancel
	c.client = client.NewClient(transport.NewIO(out, in, nil), opts...)
	go func() {
		<-p.Done()
		why := "ended"
		if r, ok := p.Result(); ok {
			why = fmt.Sprintf("exited with status %d %s(sandbox: %s)", r.ExitCode, r.Signal, r.Sandbox)
		}
		cancel()
		in.Close()
		out.Close()
		os.RemoveAll(dir)
		c.end(why)
	}()
	return c, nil
}

// quiet discards mcp-go's transport logs.
var quiet = slog.New(slog.DiscardHandler)

// startHTTP connects to a streamable HTTP or SSE server.
func startHTTP(e Entry, l Launch, opts []client.ClientOption) (*conn, error) {
	var t transport.Interface
	base := http.DefaultTransport
	if l.Auth != nil {
		base = l.Auth(base)
	}
	if e.Transport() == SSE {
		sse, err := transport.NewSSE(e.URL, transport.WithHeaders(e.Headers), transport.WithHTTPClient(&http.Client{Transport: base}))
		if err != nil {
			return nil, fmt.Errorf("connect to %s: %w", e.URL, err)
		}
		t = cancellingSSE{sse}
	} else {
		// The listening stream (a GET the server answers with an event
		// stream) carries what the server says outside a call: a changed
		// tool list, logging, its requests (roots/list). Without it an HTTP
		// server could tell Foya nothing between calls. A server that
		// answers 405 has none; calls go on as before. mcp-go logs to the
		// default logger, which would write into Foya's output: what
		// matters reaches the server's status instead.
		h, err := transport.NewStreamableHTTP(e.URL, transport.WithHTTPHeaders(e.Headers),
			transport.WithContinuousListening(), transport.WithHTTPLogger(quiet),
			transport.WithHTTPBasicClient(&http.Client{Transport: &resumer{base: base}}))
		if err != nil {
			return nil, fmt.Errorf("connect to %s: %w", e.URL, err)
		}
		t = cancellingHTTP{h}
	}
	c := &conn{done: make(chan struct{})}
	c.client = client.NewClient(t, opts...)
	c.client.OnConnectionLost(func(err error) { c.end("connection lost: " + err.Error()) })
	return c, nil
}

// mcp-go's client sends notifications/cancelled for a request whose
// context ends only over stdio: for a transport that is an
// transport.HTTPConnection it sends nothing (Client.cancelRequest in
// client/client.go of v1.2.1), so a server on a protocol version before
// 2026-07-28 (the only ones Foya speaks, WithLegacyProtocolOnly) would go
// on working on a call Foya gave up. cancellingHTTP and cancellingSSE wrap
// the two HTTP transports, keep every method they have (so the client
// still sees an HTTPConnection, a connection-lost setter and a request
// handler), and send the notification themselves when a request's context
// ends before its answer (docs/ARCHITECTURE.md, "MCP servers").
type cancellingHTTP struct{ *transport.StreamableHTTP }

// SendRequest sends the request, and notifications/cancelled when ctx
// ends first.
func (c cancellingHTTP) SendRequest(ctx context.Context, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return sendCancelling(ctx, c.StreamableHTTP, r)
}

type cancellingSSE struct{ *transport.SSE }

// SendRequest sends the request, and notifications/cancelled when ctx
// ends first.
func (c cancellingSSE) SendRequest(ctx context.Context, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return sendCancelling(ctx, c.SSE, r)
}

// cancelTimeout bounds the sending of one notifications/cancelled.
const cancelTimeout = 5 * time.Second

func sendCancelling(ctx context.Context, t transport.Interface, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	res, err := t.SendRequest(ctx, r)
	if err == nil || ctx.Err() == nil || r.Method == string(mcp.MethodInitialize) {
		return res, err
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": r.ID, "reason": "cancelled by Foya: " + ctx.Err().Error()}},
	}}
	// Best effort, off the caller's path: the caller has its error, and a
	// server that does not read must not hold it up.
	go func() {
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
		defer cancel()
		_ = t.SendNotification(nctx, n)
	}()
	return res, err
}

var (
	_ io.Writer                        = (*tail)(nil)
	_ transport.HTTPConnection         = cancellingHTTP{}
	_ transport.BidirectionalInterface = cancellingHTTP{}
	_ transport.HTTPConnection         = cancellingSSE{}
)
