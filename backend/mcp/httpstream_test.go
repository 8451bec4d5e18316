package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"foya/backend/mcp"
	"foya/backend/tools"
)

// TestHTTPStreamListChanged: a streamable HTTP server that adds a tool
// while Foya is connected, outside any call, tells it on its GET stream
// (notifications/tools/list_changed); Foya's registry gains the tool and a
// call to it works, as over stdio. A server that answers the GET stream
// with 405 keeps working for calls.
// spec: M1
func TestHTTPStreamListChanged(t *testing.T) {
	for _, noGET := range []bool{false, true} {
		name := "stream"
		if noGET {
			name = "no GET"
		}
		t.Run(name, func(t *testing.T) {
			s := server.NewMCPServer("later", "1", server.WithToolCapabilities(true))
			s.AddTool(mcpgo.NewTool("first"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("first ran"), nil
			})
			srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithDisableStreaming(noGET)))
			t.Cleanup(srv.Close) // after the manager's Close: the listening stream stays open until then
			m, reg := newManager(t, mcp.Options{})
			m.Set("", []mcp.Entry{{Name: "remote", URL: srv.URL}})
			m.Wait(context.Background(), "")
			if st := status(m, "remote"); st.State != mcp.Ready {
				t.Fatalf("state = %s (%s)", st.State, st.Error)
			}
			if r := call(t, reg, nil, "mcp__remote__first", `{}`); r.Text != "first ran" {
				t.Fatalf("first = %q", r.Text)
			}
			if noGET {
				return
			}
			// Added outside any call: only the listening stream can tell it.
			// The server tells only the sessions whose stream it has taken
			// in, and Foya opens it after the handshake, so the tool is
			// added again until Foya has it (each add notifies again).
			added := func() {
				s.AddTool(mcpgo.NewTool("added"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					return mcpgo.NewToolResultText("added ran"), nil
				})
			}
			waitFor(t, "the added tool", until("mcp__remote__added", reg, added))
			if r := call(t, reg, nil, "mcp__remote__added", `{}`); r.Text != "added ran" {
				t.Errorf("added = %q", r.Text)
			}
		})
	}
}

// TestHTTPStreamResumes: when the listening stream breaks, Foya opens it
// again with the Last-Event-ID of the last event it had, so a server that
// keeps its events (mcp-go's WithEventStore) sends again what came
// meanwhile: a tool added while the stream was down still reaches Foya.
// spec: M1
func TestHTTPStreamResumes(t *testing.T) {
	s := server.NewMCPServer("later", "1", server.WithToolCapabilities(true))
	add := func(name string) {
		s.AddTool(mcpgo.NewTool(name), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(name + " ran"), nil
		})
	}
	add("first")
	var gets atomic.Int32
	h := server.NewStreamableHTTPServer(s, server.WithEventStore(server.NewInMemoryEventStore()))
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			gets.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the manager's Close: the listening stream stays open until then
	m, reg := newManager(t, mcp.Options{})
	m.Set("", []mcp.Entry{{Name: "remote", URL: srv.URL}})
	m.Wait(context.Background(), "")
	// Seen on the first stream: its event ID is where to resume. Added
	// again until Foya has it, as the stream opens after the handshake.
	waitFor(t, "the second tool", until("mcp__remote__second", reg, func() { add("second") }))
	srv.CloseClientConnections() // the stream breaks
	add("third")                 // while it is down (or before it is back)
	waitFor(t, "the stream opened again", func() bool { return gets.Load() >= 2 })
	waitFor(t, "the third tool", func() bool { _, _, ok := reg.Lookup("mcp__remote__third"); return ok })
	if r := call(t, reg, nil, "mcp__remote__third", `{}`); r.Text != "third ran" {
		t.Errorf("third = %q", r.Text)
	}
}

// until is a waitFor condition: whether reg has the tool, doing again,
// every 20th look without it, what makes the server tell Foya of it.
func until(tool string, reg *tools.Registry, again func()) func() bool {
	n := 0
	return func() bool {
		if _, _, ok := reg.Lookup(tool); ok {
			return true
		}
		if n%20 == 0 {
			again()
		}
		n++
		return false
	}
}
