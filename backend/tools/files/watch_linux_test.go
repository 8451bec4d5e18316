package files

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// inotifyInstances counts the inotify instances this process holds.
func inotifyInstances(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// Watchers share one inotify instance: more workspaces are watched than a
// user may have instances by default (fs.inotify.max_user_instances is
// 128, for all of the user's programs), each watcher sees its own changes
// only, two on one folder both see its changes and one closing leaves the
// other's watches, and none is left once all are closed.
func TestWatchersShareOneInstance(t *testing.T) {
	if n := inotifyInstances(t); n != 0 {
		t.Fatalf("%d inotify instances before the test; want 0 (a test left a watcher open)", n)
	}
	const n = 200
	type watched struct {
		w  *Watcher
		ev events
	}
	ws := make([]watched, n)
	for i := range ws {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		ev := events{make(chan string, 16)}
		w, err := Watch(dir, WatchOptions{OnChange: func(p string) { ev.ch <- p }, Debounce: 20 * time.Millisecond})
		if err != nil {
			t.Fatalf("watcher %d of %d: %v", i+1, n, err)
		}
		defer w.Close()
		ws[i] = watched{w, ev}
	}
	if got := inotifyInstances(t); got != 1 {
		t.Fatalf("%d watchers hold %d inotify instances; want 1", n, got)
	}
	for i, x := range ws {
		p := filepath.Join(x.w.Root(), "sub", fmt.Sprintf("f%d.txt", i))
		os.WriteFile(p, []byte("x"), 0o644)
		x.ev.next(t, p)
		if err := x.w.Barrier(t.Context()); err != nil {
			t.Fatal(err)
		}
		// Everything it saw is reported by now: its own file only (twice
		// when the create and the write came more than Debounce apart).
		for len(x.ev.ch) > 0 {
			if q := <-x.ev.ch; q != p {
				t.Fatalf("watcher %d reported %s; want only its own change", i, q)
			}
		}
	}

	// A second watcher on the first one's folder; the first closes.
	first := ws[0]
	ev := events{make(chan string, 16)}
	second, err := Watch(first.w.Root(), WatchOptions{OnChange: func(p string) { ev.ch <- p }, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	p := filepath.Join(first.w.Root(), "sub", "both.txt")
	os.WriteFile(p, []byte("x"), 0o644)
	first.ev.next(t, p)
	ev.next(t, p)
	first.w.Close()
	q := filepath.Join(first.w.Root(), "sub", "after.txt")
	os.WriteFile(q, []byte("x"), 0o644)
	ev.next(t, q)

	for _, x := range ws {
		x.w.Close()
	}
	second.Close()
	if got := inotifyInstances(t); got != 0 {
		t.Fatalf("%d inotify instances left after every watcher closed; want 0", got)
	}
}
