package mcpconfig

import (
	"context"
	"fmt"
	"strings"

	"foya/backend/event"
	"foya/backend/fault"
	"foya/backend/tools"
)

// Attach reads the resources a message attaches (spec M3: read through the
// MCP API, not by the model calling a tool) from the servers of workdir,
// loaded already, and returns the text to add to the user message, each
// resource under a heading that names it, and its images. A resource that
// cannot be read fails the message before its run starts, so the user can
// fix the reference.
func (s *Servers) Attach(ctx context.Context, workdir string, refs []event.ResourceRef) (string, []tools.Image, error) {
	if len(refs) == 0 {
		return "", nil, nil
	}
	if len(refs) > MaxAttached {
		return "", nil, fault.Errorf(fault.ErrInvalid, "%d resources attached: attach at most %d to one message", len(refs), MaxAttached)
	}
	var b strings.Builder
	var images []tools.Image
	for _, ref := range refs {
		if strings.TrimSpace(ref.Server) == "" || strings.TrimSpace(ref.URI) == "" {
			return "", nil, fault.Errorf(fault.ErrInvalid, "an attached resource needs a server and a uri (got server %q, uri %q)", ref.Server, ref.URI)
		}
		contents, err := s.m.ReadResource(ctx, workdir, ref.Server, ref.URI)
		if err != nil {
			return "", nil, fault.Errorf(fault.ErrInvalid, "attach %s from the MCP server %s: %w", ref.URI, ref.Server, err)
		}
		for _, c := range contents {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			fmt.Fprintf(&b, "[resource <%s> from the MCP server %s%s, attached by the user]", c.URI, ref.Server, mimeNote(c.MIMEType))
			switch {
			case c.Blob == nil:
				b.WriteString("\n" + c.Text)
			case strings.HasPrefix(c.MIMEType, "image/"):
				images = append(images, tools.Image{MIME: c.MIMEType, Data: c.Blob})
				b.WriteString("\n(an image, attached below)")
			default:
				fmt.Fprintf(&b, "\n(%d bytes of binary data, not attached: only text and images go to the model)", len(c.Blob))
			}
		}
	}
	text, cut := tools.Head(b.String(), tools.Limits{Bytes: MaxAttachedText})
	if cut.Truncated() {
		text += "\n" + cut.Notice(fmt.Sprintf("(the attached resources were cut to %d KiB)", MaxAttachedText>>10))
	}
	return text, images, nil
}

func mimeNote(mime string) string {
	if mime == "" {
		return ""
	}
	return " (" + mime + ")"
}
