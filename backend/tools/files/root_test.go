//go:build linux

package files

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"foya/backend/approval"
	"foya/backend/testwait"
	"foya/backend/tools"
)

const outsideText = "OUTSIDE\n"

// linkedFixture is a fixture whose workspace holds the folder sub (with
// x.txt, d.txt and deep/y.txt) and a link, link, to an outside folder
// holding files of the same names with outsideText.
func linkedFixture(t *testing.T) (*fixture, string) {
	f := newFixture(t)
	out, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x.txt", "d.txt", "deep/y.txt", "w.txt"} {
		f.put("sub/"+name, "inside\n", 0o644)
		p := filepath.Join(out, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(outsideText), 0o644)
	}
	if err := os.Symlink(out, f.path("link")); err != nil {
		t.Fatal(err)
	}
	return f, out
}

// exchange swaps the paths a and b atomically.
func exchange(t testing.TB, a, b string) {
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		t.Fatalf("exchange %s %s: %v", a, b, err)
	}
}

// untouched fails unless every file of the outside folder still holds
// outsideText, and nothing else is there.
func untouched(t *testing.T, out string, names ...string) {
	t.Helper()
	n := 0
	filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		n++
		if b, _ := os.ReadFile(p); string(b) != outsideText {
			t.Errorf("outside %s = %q; want %q", p, b, outsideText)
		}
		return nil
	})
	if n != len(names) {
		t.Errorf("the outside folder holds %d files; want %d", n, len(names))
	}
}

// A symlink swap: the folder sub is swapped for a link to an outside
// folder after the tool checked the path (while the approval gateway is
// asked, which every call does, inside reads too) and before it uses it.
// Every tool must then fail with an is_error result that says so, and
// nothing outside is read, written or trashed.
//
// spec: A1, D2
func TestSwapBetweenCheckAndUse(t *testing.T) {
	for _, c := range []struct {
		tool string
		args map[string]any
		// prep runs before the call, with sub a folder.
		prep func(f *fixture)
	}{
		{tool: "read", args: map[string]any{"path": "sub/x.txt"}},
		{tool: "read", args: map[string]any{"path": "sub/deep/y.txt"}},
		{tool: "write", args: map[string]any{"path": "sub/x.txt", "content": "new\n"}, prep: func(f *fixture) { f.ok("read", map[string]any{"path": "sub/x.txt"}) }},
		{tool: "write", args: map[string]any{"path": "sub/new.txt", "content": "new\n"}},
		{tool: "write", args: map[string]any{"path": "sub/deep/new/z.txt", "content": "new\n"}},
		{tool: "edit", args: map[string]any{"path": "sub/x.txt", "old_string": "inside", "new_string": "edited"}, prep: func(f *fixture) { f.ok("read", map[string]any{"path": "sub/x.txt"}) }},
		{tool: "delete", args: map[string]any{"path": "sub/d.txt"}},
		{tool: "delete", args: map[string]any{"path": "sub/deep"}},
		{tool: "ls", args: map[string]any{"path": "sub"}},
		{tool: "ls", args: map[string]any{"path": "sub/deep"}},
		{tool: "glob", args: map[string]any{"pattern": "**/*.txt", "path": "sub"}},
		{tool: "grep", args: map[string]any{"pattern": "OUTSIDE", "path": "sub"}},
		{tool: "grep", args: map[string]any{"pattern": "OUTSIDE", "path": "sub/x.txt"}},
	} {
		t.Run(fmt.Sprintf("%s %v", c.tool, c.args["path"]), func(t *testing.T) {
			f, out := linkedFixture(t)
			if c.prep != nil {
				c.prep(f)
			}
			swapped := false
			f.rc.Approval = func(ctx context.Context, req approval.Request) (approval.Outcome, error) {
				if !swapped && req.CallID == "call_1" {
					exchange(t, f.path("sub"), f.path("link"))
					swapped = true
				}
				return approval.Outcome{Allowed: true}, nil
			}
			res := f.call(c.tool, c.args)
			if !swapped {
				t.Fatal("the approval was never asked")
			}
			if !res.IsError || !strings.Contains(res.Text, "changed into a link that leads outside the workspace") {
				t.Errorf("%s = %q (is_error %v); want the refusal", c.tool, res.Text, res.IsError)
			}
			if strings.Contains(res.Text, strings.TrimSpace(outsideText)+"\n") || strings.Contains(res.Text, ":1:OUTSIDE") {
				t.Errorf("%s read the outside folder: %q", c.tool, res.Text)
			}
			untouched(t, out, "x.txt", "d.txt", "deep/y.txt", "w.txt")
			if list, _ := os.ReadDir(filepath.Join(f.home, ".local", "share", "Trash", "files")); len(list) > 0 {
				t.Errorf("the trash holds %d items", len(list))
			}
		})
	}
}

