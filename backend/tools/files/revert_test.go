package files

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/tools"
)

// history keeps File Changes and their blobs as the engine would.
type history struct {
	changes []llm.FileChange
	blobs   map[string][]byte
}

func newHistory() *history { return &history{blobs: map[string][]byte{}} }

func (h *history) Blob(_ context.Context, sha string) ([]byte, error) {
	b, ok := h.blobs[sha]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", sha, store.ErrNotFound)
	}
	return b, nil
}

func (h *history) keep(fcs ...tools.FileChange) []llm.FileChange {
	var out []llm.FileChange
	for _, fc := range fcs {
		rec := fc.FileChange
		rec.ID = fmt.Sprintf("chg_%03d", len(h.changes)+1)
		if fc.Before != nil {
			h.blobs[digest(fc.Before)] = fc.Before
		}
		if fc.After != nil {
			h.blobs[digest(fc.After)] = fc.After
		}
		h.changes = append(h.changes, rec)
		out = append(out, rec)
	}
	return out
}

func newest(list []llm.FileChange) []llm.FileChange {
	out := slices.Clone(list)
	slices.Reverse(out)
	return out
}

// entryOf is one path of a tree: its mode and, for files, content.
type treeEntry struct {
	mode    fs.FileMode
	content string
}

// tree maps every path below dir to its mode and content.
func tree(t *testing.T, dir string) map[string]treeEntry {
	t.Helper()
	out := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := treeEntry{mode: fi.Mode()}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.content = string(b)
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]treeEntry) {
	t.Helper()
	if maps.Equal(got, want) {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: %s missing", what, k)
		} else if g != want[k] {
			t.Errorf("%s: %s is %v %q; want %v %q", what, k, g.mode, g.content, want[k].mode, want[k].content)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s should not exist", what, k)
		}
	}
	t.FailNow()
}

// spec: F1
// The property of revert: random writes, edits and deletes over a tree,
// then reverting every change (newest first) gives back the tree byte for
// byte and mode for mode; reverting those reverts gives back the changed
// tree. Every recorded diff applies with GNU patch.
func TestRevertAllProperty(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			f := newFixture(t)
			r := rand.New(rand.NewPCG(seed, 99))
			f.put("a.txt", "alpha\nbeta\ngamma\n", 0o644)
			f.put("secret.env", "KEY=1\n", 0o600)
			f.put("run.sh", "#!/bin/sh\necho hi\n", 0o755)
			f.put("dos.txt", "one\r\ntwo\r\n", 0o644)
			f.put("empty", "", 0o644)
			f.put("nonl", "no newline", 0o640)
			f.put("lib/x/deep.go", "package x\n\nfunc X() int { return 1 }\n", 0o644)
			f.put("lib/y.go", "package lib\n", 0o664)
			os.Chmod(f.path("lib/x"), 0o750)
			initial := tree(t, f.dir)

			h := newHistory()
			words := []string{"alpha", "beta", "delta", "epsilon", "\t", "{", "}", "", "x\r"}
			for range 40 {
				files, dirs := []string{}, []string{}
				for p, e := range tree(t, f.dir) {
					if e.mode.IsDir() {
						dirs = append(dirs, p)
					} else {
						files = append(files, p)
					}
				}
				slices.Sort(files)
				slices.Sort(dirs)
				var res tools.Result
				switch op := r.IntN(10); {
				case op < 4: // write, new or existing
					path := fmt.Sprintf("n%d.txt", r.IntN(5))
					if r.IntN(3) == 0 {
						path = fmt.Sprintf("new%d/sub%d/f.txt", r.IntN(2), r.IntN(2))
					} else if len(files) > 0 && r.IntN(2) == 0 {
						path = files[r.IntN(len(files))]
					}
					f.call("read", map[string]any{"path": path})
					res = f.call("write", map[string]any{"path": path, "content": string(mutate(r, []byte(f.maybe(path)), words))})
				case op < 8 && len(files) > 0: // edit a line
					path := files[r.IntN(len(files))]
					content := f.maybe(path)
					lines := splitLines(content)
					if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
						continue
					}
					line := lines[r.IntN(len(lines))]
					f.call("read", map[string]any{"path": path})
					res = f.call("edit", map[string]any{"path": path, "old_string": line, "new_string": line + words[r.IntN(len(words))] + "\n", "replace_all": true})
				case len(files)+len(dirs) > 0: // delete a file or a folder
					all := append(files, dirs...)
					res = f.call("delete", map[string]any{"path": all[r.IntN(len(all))]})
				}
				for _, fc := range res.FileChanges {
					if fc.Diff != "" && !fc.Binary && !fc.IsDir && strings.Contains(fc.Diff, "@@") {
						if got := string(applyPatch(t, fc.Before, fc.Diff)); got != string(fc.After) {
							t.Fatalf("patch of %s gives %q; want %q", fc.Path, got, fc.After)
						}
					}
				}
				h.keep(res.FileChanges...)
			}
			changed := tree(t, f.dir)
			if len(h.changes) < 10 {
				t.Fatalf("only %d changes made", len(h.changes))
			}

			rv := &Reverter{Blobs: h, Trash: f.trash}
			done, conflicts, err := rv.Revert(context.Background(), f.dir, newest(h.changes), false)
			if err != nil || len(conflicts) > 0 {
				for _, c := range h.changes {
					t.Logf("%s %s %s existed %v exists %v dir %v trash %s", c.ID, c.Op, strings.TrimPrefix(c.Path, f.dir), c.ExistedBefore, c.ExistsAfter, c.IsDir, c.TrashPath)
				}
				t.Fatalf("revert all: %v %+v", err, conflicts)
			}
			reverts := h.keep(done...)
			sameTree(t, "after revert-all", tree(t, f.dir), initial)

			done, conflicts, err = rv.Revert(context.Background(), f.dir, newest(reverts), false)
			if err != nil || len(conflicts) > 0 {
				t.Fatalf("revert the reverts: %v %+v", err, conflicts)
			}
			h.keep(done...)
			sameTree(t, "after reverting the revert", tree(t, f.dir), changed)
		})
	}
}

