package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/mcp/mcptest"
)

// TestMCPCLISignIn: foya mcp tools and call sign in to an HTTP server that
// asks for it, there and then: the authorization page goes to the command
// FOYA_OAUTH_OPENER names (curl following it, as a browser would) and its
// address is printed; the token is kept (no keyring here: in the file
// beside the database, mode 0600) and the next command uses it without a
// new sign-in. --grant client-credentials signs in as a program, with no
// page at all. A forged answer fails the command with the reason and
// stores nothing.
// spec: M1
func TestMCPCLISignIn(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl follows the authorization page in this test; it is not installed")
	}
	bin := foyaBinary(t)
	as := mcptest.NewOAuth()
	t.Cleanup(as.Close)
	as.Lock()
	as.Clients["svc"] = "s3cret"
	as.Unlock()
	dbDir := t.TempDir()
	db := filepath.Join(dbDir, "foya.db")
	env := append(providerEnv(""), "FOYA_OAUTH_OPENER="+curl+" -sS -L -o /dev/null")
	foya := func(args ...string) execResult {
		t.Helper()
		return runFoya(t, bin, env, append(args, "--db", db, "--workdir", t.TempDir())...)
	}
	tokens := filepath.Join(dbDir, "mcp-tokens.json")

	res := foya("mcp", "tools", "--url", as.MCPURL)
	if res.code != 0 || !strings.Contains(res.stdout, `"echo"`) {
		t.Fatalf("mcp tools: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "asks you to sign in") || !strings.Contains(res.stderr, as.URL+"/authorize?") {
		t.Errorf("stderr does not show the sign-in page: %s", res.stderr)
	}
	b, err := os.ReadFile(tokens)
	if err != nil || !strings.Contains(string(b), "accessToken") {
		t.Fatalf("no token in %s: %v", tokens, err)
	}
	if fi, _ := os.Stat(tokens); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	res = foya("mcp", "call", "--url", as.MCPURL, "echo", `{"text": "again"}`)
	if res.code != 0 || !strings.Contains(res.stdout, "again") {
		t.Fatalf("mcp call: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if n := len(as.Requests("/authorize")); n != 1 {
		t.Errorf("%d authorizations; the second command should have used the kept token", n)
	}

	// A configured server at the same address uses the same token; foya
	// mcp list says who is signed in and who needs a sign-in.
	unsigned := mcptest.NewOAuth()
	t.Cleanup(unsigned.Close)
	for name, u := range map[string]string{"remote": as.MCPURL, "unsigned": unsigned.MCPURL} {
		if res := runFoya(t, bin, env, "mcp", "add", name, "--url", u, "--db", db); res.code != 0 {
			t.Fatalf("mcp add %s: exit %d\n%s", name, res.code, res.stderr)
		}
	}
	res = runFoya(t, bin, env, "mcp", "list", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "remote (user, http) ready") || !strings.Contains(res.stdout, "  signed in\n") ||
		!strings.Contains(res.stdout, "sign-in needed: run foya mcp tools unsigned") {
		t.Fatalf("mcp list: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if n := len(unsigned.Requests("/authorize")); n != 0 {
		t.Errorf("foya mcp list opened a sign-in page (%d)", n)
	}
	for _, name := range []string{"remote", "unsigned"} {
		runFoya(t, bin, env, "mcp", "remove", name, "--db", db)
	}

	res = foya("mcp", "call", "--url", as.MCPURL, "--grant", "client-credentials", "--client-id", "svc", "--client-secret", "s3cret", "echo", `{"text": "program"}`)
	if res.code != 0 || !strings.Contains(res.stdout, "program") {
		t.Fatalf("mcp call with client credentials: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if n := len(as.Requests("/authorize")); n != 1 || strings.Contains(res.stderr, "sign in") {
		t.Errorf("client credentials opened a page (%d authorizations): %s", n, res.stderr)
	}

	// A forged answer: the command fails, the other server's token is not
	// replaced.
	other := mcptest.NewOAuth()
	t.Cleanup(other.Close)
	other.Lock()
	other.WrongStates = 1
	other.Unlock()
	res = foya("mcp", "tools", "--url", other.MCPURL)
	if res.code == 0 || !strings.Contains(res.stderr, "another state than the one Foya sent") {
		t.Fatalf("forged answer: exit %d\n%s", res.code, res.stderr)
	}
	b, _ = os.ReadFile(tokens)
	if strings.Contains(string(b), other.MCPURL) {
		t.Errorf("a token was stored for the server whose answer was forged")
	}
}

// TestMCPCLISignInBadFlags: bad combinations of the sign-in flags are
// refused before anything starts, saying what to give.
// spec: M1
func TestMCPCLISignInBadFlags(t *testing.T) {
	bin := foyaBinary(t)
	db := filepath.Join(t.TempDir(), "foya.db")
	u := "http://127.0.0.1:9/mcp"
	key := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(key, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--grant", "password"}, `--grant is client-credentials (or authorization-code, the default), not "password"`},
		{[]string{"--client-secret", "s"}, "--client-secret or --private-key-file needs --client-id"},
		{[]string{"--client-id", "a", "--client-secret", "s", "--private-key-file", key}, "not both"},
		{[]string{"--grant", "client-credentials"}, "--grant client-credentials needs --client-id"},
		{[]string{"--grant", "client-credentials", "--client-id", "a"}, "needs --client-secret or --private-key-file"},
		{[]string{"--client-id", "a", "--private-key-file", key}, "add --grant client-credentials"},
		{[]string{"--grant", "client-credentials", "--client-id", "a", "--private-key-file", key}, "holds no PEM block"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			res := runFoya(t, bin, providerEnv(""), append(append([]string{"mcp", "tools", "--url", u}, c.args...), "--db", db)...)
			if res.code != 2 || !strings.Contains(res.stderr, c.want) {
				t.Fatalf("exit %d, want 2 and %q:\n%s", res.code, c.want, res.stderr)
			}
		})
	}
	res := runFoya(t, bin, providerEnv(""), "mcp", "list", "--client-id", "a", "--db", db)
	if res.code != 2 || !strings.Contains(res.stderr, "go with tools, call and log only") {
		t.Fatalf("list --client-id: exit %d\n%s", res.code, res.stderr)
	}
}

// TestMCPCLISignInKeyring: with a system keyring the sign-in token goes
// there, not to a file, and the next command finds it there; with a
// locked keyring the sign-in fails saying so, the server's tools are not
// listed, and no token lands in a file.
// spec: M1
func TestMCPCLISignInKeyring(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl follows the authorization page in this test; it is not installed")
	}
	bin := foyaBinary(t)
	as := mcptest.NewOAuth()
	t.Cleanup(as.Close)
	opener := "FOYA_OAUTH_OPENER=" + curl + " -sS -L -o /dev/null"
	dbDir := t.TempDir()
	db := filepath.Join(dbDir, "foya.db")
	tokens := filepath.Join(dbDir, "mcp-tokens.json")

	bus := sessionBus(t)
	ss := startSecretService(t, bus, false)
	env := append(providerEnv(bus), opener)
	for i := range 2 {
		res := runFoya(t, bin, env, "mcp", "tools", "--url", as.MCPURL, "--db", db)
		if res.code != 0 || !strings.Contains(res.stdout, `"echo"`) {
			t.Fatalf("mcp tools %d: exit %d\n%s%s", i, res.code, res.stdout, res.stderr)
		}
	}
	if n := len(as.Requests("/authorize")); n != 1 {
		t.Errorf("%d authorizations; the second command should have found the token in the keyring", n)
	}
	found := false
	for _, v := range ss.values() {
		found = found || strings.Contains(v, "accessToken")
	}
	if !found {
		t.Error("no token in the keyring")
	}
	if b, err := os.ReadFile(tokens); err == nil && strings.Contains(string(b), "accessToken") {
		t.Error("the token went to the file although there is a keyring")
	}

	locked := sessionBus(t)
	startSecretService(t, locked, true)
	other := mcptest.NewOAuth()
	t.Cleanup(other.Close)
	res := runFoya(t, bin, append(providerEnv(locked), opener), "mcp", "tools", "--url", other.MCPURL, "--db", db)
	if res.code != 1 || !strings.Contains(res.stderr, "keyring is locked") || strings.Contains(res.stdout, `"echo"`) {
		t.Fatalf("locked keyring: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if b, err := os.ReadFile(tokens); err == nil && strings.Contains(string(b), "accessToken") {
		t.Error("a locked keyring's token went to the file")
	}
}
