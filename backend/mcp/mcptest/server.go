// Package mcptest is a real MCP server for tests, built with mcp-go's
// server package: served over stdio by a re-executed test binary (Main)
// or over streamable HTTP (NewHTTP). Its tools cover what Foya's client
// must handle: text, images, errors, progress, cancellation, a crash, a
// hang, a 10 MB result, a changed tool list, odd names, resources and
// prompts.
package mcptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Env selects what Main serves: "ok" (New over stdio), "garbage" (lines
// that are not JSON-RPC), "silent" (reads and never answers), "exit" (a
// message on standard error, then exit status 3).
const Env = "FOYA_MCP_TEST_SERVER"

// MarkEnv names a file the wait tool appends "started" to when its call
// arrives, and "cancelled" when it is cancelled.
const MarkEnv = "FOYA_MCP_TEST_MARK"

// Main serves as Env says and exits; it returns if Env is not set. Call it
// first in TestMain.
func Main() {
	mode := os.Getenv(Env)
	switch mode {
	case "":
		return
	case "ok":
		if err := server.ServeStdio(New()); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			os.Exit(1)
		}
	case ElicitMode:
		if err := server.ServeStdio(NewElicit()); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			os.Exit(1)
		}
	case LogMode:
		fmt.Fprintln(os.Stderr, "mcplog: ready to log")
		if err := server.ServeStdio(NewLogging()); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			os.Exit(1)
		}
	case "garbage":
		for range 100 {
			fmt.Println("this is not JSON-RPC {{{")
		}
		time.Sleep(time.Hour)
	case "silent":
		time.Sleep(time.Hour)
	case "exit":
		fmt.Fprintln(os.Stderr, "mcptest: cannot open the database: permission denied")
		os.Exit(3)
	}
	os.Exit(0)
}

// NewHTTP serves New over streamable HTTP on loopback.
func NewHTTP() *httptest.Server {
	return httptest.NewServer(server.NewStreamableHTTPServer(New()))
}

// PNG returns a small PNG image.
func PNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// New returns the test server.
func New() *server.MCPServer {
	s := server.NewMCPServer("mcptest", "1.0.0", server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false))
	text := func(t string) (*mcp.CallToolResult, error) { return mcp.NewToolResultText(t), nil }
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the text back."), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("echo: " + r.GetString("text", ""))
		})
	s.AddTool(mcp.NewTool("look", mcp.WithDescription("Read-only lookup."), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("looked") })
	s.AddTool(mcp.NewTool("picture", mcp.WithDescription("Return a PNG image.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := mcp.NewToolResultImage("a red dot", base64.StdEncoding.EncodeToString(PNG()), "image/png")
			res.Content = append(res.Content,
				mcp.NewAudioContent(base64.StdEncoding.EncodeToString([]byte("RIFF....")), "audio/wav"),
				mcp.NewResourceLink("file:///notes.txt", "notes", "the notes", "text/plain"),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///inline.txt", MIMEType: "text/plain", Text: "inline text"}))
			return res, nil
		})
	s.AddTool(mcp.NewTool("structured", mcp.WithDescription("Return structured content only.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("Always fails.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("the widget is broken"), nil
		})
	s.AddTool(mcp.NewTool("progress", mcp.WithDescription("Report progress three times.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r.Params.Meta != nil && r.Params.Meta.ProgressToken != nil {
				for i := 1; i <= 3; i++ {
					server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
						"progressToken": r.Params.Meta.ProgressToken, "progress": i, "total": 3, "message": fmt.Sprintf("step %d", i)})
					time.Sleep(20 * time.Millisecond)
				}
			}
			return text("progressed")
		})
	s.AddTool(mcp.NewTool("wait", mcp.WithDescription("Wait until cancelled.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mark := func(what string) {
				if f := os.Getenv(MarkEnv); f != "" {
					if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
						fh.WriteString(what + "\n")
						fh.Close()
					}
				}
			}
			mark("started")
			<-ctx.Done()
			mark("cancelled")
			return text("cancelled")
		})
	s.AddTool(mcp.NewTool("crash", mcp.WithDescription("Exit the server mid-call.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(7)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("hang", mcp.WithDescription("Never answer.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(time.Hour)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("big", mcp.WithDescription("Return 10 MB of text.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(strings.Repeat(strings.Repeat("x", 99)+"\n", 100_000))
		})
	s.AddTool(mcp.NewTool("grow", mcp.WithDescription("Add the tool late (the tool list changes).")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("late", mcp.WithDescription("A tool added later.")),
				func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("late tool ran")
				})
			return text("grown")
		})
	s.AddTool(mcp.NewTool("write", mcp.WithDescription("Write a file (\"written\" unless content says), making its folders with parents."),
		mcp.WithString("path", mcp.Required()), mcp.WithString("content"), mcp.WithBoolean("parents")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			path := r.GetString("path", "")
			if r.GetBool("parents", false) {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
			}
			if err := os.WriteFile(path, []byte(r.GetString("content", "written\n")), 0o600); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return text("wrote " + path)
		})
	s.AddTool(mcp.NewTool("roots", mcp.WithDescription("List the client's roots (roots/list), one URI a line.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return Roots(ctx, s)
		})
	s.AddTool(mcp.NewTool("has spaces in it", mcp.WithDescription("A tool whose name has spaces.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("spaces ok")
		})
	s.AddTool(mcp.NewTool(strings.Repeat("long", 50), mcp.WithDescription("A tool with a 200-character name.")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("long ok") })
	s.AddResource(mcp.NewResource("file:///notes.txt", "notes", mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "remember the milk"}}, nil
		})
	s.AddResource(mcp.NewResource("file:///dot.png", "dot", mcp.WithMIMEType("image/png")),
		func(ctx context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: r.Params.URI, MIMEType: "image/png", Blob: base64.StdEncoding.EncodeToString(PNG())}}, nil
		})
	s.AddResource(mcp.NewResource("file:///data.bin", "data", mcp.WithMIMEType("application/octet-stream")),
		func(ctx context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: r.Params.URI, MIMEType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 3})}}, nil
		})
	s.AddResource(mcp.NewResource("file:///big.txt", "big", mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: strings.Repeat("lorem ipsum\n", 100_000)}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("Greet someone."), mcp.WithArgument("name", mcp.RequiredArgument())),
		func(ctx context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("a greeting", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Say hello to "+r.Params.Arguments["name"]))}), nil
		})
	return s
}

// Roots asks the client of ctx's session for its roots (roots/list) and
// returns their URIs, one a line.
func Roots(ctx context.Context, s *server.MCPServer) (*mcp.CallToolResult, error) {
	res, err := s.RequestRoots(ctx, mcp.ListRootsRequest{})
	if err != nil {
		return mcp.NewToolResultError("roots/list: " + err.Error()), nil
	}
	var uris []string
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return mcp.NewToolResultText(strings.Join(uris, "\n")), nil
}
