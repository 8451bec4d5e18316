package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/testwait"
)

// events collects a watcher's reports.
type events struct{ ch chan string }

func (e events) next(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-e.ch:
			if p == want {
				return
			}
		case <-deadline:
			t.Fatalf("no change reported for %s", want)
		}
	}
}

// The watcher reports changes anywhere in the tree, in folders created
// after it started too, and not in .git, ignored folders or Foya's own
// temporary files.
func TestWatcherSeesChanges(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(dir, "src", "deep"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "node_modules", "x"), 0o755)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n"), 0o644)
	ev := events{make(chan string, 100)}
	w, err := Watch(dir, WatchOptions{OnChange: func(p string) { ev.ch <- p }, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Watched() != 3 || w.Degraded() != "" { // dir, src, src/deep
		t.Fatalf("watching %d folders (%q); want 3", w.Watched(), w.Degraded())
	}
	os.WriteFile(filepath.Join(dir, ".git", "index"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "node_modules", "x", "y.js"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "src", tempPrefix+"1.tmp"), []byte("x"), 0o644)
	p := filepath.Join(dir, "src", "deep", "a.txt")
	os.WriteFile(p, []byte("a"), 0o644)
	ev.next(t, p)
	// A folder made later is watched, and files already in it reported.
	os.MkdirAll(filepath.Join(dir, "new", "inner"), 0o755)
	q := filepath.Join(dir, "new", "inner", "b.txt")
	os.WriteFile(q, []byte("b"), 0o644)
	ev.next(t, q)
	r := filepath.Join(dir, "new", "inner", "c.txt")
	os.WriteFile(r, []byte("c"), 0o644)
	ev.next(t, r)
	os.Remove(p)
	ev.next(t, p)
	w.Close()
	close(ev.ch)
	for p := range ev.ch {
		if strings.Contains(p, ".git") || strings.Contains(p, "node_modules") || strings.Contains(p, tempPrefix) {
			t.Errorf("reported %s", p)
		}
	}
}

// Past its limit the watcher says it is degraded, and keeps watching what
// it can.
func TestWatcherLimit(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for i := range 5 {
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%d", i)), 0o755)
	}
	told := make(chan string, 1)
	ev := events{make(chan string, 100)}
	w, err := Watch(dir, WatchOptions{MaxWatches: 3, OnChange: func(p string) { ev.ch <- p },
		OnDegraded: func(why string) { told <- why }, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Watched() != 3 || !strings.Contains(w.Degraded(), "watching only 3 folders") {
		t.Fatalf("watched %d, degraded %q", w.Watched(), w.Degraded())
	}
	if why := testwait.Receive(t, told, "the watcher's degraded notice"); why != w.Degraded() {
		t.Fatalf("told %q", why)
	}
	p := filepath.Join(dir, "top.txt")
	os.WriteFile(p, []byte("x"), 0o644)
	ev.next(t, p)
	if _, err := Watch(filepath.Join(dir, "missing"), WatchOptions{}); err == nil {
		t.Fatal("watching a missing folder worked")
	}
}

// Barrier returns only once the changes
// made before it were passed to OnChange, without waiting for a long
// debounce; its marker is outside the workspace and never reported; after
// Close it cannot confirm anything.
func TestWatcherBarrier(t *testing.T) {
	root := t.TempDir()
	seen := make(chan string, 16)
	w, err := Watch(root, WatchOptions{Debounce: time.Hour, OnChange: func(p string) { seen <- p }})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Barrier(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-seen:
		if p != filepath.Join(w.Root(), "a.txt") {
			t.Fatalf("reported %s; want a.txt", p)
		}
	default:
		t.Fatal("Barrier returned before a.txt was reported")
	}
	if err := w.Barrier(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-seen:
		t.Fatalf("reported %s: only the marker changed", p)
	default:
	}
	w.Close()
	if err := w.Barrier(t.Context()); err == nil {
		t.Fatal("Barrier after Close = nil; want ErrNoBarrier")
	}
}
