package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserMCPServerSettings drives Settings → MCP servers in Chromium as
// a person does: add a stdio server (the repository's example server,
// built with mcp-go's server package) by its command, see it ready with
// its two tools and where it comes from, browse its resources, then remove
// it after the confirmation; each step checked on screen and in the store
// (MCPServers). Screenshots in tests/e2e/out/.
//
// spec: M1, M3, W3
func TestBrowserMCPServerSettings(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	server := filepath.Join(t.TempDir(), "foya-notes")
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", server, "./examples/mcp/foya-notes")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example MCP server: %v\n%s", err, out)
	}
	model := pt.New(t)
	srv := startServe(t, bin)
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "m"})
	var sess struct{ ID string }
	srv.call(t, &sess, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "MCP"})
	runScript(t, "mcp.mjs", map[string]string{
		"FOYA_URL":        srv.url,
		"FOYA_MCP_SERVER": server,
		"FOYA_SHOTS":      filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	var list struct{ Servers []struct{ Name string } }
	srv.call(t, &list, "MCPServers", "")
	if len(list.Servers) != 0 {
		t.Errorf("MCPServers after the removal = %+v; want none", list.Servers)
	}
	srv.stop(t)
}
