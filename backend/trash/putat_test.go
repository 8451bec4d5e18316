//go:build unix && !darwin

package trash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// PutAt and RestoreAt move an entry of an open folder: once the folder is
// open, swapping it for a link to another folder changes nothing about
// what moves, and the .trashinfo names the path given (a sandboxed command
// can swap a folder for a link while a call runs).
func TestPutAtAndRestoreAtFollowTheDescriptor(t *testing.T) {
	e := newEnv(t)
	sub, other := filepath.Join(e.work, "sub"), filepath.Join(e.work, "other")
	writeFile(t, filepath.Join(sub, "x.txt"), "real")
	writeFile(t, filepath.Join(other, "x.txt"), "decoy")
	link := filepath.Join(e.work, "link")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	dir, err := os.Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if err := unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	shown := filepath.Join(sub, "x.txt")
	it, err := e.tr.PutAt(dir, "x.txt", shown)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, it.TrashedPath) != "real" || readFile(t, filepath.Join(other, "x.txt")) != "decoy" {
		t.Fatalf("PutAt moved the wrong file: trash %q", readFile(t, it.TrashedPath))
	}
	if info := readFile(t, it.InfoPath); !strings.Contains(info, "Path="+encodePath(shown)) || it.OriginalPath != shown {
		t.Fatalf("info %q, item %+v; want the shown path %s", info, it, shown)
	}
	// Restored through the same descriptor, the file comes back to the
	// real folder (now at link), not into the decoy.
	if err := e.tr.RestoreAt(it, dir, "x.txt"); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(link, "x.txt")) != "real" || readFile(t, filepath.Join(other, "x.txt")) != "decoy" {
		t.Fatal("RestoreAt put the file elsewhere")
	}
	mustNotExist(t, it.InfoPath)
	// Something in the way: ErrExists, and the item stays.
	it, err = e.tr.PutAt(dir, "x.txt", shown)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(link, "x.txt"), "new")
	if err := e.tr.RestoreAt(it, dir, "x.txt"); err == nil || !strings.Contains(err.Error(), ErrExists.Error()) {
		t.Fatalf("RestoreAt over a file = %v; want ErrExists", err)
	}
	for _, c := range []struct{ name, shown string }{{"", shown}, {"..", shown}, {"a/b", shown}, {"x.txt", "rel/x.txt"}, {"y.txt", shown}} {
		if _, err := e.tr.PutAt(dir, c.name, c.shown); err == nil {
			t.Errorf("PutAt(%q, %q) succeeded", c.name, c.shown)
		}
	}
}
