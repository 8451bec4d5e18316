package mcp_test

import (
	"context"
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

// progressServer serves two tools: "work", which works for 5 seconds and
// reports progress every half second, and "mute", which works as long
// and says nothing.
func progressServer() *httptest.Server {
	s := server.NewMCPServer("progress", "1.0.0", server.WithToolCapabilities(false))
	work := func(report bool) server.ToolHandlerFunc {
		return func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tick := time.NewTicker(500 * time.Millisecond)
			defer tick.Stop()
			for i := 1; i <= 10; i++ {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-tick.C:
				}
				if report && r.Params.Meta != nil && r.Params.Meta.ProgressToken != nil {
					server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
						"progressToken": r.Params.Meta.ProgressToken, "progress": i, "total": 10})
				}
			}
			return mcp.NewToolResultText("worked"), nil
		}
	}
	s.AddTool(mcp.NewTool("work", mcp.WithDescription("Work 5 s, reporting progress.")), work(true))
	s.AddTool(mcp.NewTool("mute", mcp.WithDescription("Work 5 s, silently.")), work(false))
	return httptest.NewServer(server.NewStreamableHTTPServer(s))
}

// TestProgressKeepsACallAlive: the per-call timeout bounds silence, not
// work. With a 2 s timeout, a call that works 5 s and reports progress
// every half second succeeds and its server is not restarted; a call that
// says nothing for 2 s is declared hung and its server restarted.
// spec: K5, T4
func TestProgressKeepsACallAlive(t *testing.T) {
	srv := progressServer()
	t.Cleanup(srv.Close) // after the client closes: its listening stream stays open until then
	m, reg := newManager(t, mcpc.Options{})
	m.Set("", []mcpc.Entry{{Name: "slow", URL: srv.URL, Timeout: "2s"}})
	m.Wait(context.Background(), "")
	if s := status(m, "slow"); s.State != mcpc.Ready {
		t.Fatalf("status = %+v; want ready", s)
	}
	var mu sync.Mutex
	var updates []event.Progress
	rc := &tools.RunContext{Update: func(p event.Progress) { mu.Lock(); updates = append(updates, p); mu.Unlock() }}
	r := call(t, reg, rc, "mcp__slow__work", `{}`)
	if r.IsError || r.Text != "worked" {
		t.Fatalf("work = %+v; want the result of a call that reported progress", r)
	}
	mu.Lock()
	n := len(updates)
	mu.Unlock()
	if n == 0 {
		t.Error("no progress reached the call's RunContext")
	}
	if s := status(m, "slow"); s.State != mcpc.Ready || s.Restarts != 0 || s.Error != "" {
		t.Errorf("after the long call: %+v; want ready, never restarted", s)
	}

	r = call(t, reg, nil, "mcp__slow__mute", `{}`)
	if !r.IsError || !strings.Contains(r.Text, "sent nothing for 2s") || !strings.Contains(r.Text, "restarting it") {
		t.Fatalf("mute = %+v; want is_error: hung, restarting", r)
	}
	waitFor(t, "a restart after the silent call", func() bool { s := status(m, "slow"); return s.State == mcpc.Ready && s.Restarts >= 1 })
}
