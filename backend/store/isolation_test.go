package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"foya/backend/llm"
)

// Issue 29: a session's isolation is stored in the commit that creates
// the session, read back with it, replaced by a later commit (an apply
// moves the base, a discard marks it) and goes with the session; a
// session without one reads none.
func TestSessionIsolationRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "foya.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	iso := &llm.Isolation{Kind: "worktree", Dir: "/d/ses_1", Folder: "/repo", Repo: "/repo", Branch: "foya/ses_1", Base: "abc",
		Uncommitted: []string{"a.txt"}, Note: "n", Setup: "npm ci"}
	sess := llm.Session{ID: "ses_1", Workdir: "/d/ses_1/work", ProjectID: "/repo", ApprovalMode: "auto", Isolation: iso}
	if _, err := s.Apply(ctx, llm.Commit{Session: &sess, NewSession: true, Isolation: iso, IsolationOf: "ses_1"}); err != nil {
		t.Fatal(err)
	}
	session(t, s, "plain")
	got, err := s.Session(ctx, "ses_1")
	if err != nil || !reflect.DeepEqual(got.Isolation, iso) {
		t.Fatalf("Session = %+v, %v; want isolation %+v", got.Isolation, err, iso)
	}
	if p, _ := s.Session(ctx, "plain"); p.Isolation != nil {
		t.Fatalf("a session in its folder has isolation %+v", p.Isolation)
	}
	next := *iso
	next.Base, next.DiscardedAt = "def", time.Unix(0, 1_700_000_000_000_000_000)
	if _, err := s.Apply(ctx, llm.Commit{Isolation: &next, IsolationOf: "ses_1"}); err != nil {
		t.Fatal(err)
	}
	list, err := s.Sessions(ctx)
	if err != nil || len(list) != 2 {
		t.Fatal(list, err)
	}
	for _, l := range list {
		if l.ID == "ses_1" && (l.Isolation == nil || l.Isolation.Base != "def" || !l.Isolation.DiscardedAt.Equal(next.DiscardedAt)) {
			t.Fatalf("listed isolation %+v", l.Isolation)
		}
	}
	// Bad input: an isolation without its copy is refused, nothing stored.
	if _, err := s.Apply(ctx, llm.Commit{Isolation: &llm.Isolation{Kind: "copy"}, IsolationOf: "ses_1"}); err == nil {
		t.Fatal("an isolation without its folder and copy was stored")
	}
	if err := s.DeleteSession(ctx, "ses_1"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM session_isolation`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("isolation rows after delete: %d, %v", n, err)
	}
}
