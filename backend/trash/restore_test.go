//go:build unix && !darwin

package trash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spec: D1
func TestRestoreKeepsBytesModeAndTimes(t *testing.T) {
	e := newEnv(t)
	mtime := time.Date(2020, 6, 7, 8, 9, 10, 0, time.UTC)
	file := filepath.Join(e.work, "sub", "f.bin")
	payload := string([]byte{0, 1, 2, 255, '\n', 'x'})
	writeFile(t, file, payload)
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.work, "tree")
	writeFile(t, filepath.Join(dir, "inner", "g.txt"), "g")
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, filepath.Join(dir, "inner", "g.txt"), dir} {
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path string
		mode fs.FileMode
	}{{file, 0o640}, {dir, fs.ModeDir | 0o750}} {
		it, err := e.tr.Put(tc.path)
		if err != nil {
			t.Fatalf("Put(%s): %v", tc.path, err)
		}
		mustNotExist(t, tc.path)
		if err := e.tr.Restore(it); err != nil {
			t.Fatalf("Restore(%s): %v", tc.path, err)
		}
		fi, err := os.Lstat(tc.path)
		if err != nil {
			t.Fatalf("restored %s: %v", tc.path, err)
		}
		if fi.Mode() != tc.mode {
			t.Errorf("restored %s mode = %v; want %v", tc.path, fi.Mode(), tc.mode)
		}
		if !fi.ModTime().Equal(mtime) {
			t.Errorf("restored %s mtime = %v; want %v", tc.path, fi.ModTime(), mtime)
		}
		mustNotExist(t, it.TrashedPath)
		mustNotExist(t, it.InfoPath)
	}
	if got := readFile(t, file); got != payload {
		t.Errorf("restored bytes = %q; want %q", got, payload)
	}
	if got := readFile(t, filepath.Join(dir, "inner", "g.txt")); got != "g" {
		t.Errorf("restored folder content = %q", got)
	}
	if items := listUnder(t, e.tr, e.trashRoot()); len(items) != 0 {
		t.Errorf("List() after restoring everything = %v; want empty", items)
	}
}

// spec: D1
func TestRestoreRecreatesMissingParents(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.work, "a", "b", "c.txt")
	writeFile(t, file, "c")
	it, err := e.tr.Put(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(e.work, "a")); err != nil { // the test's own empty folders
		t.Fatal(err)
	}
	if err := e.tr.Restore(it); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := readFile(t, file); got != "c" {
		t.Errorf("restored content = %q", got)
	}
}

