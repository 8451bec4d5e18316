package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/llm"
)

// Issue 27 item 3: the look around a shell command asks for the newest
// File Change of the paths it found changed, and for the changes made
// since the last look, never for the session's whole history.
// spec: F1
func TestFileChangesByPathAndSince(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	session(t, s, "s2")
	t0 := time.Unix(1_000_000, 0)
	var c llm.Commit
	c.AddChange(llm.FileChange{ID: "c1", SessionID: "s1", Path: "/w/a", Tool: "write", CreatedAt: t0}, nil, []byte("1"))
	c.AddChange(llm.FileChange{ID: "c2", SessionID: "s1", Path: "/w/b", Tool: "bash", CreatedAt: t0.Add(time.Second)}, nil, []byte("2"))
	c.AddChange(llm.FileChange{ID: "c3", SessionID: "s1", Path: "/w/a", Tool: "edit", CreatedAt: t0.Add(2 * time.Second)}, nil, []byte("3"))
	c.AddChange(llm.FileChange{ID: "c4", SessionID: "s2", Path: "/w/a", Tool: "write", CreatedAt: t0.Add(3 * time.Second)}, nil, []byte("4"))
	if _, err := s.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	last, err := s.LastFileChanges(ctx, "s1", []string{"/w/a", "/w/b", "/w/none", "/w/a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(last) != 2 || last["/w/a"].ID != "c3" || last["/w/b"].ID != "c2" {
		t.Fatalf("last changes %+v; want c3 for /w/a and c2 for /w/b", last)
	}
	since, err := s.OwnChangesSince(ctx, "s1", t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(since) != 1 || since[0].ID != "c3" {
		t.Fatalf("own changes since t0+1s: %+v; want c3 alone (c2 is bash's, c4 another session's)", since)
	}
	c = llm.Commit{}
	c.AddChange(llm.FileChange{ID: "c5", SessionID: "s1", Path: "/w/c", CreatedAt: t0.Add(4 * time.Second)}, nil, []byte("5")) // a revert: no tool
	if _, err := s.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	if since, err = s.OwnChangesSince(ctx, "s1", t0.Add(time.Second)); err != nil || len(since) != 2 || since[1].ID != "c5" {
		t.Fatalf("own changes since t0+1s: %+v, %v; want c3 and the revert c5", since, err)
	}
	rows, err := s.r.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT body FROM file_changes WHERE session_id = ? AND created_at >= ? AND tool <> 'bash'`, "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	rows.Close()
	if !strings.Contains(strings.Join(plan, "; "), "file_changes_own") {
		t.Fatalf("the query of own changes does not use the index of them: %q", plan)
	}
	if none, err := s.OwnChangesSince(ctx, "s1", t0.Add(time.Hour)); err != nil || len(none) != 0 {
		t.Fatalf("changes since later: %+v, %v; want none", none, err)
	}
}

// Issue 27: migration 0012 gives the File Changes stored before it their
// tool from the body, so that the look before a shell command still tells
// Foya's own changes from a command's in an upgraded database.
// spec: F1
func TestMigrationFillsTheTool(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "foya.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	session(t, s, "s1")
	t0 := time.Unix(2_000_000, 0)
	var c llm.Commit
	c.AddChange(llm.FileChange{ID: "c1", SessionID: "s1", Path: "/w/a", Tool: "write", CreatedAt: t0}, nil, []byte("1"))
	c.AddChange(llm.FileChange{ID: "c2", SessionID: "s1", Path: "/w/b", Tool: "bash", CreatedAt: t0}, nil, []byte("2"))
	if _, err := s.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The database as Foya left it before migration 0012 (later
	// migrations undone too, so that they run again).
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP TABLE sandbox_grants", "DROP TABLE session_isolation", "DROP INDEX sessions_forked_from", "ALTER TABLE sessions DROP COLUMN forked_at", "ALTER TABLE sessions DROP COLUMN forked_from",
		"DROP INDEX file_changes_path", "DROP INDEX file_changes_own",
		"ALTER TABLE file_changes DROP COLUMN tool", "PRAGMA user_version = 11"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	own, err := s.OwnChangesSince(ctx, "s1", t0)
	if err != nil || len(own) != 1 || own[0].ID != "c1" {
		t.Fatalf("own changes after the upgrade: %+v, %v; want c1 (c2 is bash's)", own, err)
	}
}
