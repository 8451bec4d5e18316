package mcpconfig

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"foya/backend/mcp"
	"foya/backend/mcp/mcptest"
	"foya/backend/store"
	"foya/backend/tools"
	"foya/backend/trust"
)

func newServers(t *testing.T, environ func() []string) *Servers {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "foya.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(Options{DataDir: t.TempDir(), Trust: trust.New(st), Manager: mcp.Options{Registry: tools.NewRegistry(), Environ: environ}})
	t.Cleanup(s.Close)
	return s
}

func find(t *testing.T, s *Servers, dir, name string) Server {
	t.Helper()
	list, err := s.List(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list.Servers, func(v Server) bool { return v.Name == name })
	if i < 0 {
		t.Fatalf("no %s in %+v", name, list)
	}
	return list.Servers[i]
}

// TestApprovalCoversRunVars: a project's .mcp.json that reads the
// environment shows the variables it reads; approved, it starts with them
// expanded (it connects to the URL a variable gives). A new value of a
// variable of its URL un-approves it, naming the variable; a new value of
// one its headers alone read (a token) does not.
// spec: M2
func TestApprovalCoversRunVars(t *testing.T) {
	srv := mcptest.NewHTTP()
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	env := []string{"MCP_BASE=" + srv.URL, "MCP_TOKEN=one"}
	s := newServers(t, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(env) })
	setEnv := func(kv ...string) { mu.Lock(); env = kv; mu.Unlock() }
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"remote":
		{"url": "${MCP_BASE}", "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	v := find(t, s, dir, "remote")
	if v.State != Unapproved || !slices.Equal(v.Vars, []string{"MCP_BASE"}) || !slices.Equal(v.PassVars, []string{"MCP_TOKEN"}) || v.URL != "${MCP_BASE}" {
		t.Fatalf("before approving: %+v", v)
	}
	v, err := s.Approve(context.Background(), dir, "remote", Approval{Fingerprint: v.Fingerprint})
	if err != nil {
		t.Fatal(err)
	}
	if v.State != mcp.Ready {
		t.Fatalf("approved: %s (%s); want ready at the expanded URL", v.State, v.Error)
	}
	setEnv("MCP_BASE="+srv.URL, "MCP_TOKEN=two")
	if v := find(t, s, dir, "remote"); v.State == Unapproved {
		t.Errorf("a new token un-approved it: %s", v.Error)
	}
	setEnv("MCP_BASE=http://127.0.0.1:1/elsewhere", "MCP_TOKEN=two")
	if v := find(t, s, dir, "remote"); v.State != Unapproved || !strings.Contains(v.Error, "${MCP_BASE}") || !strings.Contains(v.Error, "changed since") {
		t.Errorf("a new URL: %s (%s); want unapproved, naming ${MCP_BASE}", v.State, v.Error)
	}
	setEnv("MCP_TOKEN=two")
	if v := find(t, s, dir, "remote"); v.State != Unapproved || !strings.Contains(v.Error, "${MCP_BASE}") {
		t.Errorf("unset: %s (%s); want unapproved, naming ${MCP_BASE}", v.State, v.Error)
	}
}

// TestDialURLSilentServer: a server that takes the initialize POST and
// never answers fails over streamable HTTP alone: Foya does not try SSE
// (no GET reaches it), which would only wait as long again.
// spec: M1
func TestDialURLSilentServer(t *testing.T) {
	var posts, gets atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			posts.Add(1)
		case http.MethodGet:
			gets.Add(1)
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	s := newServers(t, nil)
	s.opts.InitTimeout = 200 * 1e6 // the handshake's bound; the test waits on the error
	_, err := s.DialURL(context.Background(), srv.URL, nil, false, DialAuth{})
	if err == nil || !strings.Contains(err.Error(), "did not complete the MCP handshake") || strings.Contains(err.Error(), "SSE was tried") {
		t.Fatalf("err = %v; want the handshake's silence, no SSE", err)
	}
	if posts.Load() != 1 || gets.Load() != 0 {
		t.Errorf("%d POSTs, %d GETs; want one POST and no SSE GET", posts.Load(), gets.Load())
	}
}

// TestDialURLFallsBackToSSE: a server that speaks only SSE refuses the
// streamable HTTP POST with a 4xx; Foya then connects over SSE. One that
// refuses and does not speak SSE either fails with both reasons.
// spec: M1
func TestDialURLFallsBackToSSE(t *testing.T) {
	h := server.NewSSEServer(mcptest.New())
	sse := httptest.NewServer(h)
	server.WithBaseURL(sse.URL)(h)
	t.Cleanup(sse.Close)
	s := newServers(t, nil)
	one, err := s.DialURL(context.Background(), sse.URL+"/sse", nil, false, DialAuth{})
	if err != nil {
		t.Fatalf("an SSE server: %v", err)
	}
	list, err := one.Tools()
	one.Close()
	if err != nil || len(list) == 0 {
		t.Errorf("tools over SSE: %d, %v", len(list), err)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(gone.Close)
	if _, err := s.DialURL(context.Background(), gone.URL, nil, false, DialAuth{}); err == nil || !strings.Contains(err.Error(), "SSE was tried") {
		t.Errorf("404 everywhere: %v; want both transports' failures", err)
	}
}