// maybe returns a file's content, or "" when it does not exist.
func (f *fixture) maybe(rel string) string {
	b, _ := os.ReadFile(f.path(rel))
	return string(b)
}

// A file changed after the change conflicts: revert stops with a report
// saying what is there against what was expected, changes nothing, and
// with force overwrites while keeping what it overwrote.
func TestRevertConflict(t *testing.T) {
	f := newFixture(t)
	h := newHistory()
	f.put("c.txt", "v1\n", 0o644)
	f.ok("read", map[string]any{"path": "c.txt"})
	chg := h.keep(f.ok("write", map[string]any{"path": "c.txt", "content": "v2\n"}).FileChanges...)
	os.WriteFile(f.path("c.txt"), []byte("v3 by the user\n"), 0o644)
	rv := &Reverter{Blobs: h, Trash: f.trash}
	done, conflicts, err := rv.Revert(context.Background(), f.dir, chg, false)
	if err != nil || len(done) > 0 || len(conflicts) != 1 {
		t.Fatalf("revert = %v, %v, %+v", done, err, conflicts)
	}
	c := conflicts[0]
	if c.Reason != "its content changed since this change" || c.ExpectedSHA != digest([]byte("v2\n")) || c.FoundSHA != digest([]byte("v3 by the user\n")) ||
		!strings.Contains(c.Diff, "-v2\n+v3 by the user\n") || !c.Forceable {
		t.Fatalf("conflict = %+v", c)
	}
	if f.get("c.txt") != "v3 by the user\n" {
		t.Fatal("a conflicting revert changed the file")
	}
	done, conflicts, err = rv.Revert(context.Background(), f.dir, chg, true)
	if err != nil || len(conflicts) > 0 || len(done) != 1 {
		t.Fatalf("forced revert = %v %+v", err, conflicts)
	}
	if f.get("c.txt") != "v1\n" || string(done[0].Before) != "v3 by the user\n" || done[0].RevertOf != chg[0].ID || done[0].Op != "revert" {
		t.Fatalf("forced revert left %q, change %+v", f.get("c.txt"), done[0].FileChange)
	}
}

