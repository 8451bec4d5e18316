package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"foya/backend/mcp"
	"foya/backend/mcp/mcptest"
	"foya/backend/tools"
)

// The MCP benchmarks (figures in docs/benchmarks.md,
// "MCP"): calls of a real mcp-go server's echo tool over stdio (the test
// binary as a separate process) and streamable HTTP on loopback, once
// through Foya's tool (approval gateway, progress token, result
// conversion and bounds) and once through a bare mcp-go client, so that
// the difference is Foya's overhead per call; and tool_search over a
// large deferred set of MCP tools.
//
//	go test -run '^$' -bench 'MCP' -benchtime 2000x ./backend/mcp/

func benchEntries(b *testing.B) map[string]mcp.Entry {
	srv := mcptest.NewHTTP()
	b.Cleanup(srv.Close)
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return map[string]mcp.Entry{
		"stdio": {Name: "local", Command: exe, Env: map[string]string{mcptest.Env: "ok"}},
		"http":  {Name: "remote", URL: srv.URL},
	}
}

// BenchmarkMCPCallThroughFoya calls echo through the registered tool.
func BenchmarkMCPCallThroughFoya(b *testing.B) {
	for _, transport := range []string{"stdio", "http"} {
		b.Run(transport, func(b *testing.B) {
			e := benchEntries(b)[transport]
			reg := tools.NewRegistry()
			m := mcp.NewManager(mcp.Options{Registry: reg})
			b.Cleanup(m.Close)
			m.Set("", []mcp.Entry{e})
			m.Wait(context.Background(), "")
			tool, _, ok := reg.Lookup("mcp__" + e.Name + "__echo")
			if !ok {
				b.Fatalf("echo not registered: %+v", m.Statuses())
			}
			rc := &tools.RunContext{}
			args := json.RawMessage(`{"text":"hi"}`)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				r, err := tool.Run(context.Background(), rc, tools.Call{ID: fmt.Sprint("c", i), Name: "echo", Arguments: args})
				if err != nil || r.Text != "echo: hi" {
					b.Fatalf("echo = %+v, %v", r, err)
				}
			}
		})
	}
}

// BenchmarkMCPCallBareClient calls echo with mcp-go's client alone: the
// baseline of BenchmarkMCPCallThroughFoya.
func BenchmarkMCPCallBareClient(b *testing.B) {
	for _, transport := range []string{"stdio", "http"} {
		b.Run(transport, func(b *testing.B) {
			e := benchEntries(b)[transport]
			var c *client.Client
			var err error
			if transport == "stdio" {
				c, err = client.NewStdioMCPClient(e.Command, append(os.Environ(), mcptest.Env+"=ok"))
			} else {
				c, err = client.NewStreamableHttpClient(e.URL)
				if err == nil {
					err = c.Start(context.Background())
				}
			}
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			init := mcpgo.InitializeRequest{}
			init.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
			init.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "1"}
			if _, err := c.Initialize(context.Background(), init); err != nil {
				b.Fatal(err)
			}
			req := mcpgo.CallToolRequest{}
			req.Params.Name = "echo"
			req.Params.Arguments = json.RawMessage(`{"text":"hi"}`)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				r, err := c.CallTool(context.Background(), req)
				if err != nil || len(r.Content) != 1 {
					b.Fatalf("echo = %+v, %v", r, err)
				}
			}
		})
	}
}

// BenchmarkMCPToolSearch runs tool_search over the tools of a real
// server with n tools, all deferred (their schemas pass the share).
func BenchmarkMCPToolSearch(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("%d_tools", n), func(b *testing.B) {
			s := server.NewMCPServer("many", "1.0.0", server.WithToolCapabilities(false))
			for i := range n {
				s.AddTool(mcpgo.NewTool(fmt.Sprintf("tool_%04d", i),
					mcpgo.WithDescription(fmt.Sprintf("Operation %d on the %s of a %s record.", i, []string{"title", "body", "labels", "owner"}[i%4], []string{"issue", "ticket", "invoice", "order", "page"}[i%5])),
					mcpgo.WithString("id", mcpgo.Required())),
					func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
						return mcpgo.NewToolResultText("ok"), nil
					})
			}
			srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
			b.Cleanup(srv.Close)
			reg := tools.NewRegistry()
			reg.Add(tools.Search{})
			m := mcp.NewManager(mcp.Options{Registry: reg, DeferTokens: func() int { return 1 }})
			b.Cleanup(m.Close)
			m.Set("", []mcp.Entry{{Name: "many", URL: srv.URL}})
			m.Wait(context.Background(), "")
			if st := m.Statuses(); len(st) != 1 || st[0].Tools != n || !st[0].Deferred {
				b.Fatalf("status = %+v; want %d deferred tools", st, n)
			}
			args := json.RawMessage(`{"query":"labels of an invoice"}`)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				act := &activator{reg: reg, active: map[string]bool{}}
				r, err := tools.Search{}.Run(context.Background(), &tools.RunContext{Activator: act}, tools.Call{Arguments: args})
				if err != nil || r.IsError || len(act.active) == 0 {
					b.Fatalf("tool_search = %+v, %v; activated %v", r, err, act.active)
				}
			}
		})
	}
}
