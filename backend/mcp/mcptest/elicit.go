package mcptest

import (
	"context"
	"encoding/json"
	"net/http/httptest"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ElicitMode is the Env value that serves NewElicit over stdio.
const ElicitMode = "elicit"

// DefaultsSchema is a form whose every field has a default: a string, an
// integer, a number, an enum and a boolean (what the conformance scenario
// elicitation-sep1034-client-defaults checks a client applies).
const DefaultsSchema = `{"type":"object","properties":{
	"name":{"type":"string","default":"John Doe"},
	"age":{"type":"integer","default":30},
	"score":{"type":"number","default":95.5},
	"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","default":true}}}`

// NewElicit returns a server whose tool "ask" asks the client
// (elicitation/create) during the call and returns the client's answer as
// JSON text: {"action", "content", "_meta"}. Its arguments: "message";
// "schema", the requestedSchema as a JSON string (DefaultsSchema when
// empty); or "url", which asks in URL mode instead.
func NewElicit() *server.MCPServer {
	s := server.NewMCPServer("elicit", "1.0.0", server.WithToolCapabilities(true), server.WithElicitation())
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("Ask the user during the call."),
		mcp.WithString("message"), mcp.WithString("schema"), mcp.WithString("url")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p := mcp.ElicitationParams{Message: r.GetString("message", "Tell me more")}
			if u := r.GetString("url", ""); u != "" {
				p.Mode, p.URL, p.ElicitationID = mcp.ElicitationModeURL, u, "el-1"
			} else {
				raw := r.GetString("schema", DefaultsSchema)
				var schema any
				if err := json.Unmarshal([]byte(raw), &schema); err != nil {
					return mcp.NewToolResultError("bad schema argument: " + err.Error()), nil
				}
				p.RequestedSchema = schema
			}
			res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: p})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			out := map[string]any{"action": res.Action, "content": res.Content}
			if res.Meta != nil {
				out["_meta"] = res.Meta.AdditionalFields
			}
			b, _ := json.Marshal(out)
			return mcp.NewToolResultText(string(b)), nil
		})
	return s
}

// NewElicitHTTP serves NewElicit over streamable HTTP on loopback.
func NewElicitHTTP() *httptest.Server {
	return httptest.NewServer(server.NewStreamableHTTPServer(NewElicit()))
}
