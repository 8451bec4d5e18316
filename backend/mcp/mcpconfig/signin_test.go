package mcpconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectOAuthKeepsNoCredentials: a project's .mcp.json may name a
// client ID and scopes for signing in, never a secret, a private key file
// or the client-credentials grant: those are the user's to give.
// spec: M2
func TestProjectOAuthKeepsNoCredentials(t *testing.T) {
	dir := t.TempDir()
	body := `{"mcpServers": {"web": {"url": "https://mcp.example/mcp", "oauth": {"clientId": "pub", "scopes": ["read"],
		"clientSecret": "s", "privateKeyFile": "/home/user/.ssh/id_ed25519", "grant": "client-credentials"}}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	es, _, ps := projectEntries(dir)
	if len(ps) != 0 || len(es) != 1 || es[0].OAuth == nil {
		t.Fatalf("entries %+v, problems %v", es, ps)
	}
	o := *es[0].OAuth
	if o.ClientID != "pub" || len(o.Scopes) != 1 || o.ClientSecret != "" || o.PrivateKeyFile != "" || o.Grant != "" {
		t.Fatalf("a project's oauth = %+v", o)
	}
}