// spec: D1
func TestRestoreRefusesToOverwrite(t *testing.T) {
	tests := []struct {
		name  string
		isDir bool
		block func(t *testing.T, path string) // puts something at the original path
	}{
		{"file over file", false, func(t *testing.T, p string) { writeFile(t, p, "newer") }},
		{"folder over empty folder", true, func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"file over dangling symlink", false, func(t *testing.T, p string) {
			if err := os.Symlink("/nonexistent", p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := filepath.Join(e.work, "x")
			if tt.isDir {
				writeFile(t, filepath.Join(p, "old.txt"), "old")
			} else {
				writeFile(t, p, "old")
			}
			it, err := e.tr.Put(p)
			if err != nil {
				t.Fatal(err)
			}
			tt.block(t, p)
			before, _ := os.Lstat(p)

			err = e.tr.Restore(it)
			if !errors.Is(err, ErrExists) {
				t.Fatalf("Restore onto an existing path = %v; want ErrExists", err)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the path", err)
			}
			after, err := os.Lstat(p)
			if err != nil || after.Mode() != before.Mode() {
				t.Errorf("the path in the way changed: %v, %v", after, err)
			}
			mustExist(t, it.TrashedPath)
			mustExist(t, it.InfoPath)
		})
	}
}

func TestRestoreMissingItem(t *testing.T) {
	e := newEnv(t)
	p := filepath.Join(e.work, "gone.txt")
	writeFile(t, p, "x")
	it, err := e.tr.Put(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.tr.Restore(it); err != nil {
		t.Fatal(err)
	}
	if err := e.tr.Restore(it); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Restore = %v; want ErrNotFound", err)
	}
	if got := readFile(t, p); got != "x" {
		t.Errorf("second Restore disturbed the file: %q", got)
	}

	// The trashed item was emptied from the trash by someone else.
	if err := os.Remove(p); err != nil { // the test's own file
		t.Fatal(err)
	}
	writeFile(t, p, "y")
	it, err = e.tr.Put(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(it.TrashedPath); err != nil {
		t.Fatal(err)
	}
	if err := e.tr.Restore(it); !errors.Is(err, ErrNotFound) {
		t.Errorf("Restore of an emptied item = %v; want ErrNotFound", err)
	}
	mustNotExist(t, p)
}

// spec: D1
func TestRestoreRefusesReusedName(t *testing.T) {
	// Foya trashed a/f.txt; the user restored it elsewhere and another
	// f.txt took the same trash name. Foya's old item must not bring the
	// other file back to a/f.txt.
	e := newEnv(t)
	first := filepath.Join(e.work, "a", "f.txt")
	writeFile(t, first, "first")
	it, err := e.tr.Put(first)
	if err != nil {
		t.Fatal(err)
	}
	restoredElsewhere := filepath.Join(e.work, "f.txt.restored")
	if err := os.Rename(it.TrashedPath, restoredElsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(it.InfoPath); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(e.work, "b", "f.txt")
	writeFile(t, second, "second")
	it2, err := e.tr.Put(second)
	if err != nil {
		t.Fatal(err)
	}
	if it2.TrashedPath != it.TrashedPath {
		t.Fatalf("setup: second item trashed as %s, want the reused name %s", it2.TrashedPath, it.TrashedPath)
	}
	if err := e.tr.Restore(it); !errors.Is(err, ErrNotFound) {
		t.Errorf("Restore of the stale item = %v; want ErrNotFound", err)
	}
	mustNotExist(t, first)
	mustExist(t, it2.TrashedPath)

	// Same path trashed again at another time: the date tells them apart.
	e.tr.now = func() time.Time { return fixedNow.Add(time.Hour) }
	if err := e.tr.Restore(it2); err != nil {
		t.Fatal(err)
	}
	it3, err := e.tr.Put(second)
	if err != nil {
		t.Fatal(err)
	}
	stale := it2
	stale.DeletedAt = fixedNow
	if it3.TrashedPath != stale.TrashedPath {
		t.Fatalf("setup: trashed as %s; want %s", it3.TrashedPath, stale.TrashedPath)
	}
	if err := e.tr.Restore(stale); !errors.Is(err, ErrNotFound) {
		t.Errorf("Restore with the wrong deletion date = %v; want ErrNotFound", err)
	}
}

func TestRestoreBadInput(t *testing.T) {
	e := newEnv(t)
	p := filepath.Join(e.work, "f.txt")
	writeFile(t, p, "f")
	it, err := e.tr.Put(p)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(e.work, "outside.txt")
	writeFile(t, outside, "not in any trash")
	fakeTrash := filepath.Join(e.work, "fake", "files", "outside.txt")
	writeFile(t, fakeTrash, "fake")

	mod := func(f func(*Item)) Item { c := it; f(&c); return c }
	tests := []struct {
		name string
		it   Item
		want string
	}{
		{"zero item", Item{}, "not a clean absolute path"},
		{"relative original", mod(func(c *Item) { c.OriginalPath = "f.txt" }), "not a clean absolute path"},
		{"unclean original", mod(func(c *Item) { c.OriginalPath = e.work + "/x/../f.txt" }), "not a clean absolute path"},
		{"trashed outside a trash", mod(func(c *Item) { c.TrashedPath = outside; c.InfoPath = "" }), "not in a trash's files folder"},
		{"foreign files folder", mod(func(c *Item) {
			c.TrashedPath = fakeTrash
			c.InfoPath = filepath.Join(e.work, "fake", "info", "outside.txt.trashinfo")
		}), "not one of this user's trash folders"},
		{"info of another item", mod(func(c *Item) { c.InfoPath = filepath.Join(filepath.Dir(it.InfoPath), "other.trashinfo") }), "does not belong"},
		{"other original path", mod(func(c *Item) { c.OriginalPath = outside + ".new" }), "another deletion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.tr.Restore(tt.it)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Restore(%+v) = %v; want an error mentioning %q", tt.it, err, tt.want)
			}
		})
	}
	mustExist(t, it.TrashedPath)
	mustExist(t, it.InfoPath)
	mustExist(t, outside)
	mustExist(t, fakeTrash)
	mustNotExist(t, p)
	if err := e.tr.Restore(it); err != nil {
		t.Fatalf("the real item no longer restores: %v", err)
	}
}

// spec: D1
func TestListAndRestoreItemsOfOtherTools(t *testing.T) {
	// Entries written by other implementations: a relative Path in the home
	// trash (relative to $XDG_DATA_HOME), the compact date of the spec's
	// example, extra keys and a second Path line that must be ignored.
	e := newEnv(t)
	root := e.trashRoot()
	writeFile(t, filepath.Join(root, "files", "doc"), "doc")
	writeFile(t, filepath.Join(root, "info", "doc.trashinfo"),
		"[Trash Info]\nPath=restored/doc%20one\nX-Other=1\nPath=/elsewhere\nDeletionDate=20040831T22:32:08\n")
	items := listUnder(t, e.tr, e.trashRoot())
	if len(items) != 1 {
		t.Fatalf("List() = %+v; want one item", items)
	}
	it := items[0]
	if want := filepath.Join(e.data, "restored", "doc one"); it.OriginalPath != want {
		t.Errorf("OriginalPath = %q; want %q", it.OriginalPath, want)
	}
	if want := time.Date(2004, 8, 31, 22, 32, 8, 0, time.Local); !it.DeletedAt.Equal(want) {
		t.Errorf("DeletedAt = %v; want %v", it.DeletedAt, want)
	}
	if err := e.tr.Restore(it); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(e.data, "restored", "doc one")); got != "doc" {
		t.Errorf("restored content = %q", got)
	}

	// A relative path climbing out with ".." is rejected, not followed.
	writeFile(t, filepath.Join(root, "files", "evil"), "evil")
	writeFile(t, filepath.Join(root, "info", "evil.trashinfo"), "[Trash Info]\nPath=../../evil\nDeletionDate=2024-01-01T00:00:00\n")
	if items := listUnder(t, e.tr, e.trashRoot()); len(items) != 0 {
		t.Errorf("List() with a .. path = %+v; want it left out", items)
	}
}
