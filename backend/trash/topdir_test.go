//go:build unix && !darwin

package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"foya/backend/testwait"
)

// TestTopdirTrashRules checks the choice between $topdir/.Trash/$uid and
// $topdir/.Trash-$uid on a plain folder standing in for a mount point.
func TestTopdirTrashRules(t *testing.T) {
	const uid = 4242
	tests := []struct {
		name    string
		setup   func(t *testing.T, top string)
		want    string // trash root relative to top
		problem string // for a .Trash that fails the checks
	}{
		{"no .Trash: private trash", func(t *testing.T, top string) {}, ".Trash-4242", ""},
		{"sticky .Trash: shared trash", func(t *testing.T, top string) {
			mkdirMode(t, filepath.Join(top, ".Trash"), 0o777|fs.ModeSticky)
		}, ".Trash/4242", ""},
		{"sticky .Trash with our folder already", func(t *testing.T, top string) {
			mkdirMode(t, filepath.Join(top, ".Trash"), 0o777|fs.ModeSticky)
			mkdirMode(t, filepath.Join(top, ".Trash", "4242"), 0o700)
		}, ".Trash/4242", ""},
		{".Trash without sticky bit: private trash", func(t *testing.T, top string) {
			mkdirMode(t, filepath.Join(top, ".Trash"), 0o777)
		}, ".Trash-4242", "sticky"},
		{".Trash is a symlink to a sticky folder: private trash", func(t *testing.T, top string) {
			real := filepath.Join(top, "realtrash")
			mkdirMode(t, real, 0o777|fs.ModeSticky)
			if err := os.Symlink(real, filepath.Join(top, ".Trash")); err != nil {
				t.Fatal(err)
			}
		}, ".Trash-4242", "symbolic link"},
		{".Trash is a file: private trash", func(t *testing.T, top string) {
			writeFile(t, filepath.Join(top, ".Trash"), "")
		}, ".Trash-4242", "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			tt.setup(t, top)
			tr := New(Options{Home: t.TempDir(), UID: uid, UIDSet: true})
			d, err := tr.topdirTrash(top)
			if err != nil {
				t.Fatalf("topdirTrash: %v", err)
			}
			if want := filepath.Join(top, tt.want); d.root != want || d.base != top || d.home {
				t.Errorf("topdirTrash = %+v; want root %s, base %s", d, want, top)
			}
			for _, sub := range []string{"", "files", "info"} {
				fi, err := os.Lstat(filepath.Join(d.root, sub))
				if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
					t.Errorf("%s/%s: %v, %v; want a 0700 directory", d.root, sub, fi, err)
				}
			}
			_, why := sharedTrashUsable(filepath.Join(top, ".Trash"))
			if !strings.Contains(why, tt.problem) {
				t.Errorf("check of .Trash says %q; want it to mention %q", why, tt.problem)
			}
			if _, err := os.Lstat(filepath.Join(top, ".Trash", "4242")); tt.problem != "" && err == nil {
				t.Error("the failed .Trash was used anyway")
			}
		})
	}
}

func TestTopdirTrashRefusesForeignFolder(t *testing.T) {
	top := t.TempDir()
	other := filepath.Join(top, "elsewhere")
	mkdirMode(t, other, 0o700)
	if err := os.Symlink(other, filepath.Join(top, ".Trash-4242")); err != nil {
		t.Fatal(err)
	}
	tr := New(Options{Home: t.TempDir(), UID: 4242, UIDSet: true})
	_, err := tr.topdirTrash(top)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "not a real directory") {
		t.Fatalf("topdirTrash with a planted symlink = %v; want ErrUnsupported naming the problem", err)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Errorf("the symlink target was used: %v", entries)
	}
}

func mkdirMode(t *testing.T, dir string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // Mkdir's mode is cut by the umask
		t.Fatal(err)
	}
}

