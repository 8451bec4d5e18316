package tests

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestMCPRootsThroughTheKernel: a session's run gives the user's own
// servers its workspace as a root, so a server that asks (roots/list)
// during a call learns the folder the session works in, as a file:// URI.
// spec: M1
func TestMCPRootsThroughTheKernel(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(call("c1", "mcp__local__roots", `{}`)), pt.Say("done"))
	if err := h.k.MCP().Add(context.Background(), mcpServer(t, "local")); err != nil {
		t.Fatal(err)
	}
	run := h.runIn(context.Background(), h.session("full_access").ID, "where do I work?")
	if run.Status != "completed" {
		t.Fatalf("run = %+v", run)
	}
	want := "file://" + filepath.ToSlash(h.dir)
	if got := toolText(t, h.srv.Requests()[1], "c1"); !strings.Contains(got, want) {
		t.Errorf("roots = %q; want %s among them", got, want)
	}
}
