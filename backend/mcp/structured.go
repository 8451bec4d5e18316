package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// structuredText returns what a result's structuredContent tells the
// model that its content items do not, as JSON; "" when nothing.
//
// Servers often repeat their content items in structuredContent (the
// reference filesystem server's read_media_file returns an image and a
// structuredContent {"content": [the same image]}): a repeated "content"
// is dropped, the image already goes to the artifact store. Base64 data
// of an image, audio or binary item is no text for the model either: it
// is replaced by a note of its size, so that a large file never fills the
// model's context with base64.
func structuredText(r *mcp.CallToolResult) string {
	raw := r.RawStructuredContent
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(r.StructuredContent); err != nil {
			return ""
		}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return ""
	}
	changed := false
	if m, ok := v.(map[string]any); ok {
		if repeatsContent(m["content"], r.Content) {
			delete(m, "content")
			changed = true
			if len(m) == 0 {
				return ""
			}
		}
	}
	v = withoutBlobs(v, &changed)
	if !changed {
		// As the server wrote it, its keys in its order.
		return string(bytes.TrimSpace(raw))
	}
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

// repeatsContent reports whether v is a list of content items that are
// the result's own, in order: the same kind and the same text, data or
// address.
func repeatsContent(v any, content []mcp.Content) bool {
	list, ok := v.([]any)
	if !ok || len(list) != len(content) || len(list) == 0 {
		return false
	}
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		data, err := json.Marshal(content[i])
		if err != nil {
			return false
		}
		var own map[string]any
		if json.Unmarshal(data, &own) != nil {
			return false
		}
		if m["type"] != own["type"] {
			return false
		}
		for _, k := range []string{"text", "data", "uri", "resource"} {
			if fmt.Sprint(m[k]) != fmt.Sprint(own[k]) {
				return false
			}
		}
	}
	return true
}

// withoutBlobs replaces, anywhere in v, the base64 "data" or "blob" of an
// object that describes binary data (an image, audio or blob item, or a
// non-text MIME type) with a note of its size, and sets *changed when it
// replaced one.
func withoutBlobs(v any, changed *bool) any {
	switch v := v.(type) {
	case map[string]any:
		binary := isBinary(v)
		for k, x := range v {
			if s, ok := x.(string); ok && binary && (k == "data" || k == "blob") {
				v[k] = fmt.Sprintf("[%d characters of base64 left out]", len(s))
				*changed = true
				continue
			}
			v[k] = withoutBlobs(x, changed)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = withoutBlobs(x, changed)
		}
		return v
	}
	return v
}

// isBinary reports whether an object describes binary data: a content
// item of the image, audio or blob kind, or one whose MIME type is not
// text.
func isBinary(m map[string]any) bool {
	switch m["type"] {
	case "image", "audio", "blob":
		return true
	}
	for _, k := range []string{"mimeType", "mime_type", "mime"} {
		if s, ok := m[k].(string); ok && s != "" {
			return !strings.HasPrefix(s, "text/") && !strings.Contains(s, "json") && !strings.Contains(s, "xml")
		}
	}
	_, blob := m["blob"]
	return blob
}
