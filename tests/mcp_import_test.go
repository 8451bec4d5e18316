package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"foya/backend/cli"
	"foya/backend/mcp"
)

// TestMCPImportExpandsVariables: importing Claude Code's .mcp.json (or
// Cursor's, or VS Code's) expands ${VAR}, ${VAR:-default} and
// ${env:VAR} in the command, arguments, environment, URL and headers, as
// those programs do when they start the server; a server with an unset
// variable and no default is left out with a problem naming the
// variable, the server and the file, and the others are imported.
// spec: M1
func TestMCPImportExpandsVariables(t *testing.T) {
	t.Setenv("FOYA_TEST_TOKEN", "s3cret")
	t.Setenv("FOYA_TEST_BIN", "/opt/tools")
	os.Unsetenv("FOYA_TEST_MISSING")
	h := newHarness(t, nil)
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), ".mcp.json")
	os.WriteFile(file, []byte(`{"mcpServers":{
  "gh": {"command": "${FOYA_TEST_BIN}/gh-mcp", "args": ["--port", "${FOYA_TEST_PORT:-8080}"],
         "env": {"GITHUB_TOKEN": "${FOYA_TEST_TOKEN}", "LEVEL": "${env:FOYA_TEST_LEVEL:-info}"}},
  "web": {"type": "http", "url": "http://127.0.0.1:9/${FOYA_TEST_PATH:-mcp}",
          "headers": {"Authorization": "Bearer ${env:FOYA_TEST_TOKEN}"}},
  "broken": {"command": "x", "args": ["${FOYA_TEST_MISSING}"]}
}}`), 0o644)
	res, err := h.k.MCP().Import(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Added, []string{"gh", "web"}) {
		t.Errorf("added %v; want gh and web", res.Added)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "FOYA_TEST_MISSING") ||
		!strings.Contains(res.Problems[0], `"broken"`) || !strings.Contains(res.Problems[0], file) {
		t.Errorf("problems %q; want one naming the variable, the server and the file", res.Problems)
	}
	es, ps := mcp.ReadFile(h.k.MCP().File())
	if len(ps) > 0 || len(es) != 2 {
		t.Fatalf("the user's file: %+v, %v", es, ps)
	}
	gh, web := es[0], es[1]
	if gh.Command != "/opt/tools/gh-mcp" || !reflect.DeepEqual(gh.Args, []string{"--port", "8080"}) ||
		gh.Env["GITHUB_TOKEN"] != "s3cret" || gh.Env["LEVEL"] != "info" {
		t.Errorf("gh = %+v; want its variables expanded", gh)
	}
	if web.URL != "http://127.0.0.1:9/mcp" || web.Headers["Authorization"] != "Bearer s3cret" {
		t.Errorf("web = %+v; want its variables expanded", web)
	}
}

// TestMCPImportProblemSaidOnce: foya mcp import of a file whose only
// server cannot be imported says why once, and fails.
// spec: M1
func TestMCPImportProblemSaidOnce(t *testing.T) {
	os.Unsetenv("FOYA_TEST_MISSING")
	db := filepath.Join(t.TempDir(), "foya.db")
	file := filepath.Join(t.TempDir(), ".mcp.json")
	for _, c := range []struct{ name, config, want string }{
		{"unset variable", `{"mcpServers":{"only":{"command":"x","env":{"K":"${FOYA_TEST_MISSING}"}}}}`, `server "only": the variable FOYA_TEST_MISSING`},
		{"broken entry", `{"mcpServers":{"only":{"args":"no"}}}`, "mcpServers.only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(file, []byte(c.config), 0o644)
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"mcp", "--db", db, "import", file},
				cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
			if code == 0 || strings.Count(errb.String(), c.want) != 1 || !strings.Contains(errb.String(), file) {
				t.Errorf("import = %d, stdout %q, stderr %q; want a failure saying %s once, with the file", code, out.String(), errb.String(), c.want)
			}
		})
	}
}
