package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Issue 27 item 3: saving the index after a command writes what changed
// (a journal record), not the whole index; a kernel started afterwards
// loads the same index from the whole one and its journal.
// spec: F1, X2
func TestSaveAfterACommandWritesWhatChanged(t *testing.T) {
	ws := t.TempDir()
	for i := range 300 {
		write(t, filepath.Join(ws, "src", fmt.Sprintf("f%03d.txt", i)), fmt.Sprintf("file %d\n", i))
	}
	dir := t.TempDir()
	m := New(Options{Dir: dir})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	base := m.savedPath("s")
	first, err := os.Stat(base)
	if err != nil {
		t.Fatalf("the first look saved no index: %v", err)
	}
	log := filepath.Join(ws, "log.txt")
	for i := range 20 {
		write(t, log, fmt.Sprintf("step %d\n", i))
		if i%2 == 1 {
			os.Remove(filepath.Join(ws, "src", fmt.Sprintf("f%03d.txt", i)))
		}
		if _, err := m.After(ctx, "s", ws); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Before(ctx, "s", ws); err != nil { // saves
			t.Fatal(err)
		}
	}
	now, err := os.Stat(base)
	if err != nil || !os.SameFile(first, now) || !now.ModTime().Equal(first.ModTime()) {
		t.Fatalf("the whole index was written again after a command changed one file (%v)", err)
	}
	j, err := os.Stat(m.journalPath("s"))
	if err != nil {
		t.Fatalf("no journal: %v", err)
	}
	if j.Size() >= 20*first.Size() {
		t.Fatalf("journal of 20 one-file saves is %d bytes, the whole index %d: it holds more than what changed", j.Size(), first.Size())
	}
	// A second Manager (a kernel started later) loads what the first holds.
	s, err := New(Options{Dir: dir}).load("s")
	if err != nil {
		t.Fatal(err)
	}
	ix := m.lookup("s")
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(s.Files) != len(ix.files) {
		t.Fatalf("loaded %d entries; the live index holds %d", len(s.Files), len(ix.files))
	}
	for rel, e := range ix.files {
		if got, ok := s.Files[rel]; !ok || got != e {
			t.Fatalf("loaded %s = %+v (%v); the live index holds %+v", rel, got, ok, e)
		}
	}
	if _, ok := s.Files["src/f001.txt"]; ok {
		t.Fatal("a file deleted by a command is still in the loaded index")
	}
}

// Issue 27 item 3: a journal record torn by a crash is not applied (the
// saved index lags behind, as recovery allows; it never holds half a
// record), nor are records of a whole index written since by another
// writer.
// spec: X2
func TestTornJournalIsIgnored(t *testing.T) {
	dir := t.TempDir()
	m := New(Options{Dir: dir})
	defer m.Close()
	files := map[string]Entry{"a": {Mode: modeRegular | 0o644, Size: 1, SHA: "x"}}
	if _, err := m.save("s", saved{Root: "/w", Files: files, Gen: 7}); err != nil {
		t.Fatal(err)
	}
	files["b"] = Entry{Mode: modeRegular | 0o644, Size: 2, SHA: "y"}
	if _, err := m.appendJournal("s", 7, files, map[string]bool{"b": true}); err != nil {
		t.Fatal(err)
	}
	files["c"] = Entry{Mode: modeRegular | 0o644, Size: 3, SHA: "z"}
	if _, err := m.appendJournal("s", 8, files, map[string]bool{"c": true}); err != nil { // another generation
		t.Fatal(err)
	}
	delete(files, "a")
	if _, err := m.appendJournal("s", 7, files, map[string]bool{"a": true}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(m.journalPath("s"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.load("s")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Files["a"]; ok || s.Files["b"].SHA != "y" || len(s.Files) != 1 {
		t.Fatalf("whole journal: %v; want b alone (a dropped, c of another generation)", s.Files)
	}
	// The last record torn: the first one still applies, the drop of a does not.
	if err := os.WriteFile(m.journalPath("s"), raw[:len(raw)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err = m.load("s"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Files["a"]; !ok || s.Files["b"].SHA != "y" || len(s.Files) != 2 {
		t.Fatalf("torn journal: %v; want a and b", s.Files)
	}
}
