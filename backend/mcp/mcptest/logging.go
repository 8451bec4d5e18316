package mcptest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// LogMode is the Env value that serves NewLogging over stdio.
const LogMode = "log"

// NewLogging returns a server that declares logging. It logs "level set
// to LEVEL" when the client sets its level. Its tool "log" sends
// a debug message (not shown at level info), an info message from the
// logger "indexer", a warning whose data is an object, and an error of
// 10 KB; "flood" sends 250 info messages numbered 1 to 250.
func NewLogging() *server.MCPServer {
	hooks := &server.Hooks{}
	s := server.NewMCPServer("mcplog", "1.0.0", server.WithToolCapabilities(false), server.WithLogging(), server.WithHooks(hooks))
	// mcp-go's sessions drop a notification when their queue is full
	// (ErrNotificationChannelBlocked): send again until it is taken, so
	// that every message reaches the client.
	send := func(ctx context.Context, level mcp.LoggingLevel, logger string, data any) {
		n := mcp.NewLoggingMessageNotification(level, logger, data)
		for server.ServerFromContext(ctx).SendLogMessageToClient(ctx, n) == server.ErrNotificationChannelBlocked && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	// Once the client sets a level, the server says so at that level.
	hooks.AddAfterSetLevel(func(ctx context.Context, id any, r *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		send(ctx, r.Params.Level, "mcplog", "level set to "+string(r.Params.Level))
	})
	s.AddTool(mcp.NewTool("log", mcp.WithDescription("Send log messages.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			send(ctx, mcp.LoggingLevelDebug, "indexer", "a debug detail")
			send(ctx, mcp.LoggingLevelInfo, "indexer", "indexed 12 files")
			send(ctx, mcp.LoggingLevelWarning, "", map[string]any{"disk": "low"})
			send(ctx, mcp.LoggingLevelError, "db", strings.Repeat("x", 10_000))
			return mcp.NewToolResultText("logged"), nil
		})
	s.AddTool(mcp.NewTool("flood", mcp.WithDescription("Send 250 log messages.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 250; i++ {
				send(ctx, mcp.LoggingLevelInfo, "", fmt.Sprintf("message %d", i))
			}
			return mcp.NewToolResultText("flooded"), nil
		})
	return s
}

// NewLoggingHTTP serves NewLogging over streamable HTTP on loopback.
func NewLoggingHTTP() *httptest.Server {
	return httptest.NewServer(server.NewStreamableHTTPServer(NewLogging()))
}
