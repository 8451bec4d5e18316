package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/tools"
)

// tool is one MCP server tool as a tools.Tool.
type tool struct {
	s            *server
	raw          string // the tool's name on its server
	spec         tools.Spec
	readOnlyHint bool
}

// Spec implements tools.Tool.
func (t *tool) Spec() tools.Spec { return t.spec }

// Offered implements tools.Gate: a project's server's tools are offered in
// that project's sessions only.
func (t *tool) Offered(st tools.State) bool {
	return t.s.workdir == "" || st.Workdir == t.s.workdir
}

// ParallelSafe implements tools.Parallel only for tools their server
// annotates read-only: a hint, but one that can only make calls of the
// same response overlap, never skip the approval gateway.
func (t *tool) ParallelSafe(tools.Call) bool { return t.readOnlyHint }

// Limits bound the text of an MCP result, as a document's (spec O1).
var Limits = tools.DocumentLimits

// maxImages bounds the images one result keeps.
const maxImages = 8

// Run implements tools.Tool: ask the gateway (spec M2), call the tool,
// turn its content into a Result under the built-in tools' bounds.
func (t *tool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	if t.s.workdir != "" && rc != nil && rc.Workdir != t.s.workdir {
		return tools.Errorf("%s belongs to the MCP server %s of another project: it is not available here", t.spec.Name, t.s.entry.Name), nil
	}
	preview := string(call.Arguments)
	if len(preview) > 2048 {
		preview = bounded(preview, 2048)
	}
	out, err := rc.Approve(ctx, approval.Request{
		CallID: call.ID,
		Action: approval.Action{Kind: approval.MCP, Tool: t.spec.Name, ReadOnly: t.readOnlyHint,
			MCPServer: t.s.entry.Name, MCPTool: t.raw},
		Why:     fmt.Sprintf("call the tool %q of the MCP server %s (%s)", t.raw, t.s.entry.Name, t.s.entry.CommandLine()),
		Preview: preview,
	})
	if err != nil {
		return tools.Result{}, err
	}
	if !out.Allowed {
		return tools.Errorf("%s", out.Message), nil
	}
	var progress func(event.Progress)
	if rc != nil && rc.Update != nil {
		progress = rc.Report
	}
	o := t.s.call(withRunContext(ctx, rc), t.raw, call.Arguments, call.ID, progress)
	var res tools.Result
	if o.res == nil {
		res = tools.Errorf("%s", o.fail)
	} else {
		res = convert(o.res)
	}
	for _, n := range o.notes {
		res.Text += "\n" + n + "."
	}
	return res, nil
}

// convert turns a CallToolResult into a Result: text as it is, images and
// audio as bytes (the engine keeps them as artifacts, spec I1), links and
// embedded resources described, structuredContent as JSON when there is
// no text (less what only repeats the content items, and with no base64
// of binary data: see structuredText), isError kept. The text is bounded like a document's.
func convert(r *mcp.CallToolResult) tools.Result {
	var b strings.Builder
	var res tools.Result
	res.IsError = r.IsError
	hasText := false
	note := func(format string, args ...any) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	image := func(mime, data string) {
		raw, err := base64.StdEncoding.DecodeString(data)
		switch {
		case err != nil:
			note("[an image (%s) that is not valid base64 was left out]", mime)
		case len(res.Images) >= maxImages:
			note("[an image (%s, %d bytes) was left out: at most %d images are kept per result]", mime, len(raw), maxImages)
		default:
			res.Images = append(res.Images, tools.Image{MIME: mime, Data: raw})
		}
	}
	audio := func(mime, data string) {
		raw, err := base64.StdEncoding.DecodeString(data)
		switch {
		case err != nil:
			note("[audio (%s) that is not valid base64 was left out]", mime)
		case len(res.Audio) >= maxImages:
			note("[audio (%s, %d bytes) was left out: at most %d sounds are kept per result]", mime, len(raw), maxImages)
		default:
			res.Audio = append(res.Audio, tools.Audio{MIME: mime, Data: raw})
		}
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			hasText = true
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
			b.WriteString(c.Text)
		case mcp.ImageContent:
			image(c.MIMEType, c.Data)
		case mcp.AudioContent:
			audio(c.MIMEType, c.Data)
		case mcp.ResourceLink:
			note("[resource link: %s <%s>%s%s]", c.Name, c.URI, paren(c.MIMEType), colon(c.Description))
		case mcp.EmbeddedResource:
			switch rc := c.Resource.(type) {
			case mcp.TextResourceContents:
				hasText = true
				note("[resource <%s>%s]\n%s", rc.URI, paren(rc.MIMEType), rc.Text)
			case mcp.BlobResourceContents:
				if strings.HasPrefix(rc.MIMEType, "image/") {
					image(rc.MIMEType, rc.Blob)
				} else if strings.HasPrefix(rc.MIMEType, "audio/") {
					audio(rc.MIMEType, rc.Blob)
				} else {
					note("[resource <%s>%s: %d bytes of binary data (base64), left out]", rc.URI, paren(rc.MIMEType), len(rc.Blob))
				}
			}
		default:
			note("[content of an unknown kind was left out]")
		}
	}
	if (r.StructuredContent != nil || len(r.RawStructuredContent) > 0) && !hasText {
		if s := structuredText(r); s != "" {
			note("%s", s)
		}
	}
	text := strings.TrimRight(b.String(), "\n")
	if text == "" && len(res.Images) == 0 && len(res.Audio) == 0 {
		text = "(the tool returned no content)"
	}
	kept, cut := tools.Head(text, Limits)
	if cut.Truncated() {
		kept += "\n" + cut.Notice("(the MCP server's result was cut to Foya's output bounds)")
	}
	res.Text = kept
	return res
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

var (
	_ tools.Tool     = (*tool)(nil)
	_ tools.Gate     = (*tool)(nil)
	_ tools.Parallel = (*tool)(nil)
)
