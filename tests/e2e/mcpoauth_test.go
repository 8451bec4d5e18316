package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/mcp/mcptest"
)

// TestBrowserMCPSignIn drives the sign-in of an HTTP MCP server behind an
// OAuth authorization server (mcptest.OAuth: a real MCP server built with
// mcp-go's server package) in Settings → MCP servers: the server shows
// "Sign-in needed"; Sign in opens the authorization page through
// FOYA_OAUTH_OPENER (curl, following the page's redirect to Foya's
// loopback address as a browser would); a first answer with a forged
// state is refused with its error on screen; the second signs in, the
// server becomes ready with its tools; Sign out asks for a sign-in again.
// No token the authorization server gave is in Foya's database files.
//
// spec: M1, W3
func TestBrowserMCPSignIn(t *testing.T) {
	requireE2E(t)
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl not found: it follows the authorization page in this test (install it with make deps)")
	}
	bin := buildFoya(t)
	as := mcptest.NewOAuth()
	defer as.Close()
	as.Lock()
	as.WrongStates = 1
	as.Unlock()
	rt := t.TempDir() // no keyring here: the tokens go to the data folder's file
	srv := startServe(t, bin, "FOYA_OAUTH_OPENER="+curl+" -sS -L -o /dev/null", "DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR="+rt)
	srv.call(t, nil, "AddMCPServer", map[string]any{"name": "remote", "url": as.MCPURL})
	runScript(t, "mcp-oauth.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_SHOTS": filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	if len(as.Requests("/register")) != 2 || len(as.Requests("/authorize")) != 2 {
		t.Errorf("registrations %d, authorizations %d; want 2 each", len(as.Requests("/register")), len(as.Requests("/authorize")))
	}
	srv.stop(t)
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(srv.data), "foya.db*"))
	if len(files) == 0 {
		t.Fatal("no database files found")
	}
	issued := as.Issued()
	if len(issued) == 0 {
		t.Fatal("the authorization server gave no token")
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range issued {
			if bytes.Contains(b, []byte(tok)) {
				t.Errorf("a token is in %s", filepath.Base(f))
			}
		}
	}
	// Without a keyring the token went to the file beside the database
	// (the data folder of a named database), and the sign-out took it out.
	tokens := filepath.Join(filepath.Dir(srv.data), "mcp-tokens.json")
	b, err := os.ReadFile(tokens)
	if err != nil {
		t.Fatalf("the token file: %v", err)
	}
	if fi, _ := os.Stat(tokens); fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file's mode is %v", fi.Mode().Perm())
	}
	if strings.Contains(string(b), "accessToken") {
		t.Errorf("a token is still stored after the sign-out: %s", b)
	}
}
