package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/mcp/mcptest"
	pt "foya/backend/provider/providertest"
)

// TestBrowserMCPElicitation runs a session in Chromium against foya serve
// and the scripted model, whose run calls a tool of an MCP server (mcp-go's
// server package, over streamable HTTP) that asks the user during the
// call (elicitation). The form shows above the message box with the
// server's message, the defaults filled in and focus in its first field;
// Enter with a required field empty says so at the field and sends
// nothing; filled, Enter sends, the form goes, and the server gets the
// values (the model reads them in the tool's result).
//
// spec: M1, W3
func TestBrowserMCPElicitation(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	mcpSrv := mcptest.NewElicitHTTP()
	t.Cleanup(mcpSrv.Close)
	schema := `{"type":"object","properties":{"name":{"type":"string","title":"Your name","minLength":2},` +
		`"age":{"type":"integer","title":"Age","minimum":0,"maximum":150,"default":30},` +
		`"color":{"type":"string","title":"Color","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"r"},` +
		`"agree":{"type":"boolean","title":"I agree","default":false}},"required":["name"]}`
	args, _ := json.Marshal(map[string]string{"message": "Who is asking?", "schema": schema})
	model := pt.New(t, pt.Calls(pt.Call{ID: "c1", Name: "mcp__el__ask", Arguments: string(args)}), pt.Say("Thanks, all done."))
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	srv.call(t, nil, "AddMCPServer", map[string]any{"name": "el", "url": mcpSrv.URL, "alwaysLoad": true})
	waitMCPReady(t, srv, "el")
	srv.call(t, nil, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "full_access", "title": "Elicitation"})

	runScript(t, "elicit.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_TITLE": "Elicitation",
		"FOYA_SHOTS": filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	reqs := model.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the model was asked %d times; want the tool's result read", len(reqs))
	}
	got := ""
	for _, m := range reqs[1].Messages {
		if m.ToolCallID == "c1" {
			got = m.Content
		}
	}
	want := `{"action":"accept","content":{"age":42,"agree":true,"color":"g","name":"Ada"}}`
	if !strings.HasPrefix(got, want) {
		t.Errorf("the server got %q; want %s", got, want)
	}
	srv.stop(t)
}
