package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
)

// One look returns at most one change per path, from what the index held
// before the look to what it holds after: the caller records each change
// as a File Change of its own, and two changes of one path from one look
// are stored in one commit in capture's order (changes in place before
// creations), not in the order they happened. Here the watcher reported
// a folder and a folder inside it (mkdir -p sub/deep), and a background
// command still running appends to sub/deep/d.txt while the look walks:
// each reported folder was walked, so the look found the file's creation
// in one walk and its append in the other, and the records read "write,
// then create from absent" (the crash harness under load: two records of
// one background command for sub/deep/d.txt that did not follow one
// another).
//
// spec: F1, B1
func TestOneLookGivesOneChangePerPath(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Dir: t.TempDir()})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "s", ws); err != nil { // builds the index
		t.Fatal(err)
	}
	m.Attach("s", okBarrier{})
	if _, err := m.Before(ctx, "s", ws); err != nil { // the full walk with the watcher attached
		t.Fatal(err)
	}
	d := filepath.Join(ws, "sub", "deep", "d.txt")
	// The command appends each time the walk is about to read the folder.
	var appends atomic.Int32
	testHookOpenDir = func(rel string) {
		if rel != "sub/deep" {
			return
		}
		f, err := os.OpenFile(d, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteString("background\n")
		f.Close()
		appends.Add(1)
	}
	defer func() { testHookOpenDir = nil }()
	for _, p := range []string{filepath.Join(ws, "sub"), filepath.Join(ws, "sub", "deep"), d} {
		m.Touch("s", p)
	}
	cp, err := m.Settled(ctx, "s", ws)
	if err != nil {
		t.Fatal(err)
	}
	testHookOpenDir = nil
	if appends.Load() == 0 {
		t.Fatal("the look never read sub/deep")
	}
	data, err := os.ReadFile(d)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	seen := map[string]int{}
	for _, fc := range cp.Changes {
		seen[fc.Path]++
		if seen[fc.Path] > 1 {
			t.Errorf("the look returned %d changes of %s: %v", seen[fc.Path], fc.Path, paths(cp, ws))
		}
	}
	for _, fc := range cp.Changes {
		if fc.Path != d {
			continue
		}
		if fc.ExistedBefore || !fc.ExistsAfter || fc.SHAAfter != hex.EncodeToString(sum[:]) {
			t.Errorf("d.txt's change: %s, existed %v→%v, sha …→%.8s; want its creation with what the disk holds (%.8x)",
				fc.Op, fc.ExistedBefore, fc.ExistsAfter, fc.SHAAfter, sum[:])
		}
	}
	if seen[d] == 0 {
		t.Errorf("the look did not find d.txt's creation: %v", paths(cp, ws))
	}
}

// roots keeps the paths no other given path is above; "" (the root) is
// above everything. A sibling whose name only starts like a folder's is
// not below it.
func TestRootsOfTouchedPaths(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"sub/deep/d.txt", "sub/deep", "sub"}, []string{"sub"}},
		{[]string{"sub/deep", "sub-x", "sub", "sub-x/y"}, []string{"sub", "sub-x"}},
		{[]string{"a.txt", "", "b/c"}, []string{""}},
		{[]string{"b/c", "a.txt", "b/c"}, []string{"a.txt", "b/c"}},
		{nil, []string{}},
	} {
		if got := roots(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("roots(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// onePerPath merges a path's changes from its first before side to its
// last after side, and drops a path that ends as it began.
func TestOnePerPathMergesInOrder(t *testing.T) {
	f := func(sha string) *Entry { return &Entry{Mode: modeRegular | 0o644, SHA: sha} }
	got := onePerPath([]Change{
		{Path: "/w/a", After: f("1")}, // created …
		{Path: "/w/b", Before: f("1"), After: f("2")},
		{Path: "/w/a", Before: f("1"), After: f("2")}, // … then written
		{Path: "/w/c", After: f("1")},                 // created …
		{Path: "/w/c", Before: f("1")},                // … then removed: nothing
		{Path: "/w/d", Before: f("1"), After: f("2")},
		{Path: "/w/d", Before: f("2"), After: f("1")}, // back as it was: nothing
	})
	var out []string
	for _, c := range got {
		out = append(out, fmt.Sprintf("%s %v→%v", c.Path, c.Before != nil && c.Before.SHA == "1", c.After != nil && c.After.SHA == "2"))
	}
	want := []string{"/w/a false→true", "/w/b true→true"}
	if !slices.Equal(out, want) || got[0].Before != nil {
		t.Errorf("onePerPath = %q; want %q", out, want)
	}
}
