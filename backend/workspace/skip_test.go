package workspace

import (
	"context"
	"path/filepath"
	"testing"
)

// The paths of Options.Skip (Foya's database with its
// side files, a folder of lock files) are never looked at: a change to
// them is no change of the workspace, in a full walk and in a look at
// the paths a watcher reported; an index saved before they were skipped
// forgets them without reporting them gone.
func TestSkippedPathsAreNeverLookedAt(t *testing.T) {
	ws := t.TempDir()
	db := filepath.Join(ws, "data", "foya.db")
	write(t, db, "db")
	write(t, db+"-wal", "wal")
	write(t, filepath.Join(ws, "data", "foya.db.owners", "own_1.lock"), "")
	write(t, filepath.Join(ws, "src.go"), "package p\n")
	dir := t.TempDir()
	ctx := context.Background()

	// An index saved without the skip holds them.
	m := New(Options{Dir: dir})
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if s, err := m.load("s"); err != nil || s.Files["data/foya.db"].SHA == "" {
		t.Fatalf("the saved index should hold the database (test setup): %v", err)
	}

	m = New(Options{Dir: dir, Skip: []string{db, db + "-wal", db + "-shm", filepath.Join(ws, "data", "foya.db.owners")}})
	defer m.Close()
	changes, err := m.Before(ctx, "s", ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		t.Errorf("a skipped path reported as changed outside: %s", c.Path)
	}
	for round, narrow := range []bool{false, true} {
		if narrow {
			// A whole watcher: after the next full walk, looks are narrowed
			// to the paths it reports.
			m.Attach("s", okBarrier{})
			if _, err := m.Before(ctx, "s", ws); err != nil {
				t.Fatal(err)
			}
		}
		write(t, db, "db changed")
		write(t, db+"-wal", "wal changed")
		write(t, db+"-shm", "shm made")
		write(t, filepath.Join(ws, "data", "foya.db.owners", "own_2.lock"), "")
		write(t, filepath.Join(ws, "src.go"), "package q\n")
		if narrow { // as a watcher reports them
			for _, p := range []string{db, db + "-wal", db + "-shm", filepath.Join(ws, "data", "foya.db.owners"), filepath.Join(ws, "src.go")} {
				m.Touch("s", p)
			}
		}
		c, err := m.After(ctx, "s", ws)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Changes) != 1 || filepath.Base(c.Changes[0].Path) != "src.go" {
			var got []string
			for _, fc := range c.Changes {
				got = append(got, fc.Path)
			}
			t.Errorf("round %d: changes %q; want src.go alone", round, got)
		}
		write(t, filepath.Join(ws, "src.go"), "package p\n")
		if _, err := m.Before(ctx, "s", ws); err != nil {
			t.Fatal(err)
		}
	}
	m.mu.Lock()
	ix := m.indexes["s"]
	m.mu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for rel := range ix.files {
		if m.skip.has(ix.abs(rel)) {
			t.Errorf("the index holds the skipped %s", rel)
		}
	}
}

type okBarrier struct{}

func (okBarrier) Barrier(context.Context) error { return nil }
