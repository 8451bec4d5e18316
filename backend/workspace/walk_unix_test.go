//go:build unix

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 21 item 9: the walk never follows a link. A folder is swapped for
// a link to a folder outside the workspace after its parent was listed and
// just before the walk opens it (the moment a renameat2 exchange race
// hits, pinned here by a hook instead of a spinning swapper); or its
// parent is swapped just before the folder itself is opened. Walking by
// path (the code before the fix) listed the outside folder and recorded
// its names as the workspace's; walking descriptor to descriptor with
// O_NOFOLLOW does not enter the link, and a sub-folder opened beneath its
// parent's descriptor is the one that was listed.
//
// spec: A1
func TestWalkNeverFollowsAFolderSwappedForALink(t *testing.T) {
	for _, tc := range []struct{ name, at string }{
		{"the folder itself", "sub"},
		{"its parent", "sub/deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, out := t.TempDir(), t.TempDir()
			write(t, filepath.Join(ws, "sub", "a.txt"), "a\n")
			write(t, filepath.Join(ws, "sub", "deep", "b.txt"), "b\n")
			write(t, filepath.Join(out, "secret.txt"), "outside\n")
			write(t, filepath.Join(out, "deep", "outside.txt"), "outside\n")
			m := New(Options{Dir: t.TempDir()})
			defer m.Close()
			ctx := context.Background()
			if _, err := m.Before(ctx, "s", ws); err != nil {
				t.Fatal(err)
			}
			swapped := 0
			testHookOpenDir = func(rel string) {
				if rel != tc.at || swapped > 0 {
					return
				}
				swapped++
				sub := filepath.Join(ws, "sub")
				if err := os.Rename(sub, filepath.Join(ws, "moved")); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(out, sub); err != nil {
					t.Error(err)
				}
			}
			defer func() { testHookOpenDir = nil }()
			cp, err := m.After(ctx, "s", ws)
			if err != nil {
				t.Fatal(err)
			}
			if swapped != 1 {
				t.Fatalf("the walk opened %q %d times; want 1", tc.at, swapped)
			}
			for _, fc := range cp.Changes {
				if strings.Contains(fc.Path, "secret") || strings.Contains(fc.Path, "outside") {
					t.Errorf("the capture recorded a name from outside the workspace: %s %s", fc.Op, fc.Path)
				}
			}
			ix := m.lookup("s")
			ix.mu.Lock()
			defer ix.mu.Unlock()
			for rel := range ix.files {
				if strings.Contains(rel, "secret") || strings.Contains(rel, "outside") {
					t.Errorf("the index holds %q, a name from outside the workspace", rel)
				}
			}
		})
	}
}
