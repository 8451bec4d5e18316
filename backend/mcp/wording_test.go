package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"foya/backend/event"
	mcpc "foya/backend/mcp"
	"foya/backend/tools"
)

// TestHTTPServerDeathWording: an HTTP server that dies during a call is
// told as a server that stopped or cannot be reached, with its URL, in
// the call's result and in its status; never as mcp-go's "unexpected nil
// response".
// spec: K5, T4
func TestHTTPServerDeathWording(t *testing.T) {
	s := server.NewMCPServer("dying", "1.0.0", server.WithToolCapabilities(false))
	var srv *httptest.Server
	seen := make(chan struct{}) // the client got the progress: its stream is open
	var once sync.Once
	s.AddTool(mcp.NewTool("die", mcp.WithDescription("Stop the server mid-call.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// A first progress makes the answer an event stream, as a
			// long call's is; then the server goes away.
			if r.Params.Meta != nil && r.Params.Meta.ProgressToken != nil {
				server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": r.Params.Meta.ProgressToken, "progress": 1})
				select {
				case <-seen:
				case <-ctx.Done():
				}
			}
			srv.Listener.Close()
			srv.CloseClientConnections()
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv = httptest.NewUnstartedServer(server.NewStreamableHTTPServer(s))
	srv.Start()          // after srv is set: the handler reads it
	t.Cleanup(srv.Close) // after the client closes: its listening stream stays open until then
	m, reg := newManager(t, mcpc.Options{})
	m.Set("", []mcpc.Entry{{Name: "remote", URL: srv.URL}})
	m.Wait(context.Background(), "")
	if st := status(m, "remote"); st.State != mcpc.Ready {
		t.Fatalf("status = %+v; want ready", st)
	}
	bad := []string{"unexpected nil response", "transport error", "nil"}
	check := func(what, text string) {
		t.Helper()
		t.Logf("%s: %s", what, text)
		if !strings.Contains(text, srv.URL) || !(strings.Contains(text, "stopped") || strings.Contains(text, "cannot be reached")) {
			t.Errorf("%s = %q; want the server stopped or unreachable, with its URL %s", what, text, srv.URL)
		}
		for _, b := range bad {
			if strings.Contains(text, b) {
				t.Errorf("%s = %q; it says %q", what, text, b)
			}
		}
	}
	rc := &tools.RunContext{Update: func(event.Progress) { once.Do(func() { close(seen) }) }}
	r := call(t, reg, rc, "mcp__remote__die", `{}`)
	if !r.IsError {
		t.Fatalf("die = %+v; want is_error", r)
	}
	check("the call's result", r.Text)
	waitFor(t, "the reconnection to fail", func() bool { st := status(m, "remote"); return st.State == mcpc.Failed && st.Restarts >= 1 })
	check("the status", status(m, "remote").Error)
	r = call(t, reg, nil, "mcp__remote__die", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "is down") {
		t.Errorf("a call while it is down = %+v; want is_error saying it is down", r)
	}
	check("a call while it is down", r.Text)
}

// TestNoReadyWithoutConnection: while Foya ends a hung server's
// connection, the server is down, never "ready" with no connection: a
// call then says it is down and why, and the status agrees. The server's
// handler holds the session's closing DELETE, which Foya sends while it
// ends the connection, to look at the server in that moment.
// spec: K5, T4
func TestNoReadyWithoutConnection(t *testing.T) {
	s := server.NewMCPServer("hung", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("mute", mcp.WithDescription("Say nothing until cancelled.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo"), nil
		})
	h := server.NewStreamableHTTPServer(s)
	closing, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			first := false
			once.Do(func() { first = true })
			if first {
				close(closing)
				<-release
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the client closes: its listening stream stays open until then
	m, reg := newManager(t, mcpc.Options{})
	m.Set("", []mcpc.Entry{{Name: "remote", URL: srv.URL, Timeout: "300ms"}})
	m.Wait(context.Background(), "")
	r := call(t, reg, nil, "mcp__remote__mute", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "sent nothing for 300ms") {
		t.Fatalf("mute = %+v; want is_error: hung", r)
	}
	select {
	case <-closing:
	case <-time.After(time.Minute): // a hang guard, not a claim about speed
		t.Fatal("Foya never ended the hung server's session")
	}
	r = call(t, reg, nil, "mcp__remote__echo", `{}`)
	st := status(m, "remote")
	close(release)
	if !r.IsError || strings.Contains(r.Text, "ready") || !strings.Contains(r.Text, "is down") || !strings.Contains(r.Text, "sent nothing for 300ms") {
		t.Errorf("a call while Foya ends the hung connection = %q; want the server down, and why", r.Text)
	}
	if st.State != mcpc.Failed {
		t.Errorf("status then = %+v; want failed", st)
	}
	waitFor(t, "the reconnection", func() bool { st := status(m, "remote"); return st.State == mcpc.Ready && st.Restarts >= 1 })
}

// TestHTTPHandshakeSilenceWording: an HTTP or SSE server that takes the
// connection and never answers the handshake fails with its URL and its
// transport named, not with the stdio server's "standard output" hint.
// Issue 26 item 6 (wording).
// spec: K5
func TestHTTPHandshakeSilenceWording(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // takes the request, answers nothing
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close: its handlers must return
	m, _ := newManager(t, mcpc.Options{InitTimeout: 300 * time.Millisecond, Backoff: time.Hour})
	m.Set("", []mcpc.Entry{{Name: "mute", URL: srv.URL + "/mcp"}, {Name: "mutesse", Type: "sse", URL: srv.URL + "/sse"}})
	m.Wait(context.Background(), "")
	for name, want := range map[string]string{
		"mute":    "the server at " + srv.URL + "/mcp did not complete the MCP handshake within 300ms (is it an MCP server speaking streamable HTTP at that URL?)",
		"mutesse": "the server at " + srv.URL + "/sse did not complete the MCP handshake within 300ms (is it an MCP server speaking SSE at that URL?)",
	} {
		s := status(m, name)
		if s.State != mcpc.Failed || !strings.Contains(s.Error, want) || strings.Contains(s.Error, "standard output") {
			t.Errorf("%s: %+v; want failed with %q", name, s, want)
		}
	}
}
