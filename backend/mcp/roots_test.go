package mcp_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"foya/backend/mcp"
	"foya/backend/mcp/mcptest"
	"foya/backend/tools"
)

// TestRoots: Foya answers a server's roots/list with the folders the
// server works for: a project's server, its project's folder; the user's
// own server, shared by every session, the workspaces of the sessions
// that loaded it, told again with notifications/roots/list_changed when
// one is added. Over stdio and over streamable HTTP, where the request
// comes on the listening stream.
// spec: M1
func TestRoots(t *testing.T) {
	project := t.TempDir()
	t.Run("project stdio", func(t *testing.T) {
		m, reg := newManager(t, mcp.Options{})
		m.Set(project, []mcp.Entry{stdioEntry(t, "local", "ok")})
		m.Wait(context.Background(), project)
		want := "file://" + filepath.ToSlash(project)
		if r := call(t, reg, &tools.RunContext{Workdir: project}, "mcp__local__roots", `{}`); r.Text != want || r.IsError {
			t.Errorf("roots = %q (error %v); want %q", r.Text, r.IsError, want)
		}
	})
	t.Run("user http", func(t *testing.T) {
		s := server.NewMCPServer("roots", "1", server.WithToolCapabilities(true), server.WithRoots())
		var changed atomic.Int32
		s.AddNotificationHandler(mcpgo.MethodNotificationRootsListChanged, func(context.Context, mcpgo.JSONRPCNotification) {
			changed.Add(1)
		})
		s.AddTool(mcpgo.NewTool("roots"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcptest.Roots(ctx, s)
		})
		srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
		t.Cleanup(srv.Close) // after the manager's Close: the listening stream stays open until then
		m, reg := newManager(t, mcp.Options{})
		m.Set("", []mcp.Entry{{Name: "remote", URL: srv.URL}})
		m.Wait(context.Background(), "")
		a, b := t.TempDir(), t.TempDir()
		m.Workspace(a)
		waitFor(t, "roots/list_changed", func() bool { return changed.Load() == 1 })
		if r := call(t, reg, nil, "mcp__remote__roots", `{}`); r.Text != "file://"+a || r.IsError {
			t.Errorf("roots = %q (error %v); want file://%s", r.Text, r.IsError, a)
		}
		m.Workspace(b)
		m.Workspace(a) // known: nothing to tell
		waitFor(t, "the second roots/list_changed", func() bool { return changed.Load() == 2 })
		want := "file://" + a + "\nfile://" + b
		if r := call(t, reg, nil, "mcp__remote__roots", `{}`); r.Text != want {
			t.Errorf("roots = %q; want %q", r.Text, want)
		}
		if n := changed.Load(); n != 2 {
			t.Errorf("roots/list_changed told %d times; want 2", n)
		}
	})
}
