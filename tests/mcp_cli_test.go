package tests

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"foya/backend/mcp/mcptest"
)

// TestMCPCLIToolsAndCall: foya mcp tools and foya mcp call exercise one
// server alone, named from the configuration or by --url (streamable
// HTTP, SSE when the server speaks only that, headers given with
// --header), and print what it answers as JSON; a result with isError is
// an answer (exit 0).
// spec: M1
func TestMCPCLIToolsAndCall(t *testing.T) {
	bin := foyaBinary(t)
	// The data folder (the user's mcp.json) apart from the workspace: a
	// servers file inside a session's workspace is not read.
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	env := providerEnv("")
	foya := func(args ...string) execResult {
		t.Helper()
		return runFoya(t, bin, env, append([]string{args[0], args[1], "--db", db, "--workdir", dir}, args[2:]...)...)
	}
	var token atomic.Value
	token.Store("")
	h := server.NewStreamableHTTPServer(mcptest.New())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("X-Token"); v != "" {
			token.Store(v)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	sse := httptest.NewServer(server.NewSSEServer(mcptest.New()))
	t.Cleanup(sse.Close)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if res := foya("mcp", "add", "local", "--env", mcptest.Env+"=ok", "--", exe); res.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	for _, who := range [][]string{{"local"}, {"--url", srv.URL, "--header", "X-Token: secret"}, {"--url", sse.URL + "/sse"}} {
		t.Run(strings.Join(who, " "), func(t *testing.T) {
			res := foya(append([]string{"mcp", "tools"}, who...)...)
			if res.code != 0 {
				t.Fatalf("mcp tools: exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			var list []mcpgo.Tool
			if err := json.Unmarshal([]byte(res.stdout), &list); err != nil {
				t.Fatalf("mcp tools printed no JSON list of tools: %v\n%s", err, res.stdout)
			}
			found := false
			for _, tl := range list {
				found = found || tl.Name == "echo" && tl.Description == "Echo the text back."
			}
			if !found {
				t.Errorf("no echo tool in %s", res.stdout)
			}

			res = foya(append(append([]string{"mcp", "call"}, who...), "echo", `{"text": "hi there"}`)...)
			if res.code != 0 {
				t.Fatalf("mcp call echo: exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			var out struct {
				Content []struct{ Type, Text string }
				IsError bool
			}
			if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Content) != 1 || out.Content[0].Text != "echo: hi there" || out.IsError {
				t.Errorf("mcp call echo printed %s (%v)", res.stdout, err)
			}

			res = foya(append(append([]string{"mcp", "call"}, who...), "fail")...)
			out.IsError = false
			if err := json.Unmarshal([]byte(res.stdout), &out); res.code != 0 || err != nil || !out.IsError {
				t.Errorf("mcp call fail: exit %d, printed %s%s; want exit 0 and isError", res.code, res.stdout, res.stderr)
			}
		})
	}
	if got := token.Load(); got != "secret" {
		t.Errorf("the server saw X-Token %q; want the --header's", got)
	}
}

// TestMCPCLIBadInput: foya mcp tools and call say what is wrong, and
// what to do, on bad input and exit non-zero: an unknown server name,
// arguments that are not a JSON object, a server that is not there, a
// tool the server does not have, a missing NAME.
// spec: M1
func TestMCPCLIBadInput(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	env := providerEnv("")
	srv := mcptest.NewHTTP()
	t.Cleanup(srv.Close)
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	// A project's server nobody approved.
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"proj": {"command": "true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"unknown name", []string{"mcp", "tools", "nope"}, 1, []string{`no MCP server "nope"`, "foya mcp list"}},
		{"unknown name call", []string{"mcp", "call", "nope", "echo"}, 1, []string{`no MCP server "nope"`}},
		{"bad JSON", []string{"mcp", "call", "--url", srv.URL, "echo", `{"text": hi}`}, 2, []string{"not a JSON object", `{"text": "hi"}`}},
		{"JSON not an object", []string{"mcp", "call", "--url", srv.URL, "echo", `["hi"]`}, 2, []string{"not a JSON object"}},
		{"dead server", []string{"mcp", "tools", "--url", dead}, 1, []string{"did not connect", "cannot be reached"}},
		{"not a URL", []string{"mcp", "tools", "--url", "ftp://example"}, 1, []string{"not an http:// or https:// URL"}},
		{"unknown tool", []string{"mcp", "call", "--url", srv.URL, "nope", `{}`}, 1, []string{`has no tool "nope"`, `"echo"`}},
		{"unapproved project server", []string{"mcp", "call", "proj", "echo"}, 1, []string{"may not run", "foya mcp approve proj"}},
		{"no NAME", []string{"mcp", "tools"}, 2, []string{"give the NAME"}},
		{"no TOOL", []string{"mcp", "call", "--url", srv.URL}, 2, []string{"then TOOL"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runFoya(t, bin, env, append(c.args, "--db", db, "--workdir", dir)...)
			if res.code != c.code {
				t.Errorf("exit %d; want %d\nstdout %s\nstderr %s", res.code, c.code, res.stdout, res.stderr)
			}
			if res.stdout != "" {
				t.Errorf("stdout %q; want nothing", res.stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr %q does not say %q", res.stderr, w)
				}
			}
		})
	}
}
