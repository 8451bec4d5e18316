package mcpconfig

import (
	"bytes"
	"encoding/json"
	"testing"

	"foya/backend/mcp"
)

// What a server lists and returns reaches front ends as this package's
// types, with the JSON package mcp's types have, field for field, filled
// and empty.
//
// spec: M3
func TestMCPDTOsKeepTheJSON(t *testing.T) {
	res := mcp.Resource{URI: "notes://a", Name: "a", Description: "d", MIMEType: "text/plain"}
	con := mcp.Content{URI: "notes://a", MIMEType: "image/png", Text: "t", Blob: []byte{1, 2, 3}}
	pr := mcp.Prompt{Name: "p", Description: "d", Arguments: []mcp.PromptArg{{Name: "x", Description: "y", Required: true}}}
	msg := mcp.Message{Role: "user", Text: "hi"}
	for _, c := range []struct {
		name         string
		inner, outer any
	}{
		{"Resource", res, resourceOf(res)},
		{"Resource empty", mcp.Resource{}, resourceOf(mcp.Resource{})},
		{"Content", con, contentOf(con)},
		{"Content empty", mcp.Content{}, contentOf(mcp.Content{})},
		{"Prompt", pr, promptOf(pr)},
		{"Prompt empty", mcp.Prompt{}, promptOf(mcp.Prompt{})},
		{"Message", msg, messageOf(msg)},
	} {
		want, _ := json.Marshal(c.inner)
		got, _ := json.Marshal(c.outer)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: JSON\n%s\nwant\n%s", c.name, got, want)
		}
	}
}
