// Command foya-notes is a small MCP server to try Foya's MCP support
// offline: it speaks MCP over its standard input and output (stdio), keeps
// notes in memory for as long as it runs, and offers them as tools
// (note_add, note_list), a resource (notes://all) and a prompt
// (summarize_notes). It is built with mcp-go's server package, like the
// servers of Foya's tests.
//
//	go build -o "$HOME/.local/bin/foya-notes" ./examples/mcp/foya-notes
//	foya mcp add notes -- "$HOME/.local/bin/foya-notes"
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// notes are the notes taken since the server started.
type notes struct {
	mu   sync.Mutex
	list []string
}

func (n *notes) add(s string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, s)
	return len(n.list)
}

func (n *notes) text() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.list) == 0 {
		return "(no notes yet)"
	}
	var b strings.Builder
	for i, s := range n.list {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	return strings.TrimRight(b.String(), "\n")
}

// newServer returns the notes server.
func newServer() *server.MCPServer {
	n := &notes{}
	s := server.NewMCPServer("foya-notes", "1.0.0", server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false))
	s.AddTool(mcp.NewTool("note_add", mcp.WithDescription("Add a note to the list; returns its number."),
		mcp.WithString("text", mcp.Required(), mcp.Description("The note."))),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := strings.TrimSpace(r.GetString("text", ""))
			if text == "" {
				return mcp.NewToolResultError("the note is empty: give its text"), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("note %d added", n.add(text))), nil
		})
	s.AddTool(mcp.NewTool("note_list", mcp.WithDescription("List the notes, numbered."), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(n.text()), nil
		})
	s.AddResource(mcp.NewResource("notes://all", "all notes", mcp.WithMIMEType("text/plain"),
		mcp.WithResourceDescription("Every note, numbered.")),
		func(ctx context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: n.text()}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("summarize_notes", mcp.WithPromptDescription("Ask for a summary of the notes.")),
		func(ctx context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("summarize the notes", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarize these notes in one paragraph:\n"+n.text()))}), nil
		})
	return s
}

func main() {
	if err := server.ServeStdio(newServer()); err != nil {
		fmt.Fprintln(os.Stderr, "foya-notes:", err)
		os.Exit(1)
	}
}
