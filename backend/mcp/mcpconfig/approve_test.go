package mcpconfig

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/mcp"
	"foya/backend/store"
	"foya/backend/trust"
)

// helper is a project's server that runs a script of the workspace.
func helper(t *testing.T) (mcp.Entry, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "helper_srv.py"), []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return mcp.Entry{Name: "helper", Command: "python3", Args: []string{"helper_srv.py", "--flag"}, Env: map[string]string{"A": "1"}}, dir
}

// The fingerprints are those Foya showed and kept before the trust ledger,
// byte for byte (the values were computed by that code): an approval given
// then still holds, and a fingerprint shown then is still accepted.
func TestFingerprintsAreThoseApprovedBefore(t *testing.T) {
	e, dir := helper(t)
	code := e.Code(dir)
	if got, want := fingerprint(e, code, nil), "f6685f80ec1a4f7c5595a2c2cef8ac8f5e6f7806ca2412790e432f5660ce5278"; got != want {
		t.Errorf("fingerprint = %s; want %s, the one approved before", got, want)
	}
	if got, want := entryFingerprint(e), "6beb645e4345a743bbdb9fe85488f316bda76b2f8c9a1ad8a4372b2e6c4c08ae"; got != want {
		t.Errorf("entryFingerprint = %s; want %s", got, want)
	}
	u := mcp.Entry{Name: "remote", URL: "https://example.com/mcp", Headers: map[string]string{"X": "y"}}
	if got, want := fingerprint(u, u.Code(dir), nil), "1ef0c5b3c441850643667899c93aab37652961e74ba05afb6d094df24214884c"; got != want {
		t.Errorf("fingerprint of an HTTP server = %s; want %s", got, want)
	}
}

// An approval as the store's migration leaves it (the old settings row's
// JSON less its sha256 and approvedAt, as the detail) holds, keeps its
// choice of running outside the sandbox, and still says what changed.
func TestMigratedApprovalHolds(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "foya.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, dir := helper(t)
	code := e.Code(dir)
	codeJSON, _ := json.Marshal(code)
	real, _ := trust.Dir(dir)
	if err := st.SetTrust(ctx, store.Trust{Workdir: real, Subject: "mcp:helper", Fingerprint: "f6685f80ec1a4f7c5595a2c2cef8ac8f5e6f7806ca2412790e432f5660ce5278",
		Detail:     `{"entry":"6beb645e4345a743bbdb9fe85488f316bda76b2f8c9a1ad8a4372b2e6c4c08ae","code":` + string(codeJSON) + `,"unconfined":true}`,
		ApprovedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s := &Servers{trust: trust.New(st)}
	a, why, ok := s.approval(ctx, dir, e, code, nil)
	if !ok || !a.Unconfined {
		t.Fatalf("approval = %+v, %q, %v; want the approval kept, unconfined", a, why, ok)
	}
	if err := os.WriteFile(filepath.Join(dir, "helper_srv.py"), []byte("print('changed')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, why, ok := s.approval(ctx, dir, e, e.Code(dir), nil); ok || !strings.Contains(why, "helper_srv.py changed since you approved") {
		t.Fatalf("after the script changed: %q, %v; want unapproved, naming the script", why, ok)
	}
}
