package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 15 "Bad input": a file that grows while it is read is not kept (a
// copy that matches no moment of the file would restore garbage).
func TestContentOfAFileThatChangedWhileRead(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "log"), "one\n")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fi, _ := os.Lstat(filepath.Join(dir, "log"))
	seen := entryOf(fi)
	f, _ := os.OpenFile(filepath.Join(dir, "log"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("two\n")
	f.Close()
	if data, sha, why := content(root, "log", seen, 1<<20); why != whyUnstable || data != nil || sha != "" {
		t.Fatalf("content = %q, %q, %q; want not kept: %q", data, sha, why, whyUnstable)
	}
	fi, _ = os.Lstat(filepath.Join(dir, "log"))
	if data, _, why := content(root, "log", entryOf(fi), 4); why == "" || data != nil {
		t.Fatalf("a file past the cap: %q, %q; want not kept", data, why)
	}
}

// Issue 15 item 1: ignored folders are not walked, ignored files are
// tracked without a copy, and their changes are marked not restorable.
func TestIgnoredFilesAreRecordedNotKept(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".gitignore"), "*.log\nbuild/\n")
	write(t, filepath.Join(ws, "a.log"), "log\n")
	write(t, filepath.Join(ws, "build", "out"), "out\n")
	write(t, filepath.Join(ws, "src.go"), "package p\n")
	m := New(Options{Dir: t.TempDir()})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "a.log"), "log\nmore\n")
	write(t, filepath.Join(ws, "build", "out"), "changed\n")
	write(t, filepath.Join(ws, "src.go"), "package q\n")
	c, err := m.After(ctx, "s", ws)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, fc := range c.Changes {
		got[filepath.Base(fc.Path)] = fc.NotRestorable
	}
	if len(got) != 2 || !strings.Contains(got["a.log"], ".gitignore") || got["src.go"] != "" {
		t.Fatalf("changes %q; want a.log (not restorable, ignored) and src.go (restorable), nothing of build/", got)
	}
}

// Issue 15 item 5: deleting a session prunes the blobs only it kept; a
// content another session's index keeps stays.
func TestDeleteSessionPrunesOnlyWhatNoIndexKeeps(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	write(t, filepath.Join(one, "shared.txt"), "shared\n")
	write(t, filepath.Join(two, "shared.txt"), "shared\n")
	write(t, filepath.Join(one, "own.txt"), "only in one\n")
	m := New(Options{Dir: t.TempDir()})
	defer m.Close()
	ctx := context.Background()
	for id, ws := range map[string]string{"one": one, "two": two} {
		if _, err := m.Before(ctx, id, ws); err != nil {
			t.Fatal(err)
		}
	}
	if u := m.Usage(); u.Blobs != 2 || u.Indexes != 2 {
		t.Errorf("usage %+v; want 2 blobs (the shared content kept once) and 2 indexes", u)
	}
	if err := m.DeleteSession("one"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Prune(0); err != nil {
		t.Fatal(err)
	}
	if !m.blobs.has(digest([]byte("shared\n"))) {
		t.Error("the content session two keeps was pruned")
	}
	if m.blobs.has(digest([]byte("only in one\n"))) {
		t.Error("the content only the deleted session kept is still there")
	}
}

// TestAfterDoesNotSaveBeforeTheResultIsStored: the saved index is what
// recovery compares the disk with after a crash, so After leaves a
// command's changes out of it (a kill before the call's result is stored
// must still find them); the next Before, and Close, save them. Found by
// the crash harness.
// spec: X2, F1
func TestAfterDoesNotSaveBeforeTheResultIsStored(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "a.txt"), "one\n")
	dir := t.TempDir()
	m := New(Options{Dir: dir})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	savedA := func() (Entry, bool) {
		t.Helper()
		s, err := m.load("s")
		if err != nil {
			t.Fatalf("load the saved index: %v", err)
		}
		e, ok := s.Files["a.txt"]
		return e, ok
	}
	if _, ok := savedA(); !ok {
		t.Fatal("the first look saved no a.txt")
	}
	if err := os.Remove(filepath.Join(ws, "a.txt")); err != nil {
		t.Fatal(err)
	}
	c, err := m.After(ctx, "s", ws)
	if err != nil || len(c.Changes) != 1 {
		t.Fatalf("After: %+v, %v; want the deletion", c.Changes, err)
	}
	if _, ok := savedA(); !ok {
		t.Fatal("After saved the command's deletion before its result could be stored")
	}
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	if _, ok := savedA(); ok {
		t.Fatal("the next Before did not save the deletion")
	}
}

// The look before a command while a background command lives (Settled)
// hands the command's changes to the caller to record: the saved index,
// which recovery compares the disk with after a crash, must not hold them
// until Save says the records are stored. Saved at once, a kill between
// the look and the records left a change no record held (the crash
// harness under load).
func TestSettledDoesNotSaveBeforeTheRecordsAreStored(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "a.txt"), "one\n")
	m := New(Options{Dir: t.TempDir()})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	savedA := func() string {
		t.Helper()
		s, err := m.load("s")
		if err != nil {
			t.Fatalf("load the saved index: %v", err)
		}
		return s.Files["a.txt"].SHA
	}
	first := savedA()
	write(t, filepath.Join(ws, "a.txt"), "one\nbackground\n")
	cp, err := m.Settled(ctx, "s", ws)
	if err != nil || len(cp.Changes) != 1 {
		t.Fatalf("Settled: %+v, %v; want the append", cp.Changes, err)
	}
	if got := savedA(); got != first {
		t.Fatal("Settled saved the background command's change before its record could be stored")
	}
	m.Save("s")
	if got := savedA(); got == first {
		t.Fatal("Save did not save the change Settled found")
	}
}

// A build against a saved index finds what changed while no Foya looked
// (pending, for recovery or the next look to record): it must not save
// that before it is recorded, or a second crash in between loses it.
func TestBuildDoesNotSaveWhatItFoundAgainstTheSavedIndex(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "a.txt"), "one\n")
	dir := t.TempDir()
	ctx := context.Background()
	m := New(Options{Dir: dir})
	if _, err := m.Before(ctx, "s", ws); err != nil {
		t.Fatal(err)
	}
	m.Close()
	write(t, filepath.Join(ws, "a.txt"), "two\n")
	reopen := func() *Manager {
		m := New(Options{Dir: dir})
		if _, err := m.built(ctx, "s", ws); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m = reopen()
	// A crash now: nothing saved what the build found.
	m.cancel()
	m.wg.Wait()
	m = reopen()
	defer m.Close()
	cp, err := m.Recover(ctx, "s", ws)
	if err != nil || len(cp.Changes) != 1 {
		t.Fatalf("Recover after a second start: %+v, %v; want a.txt's change, found again", cp.Changes, err)
	}
}