// A deleted file comes back from the trash; when the trash item is gone,
// from its blob, with its mode.
func TestRevertDeleteFromTrashOrBlob(t *testing.T) {
	f := newFixture(t)
	h := newHistory()
	f.put("keep.sh", "#!/bin/sh\n", 0o751)
	f.put("gone.sh", "#!/bin/sh\nexit 1\n", 0o700)
	a := h.keep(f.ok("delete", map[string]any{"path": "keep.sh"}).FileChanges...)
	b := h.keep(f.ok("delete", map[string]any{"path": "gone.sh"}).FileChanges...)
	if err := os.Remove(b[0].TrashPath); err != nil { // the user emptied it from the trash
		t.Fatal(err)
	}
	rv := &Reverter{Blobs: h, Trash: f.trash}
	done, conflicts, err := rv.Revert(context.Background(), f.dir, append(b, a...), false)
	if err != nil || len(conflicts) > 0 || len(done) != 2 {
		t.Fatalf("revert = %v %+v", err, conflicts)
	}
	for name, mode := range map[string]fs.FileMode{"keep.sh": 0o751, "gone.sh": 0o700} {
		fi, err := os.Stat(f.path(name))
		if err != nil || fi.Mode().Perm() != mode {
			t.Fatalf("%s: %v %v; want mode %v", name, err, fi, mode)
		}
	}
	if f.get("gone.sh") != "#!/bin/sh\nexit 1\n" || f.inTrash(f.path("keep.sh")) {
		t.Fatal("not restored exactly")
	}
	// A folder without a trash item cannot come back: a clear error.
	f.put("d/x", "x", 0o644)
	c := h.keep(f.ok("delete", map[string]any{"path": "d"}).FileChanges...)
	os.RemoveAll(c[0].TrashPath)
	os.Remove(c[0].TrashInfo)
	_, _, err = rv.Revert(context.Background(), f.dir, c, false)
	if err == nil || !strings.Contains(err.Error(), "no longer in the trash") {
		t.Fatalf("folder without trash item: %v", err)
	}
}

// Hunks of one edit revert one at a time.
func TestRevertHunks(t *testing.T) {
	f := newFixture(t)
	h := newHistory()
	f.put("h.txt", numbered(1, 40), 0o644)
	f.ok("read", map[string]any{"path": "h.txt"})
	chg := h.keep(f.ok("edit", map[string]any{"path": "h.txt", "edits": []map[string]any{
		{"old_string": "line 5\n", "new_string": "LINE 5\n"},
		{"old_string": "line 20\n", "new_string": "LINE 20\n"},
		{"old_string": "line 35\n", "new_string": "LINE 35\n"}}}).FileChanges...)[0]
	rv := &Reverter{Blobs: h, Trash: f.trash}
	fc, cf, err := rv.RevertHunks(context.Background(), f.dir, chg, []int{2}, nil, false)
	if err != nil || cf != nil {
		t.Fatalf("hunk 2: %v %+v", err, cf)
	}
	want := strings.NewReplacer("line 5\n", "LINE 5\n", "line 35\n", "LINE 35\n").Replace(numbered(1, 40))
	if f.get("h.txt") != want || fc.RevertOf != chg.ID {
		t.Fatalf("after hunk 2:\n%s", f.get("h.txt"))
	}
	// The file is not the change's after any more: hunk 1 conflicts unless
	// the partial revert's result is accepted.
	if _, cf, _ := rv.RevertHunks(context.Background(), f.dir, chg, []int{1}, nil, false); cf == nil {
		t.Fatal("hunk 1 over a partial revert did not conflict")
	}
	if _, cf, err := rv.RevertHunks(context.Background(), f.dir, chg, []int{1}, []string{fc.SHAAfter}, false); err != nil || cf != nil {
		t.Fatalf("hunk 1: %v %+v", err, cf)
	}
	if _, _, err := rv.RevertHunks(context.Background(), f.dir, chg, []int{9}, nil, true); err == nil {
		t.Fatal("hunk 9 accepted")
	}
	if f.get("h.txt") != strings.Replace(numbered(1, 40), "line 35\n", "LINE 35\n", 1) {
		t.Fatalf("after hunks 2 and 1:\n%s", f.get("h.txt"))
	}
}