// A symlink swap after the open: a folder opened for a write, a trash move or a walk
// stays the folder it was: swapped for a link after it was opened, the
// operations through its descriptor act on the real folder, wherever it
// now is inside the workspace.
func TestOpenFolderSurvivesASwap(t *testing.T) {
	f, out := linkedFixture(t)
	root, err := os.OpenRoot(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	sub := rootLoc(root, f.dir, "sub")

	h, err := openDirHandle(sub)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := sub.openDirFile()
	if err != nil {
		t.Fatal(err)
	}
	exchange(t, f.path("sub"), f.path("link"))
	// The walk's handle reads the real folder, now at link.
	if b, err := h.readFile("x.txt", nil, 1<<20); err != nil || string(b) != "inside\n" {
		t.Errorf("readFile through the open folder = %q, %v", b, err)
	}
	deep, err := h.openDir("deep")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := deep.readFile("y.txt", nil, 1<<20); err != nil || string(b) != "inside\n" {
		t.Errorf("deep/y.txt = %q, %v", b, err)
	}
	deep.close()
	h.close()
	// The trash move goes from the descriptor.
	it, err := f.trash.PutAt(dir, "d.txt", f.path("sub/d.txt"))
	dir.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(it.TrashedPath); string(b) != "inside\n" {
		t.Errorf("the trash got %q; want the inside file", b)
	}
	if _, err := os.Lstat(f.path("link/d.txt")); err == nil {
		t.Error("the inside d.txt is still there")
	}
	untouched(t, out, "x.txt", "d.txt", "deep/y.txt", "w.txt")
	// Resolved through the root now, sub is a link out: refused.
	if _, err := snapshot(rootLoc(root, f.dir, "sub/x.txt"), MaxKeep); !isEscape(err) {
		t.Errorf("snapshot through a link out = %v; want the root's refusal", err)
	}
	if err := writeAtomic(rootLoc(root, f.dir, "sub/x.txt"), []byte("x"), defaultMode); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("writeAtomic through a link out = %v", err)
	}
	untouched(t, out, "x.txt", "d.txt", "deep/y.txt", "w.txt")
}

// The symlink-swap race itself: one goroutine keeps exchanging sub
// with a link to an outside folder while reads, writes, edits, deletes and
// greps under sub run (the reads and greps in parallel, as the engine runs
// them). Outside reads the gateway asks about are denied. Nothing outside
// may be read, written or trashed; every call acts inside or fails with an
// is_error result.
//
// spec: A1, D2, P1
func TestSymlinkSwapRace(t *testing.T) {
	f, out := linkedFixture(t)
	const n = 200
	for i := range n {
		f.put(fmt.Sprintf("sub/d%d.txt", i), "inside\n", 0o644)
	}
	var mu sync.Mutex
	f.mode(approval.Auto, false)
	approve := f.rc.Approval
	f.rc.Approval = func(ctx context.Context, req approval.Request) (approval.Outcome, error) {
		mu.Lock()
		defer mu.Unlock()
		return approve(ctx, req)
	}
	stop := make(chan struct{})
	var swaps atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				exchange(t, f.path("sub"), f.path("link"))
				swaps.Add(1)
			}
		}
	}()
	run := func(name string, args map[string]any) tools.Result {
		res, err := f.tools[name].Run(context.Background(), f.rc, tools.Call{ID: "c", Name: name, Arguments: mustJSON(args)})
		if err != nil {
			t.Errorf("%s: Go error %v", name, err)
		}
		if strings.Contains(res.Text, "OUTSIDE") && !strings.Contains(res.Text, `"OUTSIDE"`) {
			t.Errorf("%s %v read the outside folder: %q", name, args, res.Text)
		}
		return res
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range n {
				run("read", map[string]any{"path": "sub/x.txt"})
				run("grep", map[string]any{"pattern": "OUTSIDE", "path": "."})
				run("ls", map[string]any{"path": "sub/deep"})
			}
		})
	}
	var deleted atomic.Int64
	for i := range n {
		run("write", map[string]any{"path": fmt.Sprintf("sub/new%d.txt", i), "content": "new\n"})
		if !run("delete", map[string]any{"path": fmt.Sprintf("sub/d%d.txt", i)}).IsError {
			deleted.Add(1)
		}
	}
	wg.Wait()
	close(stop)
	testwait.Receive(t, done, "the swapper to stop")
	t.Logf("%d swaps, %d deletes done", swaps.Load(), deleted.Load())
	untouched(t, out, "x.txt", "d.txt", "deep/y.txt", "w.txt")
	list, _ := os.ReadDir(filepath.Join(f.home, ".local", "share", "Trash", "files"))
	for _, e := range list {
		if b, _ := os.ReadFile(filepath.Join(f.home, ".local", "share", "Trash", "files", e.Name())); string(b) != "inside\n" {
			t.Errorf("the trash holds %s: %q", e.Name(), b)
		}
	}
	if int64(len(list)) != deleted.Load() {
		t.Errorf("%d items in the trash; want %d", len(list), deleted.Load())
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