// mountTmpfs mounts a fresh tmpfs on a temporary folder, or skips the test
// saying why it cannot.
func mountTmpfs(t *testing.T, opts ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testwait.Missing(t, "root (mounting a tmpfs needs it)", "trashing on another filesystem")
	}
	dir := t.TempDir()
	args := append([]string{"-t", "tmpfs"}, opts...)
	args = append(args, "tmpfs", dir)
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		testwait.Missing(t, fmt.Sprintf("a tmpfs mount (%v: %s)", err, out), "trashing on another filesystem")
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// spec: D1
func TestPutOnAnotherFilesystem(t *testing.T) {
	tests := []struct {
		name   string
		shared bool // create a sticky $topdir/.Trash first
	}{
		{"private .Trash-uid", false},
		{"shared sticky .Trash", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mnt := mountTmpfs(t)
			e := newEnv(t)
			uid := strconv.Itoa(os.Getuid())
			wantRoot := filepath.Join(mnt, ".Trash-"+uid)
			if tt.shared {
				mkdirMode(t, filepath.Join(mnt, ".Trash"), 0o777|fs.ModeSticky)
				wantRoot = filepath.Join(mnt, ".Trash", uid)
			}
			src := filepath.Join(mnt, "proj", "my file.txt")
			writeFile(t, src, "on tmpfs")
			dir := filepath.Join(mnt, "proj", "folder")
			writeFile(t, filepath.Join(dir, "x"), "x")

			it, err := e.tr.Put(src)
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			mustNotExist(t, src)
			if want := filepath.Join(wantRoot, "files", "my file.txt"); it.TrashedPath != want {
				t.Errorf("TrashedPath = %s; want %s", it.TrashedPath, want)
			}
			want := "[Trash Info]\nPath=proj/my%20file.txt\nDeletionDate=2024-03-05T14:07:09\n"
			if got := readFile(t, it.InfoPath); got != want {
				t.Errorf("info file = %q; want %q (relative to the mount point)", got, want)
			}
			dirItem, err := e.tr.Put(dir)
			if err != nil {
				t.Fatalf("Put folder: %v", err)
			}
			if !strings.HasSuffix(readFile(t, filepath.Join(wantRoot, "directorysizes")), " folder\n") {
				t.Error("directorysizes of the top-directory trash lacks the folder")
			}
			mustNotExist(t, e.trashRoot()) // nothing went to the home trash

			items, err := e.tr.List()
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for _, li := range items {
				if li == it || li == dirItem {
					found++
				}
			}
			if found != 2 {
				t.Errorf("List() = %+v; want both items of the mounted filesystem", items)
			}
			for _, x := range []Item{it, dirItem} {
				if err := e.tr.Restore(x); err != nil {
					t.Fatalf("Restore(%s): %v", x.OriginalPath, err)
				}
			}
			if got := readFile(t, src); got != "on tmpfs" {
				t.Errorf("restored content = %q", got)
			}
			mustExist(t, filepath.Join(dir, "x"))

			// The trash of the mounted filesystem is itself refused.
			if _, err := e.tr.Put(wantRoot); err == nil || !strings.Contains(err.Error(), "trash") {
				t.Errorf("Put(%s) = %v; want a refusal", wantRoot, err)
			}
		})
	}
}

// spec: D1
func TestPutOnFilesystemWithoutUsableTrash(t *testing.T) {
	mnt := mountTmpfs(t)
	src := filepath.Join(mnt, "keep.txt")
	writeFile(t, src, "keep")
	if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
		testwait.Missing(t, fmt.Sprintf("a read-only remount (%v: %s)", err, out), "trashing on a read-only filesystem")
	}
	e := newEnv(t)
	_, err := e.tr.Put(src)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Put on a read-only filesystem = %v; want ErrUnsupported", err)
	}
	for _, frag := range []string{mnt, "nothing was moved or deleted"} {
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("error %q does not mention %q", err, frag)
		}
	}
	if got := readFile(t, src); got != "keep" {
		t.Errorf("original changed: %q", got)
	}
	mustNotExist(t, filepath.Join(e.trashRoot(), "files", "keep.txt"))
}
