package trust_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"foya/backend/approval"
	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/trust"
)

func ledger(t *testing.T) (*trust.Ledger, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "foya.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return trust.New(st), st
}

// An approval holds for the fingerprint approved, in the workspace
// however it is spelled, for that subject only, until revoked.
func TestApprovalHoldsForWhatWasApproved(t *testing.T) {
	ctx := context.Background()
	l, _ := ledger(t)
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	fp := trust.Fingerprint([]byte("content"))
	if _, ok := l.Holds(ctx, dir, trust.Rules, fp); ok {
		t.Fatal("holds before any approval")
	}
	if err := l.Approve(ctx, link, trust.Rules, trust.Approval{Fingerprint: fp}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir, subject, fp string
		want                   bool
	}{
		{"the same content", dir, trust.Rules, fp, true},
		{"another spelling of the folder", link, trust.Rules, fp, true},
		{"changed content", dir, trust.Rules, trust.Fingerprint([]byte("content!")), false},
		{"no content", dir, trust.Rules, "", false},
		{"another subject", dir, trust.MCP("x"), fp, false},
		{"another folder", t.TempDir(), trust.Rules, fp, false},
	} {
		if a, ok := l.Holds(ctx, c.dir, c.subject, c.fp); ok != c.want || (ok && a.ApprovedAt.IsZero()) {
			t.Errorf("%s: Holds = %v (at %v); want %v", c.name, ok, a.ApprovedAt, c.want)
		}
	}
	if err := l.Revoke(ctx, dir, trust.Rules); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Holds(ctx, dir, trust.Rules, fp); ok {
		t.Fatal("holds after Revoke")
	}
}

// One scheme: the fingerprint a rules file is approved by is the hash the
// approval policy computes of the file it loads.
func TestRulesFingerprintIsTheRulesHash(t *testing.T) {
	dir := t.TempDir()
	data := []byte(`{"allow": [{"tool": "bash"}]}`)
	if err := os.MkdirAll(filepath.Join(dir, ".foya"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, approval.RulesFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := approval.LoadRules(dir)
	if r == nil || r.Err != nil {
		t.Fatalf("LoadRules = %+v", r)
	}
	if got := trust.Fingerprint(data); got != r.Hash {
		t.Fatalf("Fingerprint = %s, approval.LoadRules hash = %s: one file, two fingerprints", got, r.Hash)
	}
}

// Exposed finds one of Foya's own files inside any session's workspace.
func TestExposed(t *testing.T) {
	ctx := context.Background()
	l, st := ledger(t)
	ws := t.TempDir()
	own := filepath.Join(ws, "data", "mcp.json")
	if w, exposed := l.Exposed(ctx, own, ""); exposed {
		t.Fatalf("exposed in %s with no session", w)
	}
	if w, exposed := l.Exposed(ctx, own, ws); !exposed || w != ws {
		t.Fatalf("Exposed with the run's workspace = %s, %v", w, exposed)
	}
	if err := os.MkdirAll(filepath.Join(ws, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateSession(ctx, storeSession(ws)); err != nil {
		t.Fatal(err)
	}
	if w, exposed := l.Exposed(ctx, own, t.TempDir()); !exposed || w != ws {
		t.Fatalf("Exposed through a session = %s, %v; want %s", w, exposed, ws)
	}
	if trust.Inside(filepath.Join(t.TempDir(), "mcp.json"), ws) {
		t.Fatal("a file elsewhere is inside")
	}
}

func storeSession(workdir string) llm.Session {
	return llm.Session{ID: "ses_1", Workdir: workdir, ProjectID: workdir, ApprovalMode: "manual"}
}

// Issue 29: with MapDir, a folder shares the approvals of the folder it
// maps to (an isolated copy, its project folder): approved in either, it
// holds in both for the same content; revoked in one, in both. Folders
// that map to themselves keep their own.
func TestMapDirSharesApprovals(t *testing.T) {
	ctx := context.Background()
	l, _ := ledger(t)
	project, copied, other := t.TempDir(), t.TempDir(), t.TempDir()
	real := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	l.MapDir(func(dir string) string {
		if dir == real(copied) {
			return real(project)
		}
		return dir
	})
	fp := trust.Fingerprint([]byte("rules"))
	if err := l.Approve(ctx, copied, trust.Rules, trust.Approval{Fingerprint: fp}); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Holds(ctx, project, trust.Rules, fp); !ok {
		t.Fatal("approved in the copy, not held in its project")
	}
	if _, ok := l.Holds(ctx, other, trust.Rules, fp); ok {
		t.Fatal("held in a folder that maps to itself")
	}
	if err := l.Revoke(ctx, project, trust.Rules); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Holds(ctx, copied, trust.Rules, fp); ok {
		t.Fatal("revoked in the project, still held in the copy")
	}
}
