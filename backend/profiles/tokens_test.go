package profiles_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/profiles"
	"io/fs"
)

// TestTokensWithoutKeyring: without a keyring, MCP sign-in tokens go to
// TokenFile in the data folder, mode 0600; Get finds them, Delete removes
// them, a missing one is ErrNotStored; a file others may read is refused
// without its content in the error.
// spec: M1
func TestTokensWithoutKeyring(t *testing.T) {
	noKeyring(t)
	dir := t.TempDir()
	ts := profiles.NewTokens(dir)
	ctx := context.Background()
	if _, err := ts.Get(ctx, "mcp-oauth/https://a.example/mcp"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Get of nothing = %v", err)
	}
	if err := ts.Put(ctx, "mcp-oauth/https://a.example/mcp", `{"accessToken":"tok-123"}`); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, profiles.TokenFile)
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if v, err := ts.Get(ctx, "mcp-oauth/https://a.example/mcp"); err != nil || v != `{"accessToken":"tok-123"}` {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Get(ctx, "mcp-oauth/https://a.example/mcp"); err == nil || strings.Contains(err.Error(), "tok-123") || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("Get of a readable file = %v", err)
	}
	_ = os.Chmod(file, 0o600)
	if err := ts.Delete(ctx, "mcp-oauth/https://a.example/mcp"); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Get(ctx, "mcp-oauth/https://a.example/mcp"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Get after Delete = %v", err)
	}
	if err := ts.Delete(ctx, "mcp-oauth/https://a.example/mcp"); err != nil {
		t.Fatalf("Delete of nothing = %v", err)
	}
}
