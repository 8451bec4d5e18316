package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"foya/backend/event"
	"foya/backend/mcp/mcpconfig"
	pt "foya/backend/provider/providertest"
)

// noisePNG returns a PNG of random pixels, which does not compress: about
// 270 KB, as a photo read by a media tool.
func noisePNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 260, 260))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range 260 {
		for x := range 260 {
			img.Set(x, y, color.RGBA{R: uint8(r.IntN(256)), G: uint8(r.IntN(256)), B: uint8(r.IntN(256)), A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMCPMediaResultKeepsBase64FromTheModel: a tool that returns an image
// and repeats it, base64 and all, in structuredContent (as the reference
// filesystem server's read_media_file does) gives the model a short text
// with no base64; the image is kept as an artifact.
// spec: I1, I2, M1, O1
func TestMCPMediaResultKeepsBase64FromTheModel(t *testing.T) {
	pic := noisePNG(t)
	b64 := base64.StdEncoding.EncodeToString(pic)
	s := server.NewMCPServer("media", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("read_media_file", mcp.WithDescription("Read an image."), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content: []mcp.Content{mcp.NewImageContent(b64, "image/png")},
				StructuredContent: map[string]any{"content": []any{
					map[string]any{"type": "image", "data": b64, "mimeType": "image/png"}}},
			}, nil
		})
	s.AddTool(mcp.NewTool("read_other", mcp.WithDescription("Read an image, described."), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Not a copy of the content items: its facts are the model's,
			// its base64 is not.
			return &mcp.CallToolResult{
				Content: []mcp.Content{mcp.NewImageContent(b64, "image/png")},
				StructuredContent: map[string]any{"path": "photo.png", "file": map[string]any{
					"mimeType": "image/png", "data": b64}},
			}, nil
		})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(srv.Close) // after the client closes: its listening stream stays open until then

	h := newHarness(t, nil,
		pt.Calls(call("c1", "mcp__media__read_media_file", `{}`), call("c2", "mcp__media__read_other", `{}`)),
		pt.Say("done"))
	ctx := context.Background()
	if err := h.k.MCP().Add(ctx, mcpconfig.Config{Name: "media", URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	run := h.run("look at the photo")
	if run.Status != "completed" {
		t.Fatalf("run = %+v", run)
	}
	req := h.srv.Requests()[1]
	for _, id := range []string{"c1", "c2"} {
		got := toolText(t, req, id)
		if len(got) > 1024 || strings.Contains(got, b64[:64]) {
			t.Errorf("%s: the model's text is %d bytes, base64 in it: %v; want a short text without base64: %.300q",
				id, len(got), strings.Contains(got, b64[:64]), got)
		}
	}
	if got := toolText(t, req, "c2"); !strings.Contains(got, `"path":"photo.png"`) {
		t.Errorf("c2: %q; want the structured facts that are not base64", got)
	}
	artifacts := map[string][]string{}
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeToolEnd {
			var d event.ToolEndData
			json.Unmarshal(ev.Data, &d)
			artifacts[d.ID] = d.Artifacts
		}
	}
	for _, id := range []string{"c1", "c2"} {
		if len(artifacts[id]) != 1 {
			t.Fatalf("%s artifacts = %v; want the image", id, artifacts[id])
		}
		a, err := h.k.Artifact(ctx, run.SessionID, artifacts[id][0])
		if err != nil || a.MIME != "image/png" || !bytes.Equal(a.Data, pic) {
			t.Errorf("%s artifact: %s, %d bytes, %v; want the %d-byte PNG", id, a.MIME, len(a.Data), err, len(pic))
		}
	}
}
