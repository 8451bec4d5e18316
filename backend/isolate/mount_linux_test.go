//go:build linux

package isolate_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"foya/backend/fault"
	"foya/backend/isolate"
)

// Tests that mount file systems: root only, skipped elsewhere.

// free returns a file system's free space for an unprivileged user.
func free(t *testing.T, path string) int64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// Issue 29, bad input: a copy that would not fit, on a real small disk: a
// tmpfs of 100 MiB holds the copies, and a 20 MiB folder (40 MiB copied
// twice, and the 64 MiB left free) is refused by the free space statfs
// reports, before anything is copied. Needs root to mount the tmpfs.
func TestCopyThatWouldNotFitOnASmallDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root; TestCopyThatWouldNotFitIsRefused covers the check with a smaller free space")
	}
	disk := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=100m", "none", disk).CombinedOutput(); err != nil {
		t.Skipf("mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", disk).Run() })
	dir := t.TempDir()
	write(t, dir, map[string]string{"big.bin": strings.Repeat("x", 20<<20)})
	iso := &isolate.Isolator{Dir: filepath.Join(disk, "copies")}
	_, err := iso.Make(context.Background(), isolate.MakeOptions{SessionID: "ses_f", Folder: dir, Kind: isolate.Copy})
	if !errors.Is(err, fault.ErrUnavailable) || !strings.Contains(err.Error(), "free") {
		t.Fatalf("Make = %v; want a refusal naming the free space", err)
	}
	if ents, _ := os.ReadDir(iso.Dir); len(ents) != 0 {
		t.Fatalf("left on the disk: %v", ents)
	}
	// A folder that fits is copied there.
	small := t.TempDir()
	write(t, small, map[string]string{"a.txt": "a\n"})
	iso.FreeSpace = nil
	rec, err := iso.Make(context.Background(), isolate.MakeOptions{SessionID: "ses_s", Folder: small, Kind: isolate.Copy})
	if err != nil || read(t, filepath.Join(rec.Workdir, "a.txt")) != "a\n" {
		t.Fatalf("Make of a small folder = %+v, %v", rec, err)
	}
}

// Issue 29: on a file system that clones (XFS with reflink, made in a
// loop file), a copy shares the folder's blocks: a folder that a plain
// copy could not fit twice is copied all the same, and the disk's free
// space hardly moves. Needs root, mkfs.xfs and loop devices; skipped
// without them (the plain copy is what the other tests use).
func TestCopyClonesWhereTheFileSystemCan(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a file system needs root")
	}
	mkfs, err := exec.LookPath("mkfs.xfs")
	if err != nil {
		t.Skip("mkfs.xfs is not installed (Debian: xfsprogs)")
	}
	img := filepath.Join(t.TempDir(), "xfs.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 320<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, "-q", "-m", "reflink=1", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.xfs: %v %s", err, out)
	}
	disk := t.TempDir()
	if out, err := exec.Command("mount", "-o", "loop", img, disk).CombinedOutput(); err != nil {
		t.Skipf("mount a loop file: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", disk).Run() })
	folder := filepath.Join(disk, "project")
	write(t, folder, map[string]string{"big.bin": strings.Repeat("x", 160<<20), "a.txt": "a\n"})
	iso := &isolate.Isolator{Dir: filepath.Join(disk, "copies")}
	freeBefore := free(t, disk)
	rec, err := iso.Make(context.Background(), isolate.MakeOptions{SessionID: "ses_x", Folder: folder, Kind: isolate.Copy})
	if err != nil {
		t.Fatalf("Make on a cloning file system: %v", err)
	}
	if got := free(t, disk); freeBefore-got > 16<<20 {
		t.Fatalf("free space went from %d to %d: the copy was not cloned", freeBefore, got)
	}
	if n, _ := isolate.Usage(rec.Dir); n < 2*(160<<20) {
		t.Fatalf("Usage = %d; want the cloned files counted whole (twice 160 MiB)", n)
	}
	// The clone is a copy: changing it leaves the folder alone.
	write(t, rec.Workdir, map[string]string{"a.txt": "changed\n"})
	if read(t, filepath.Join(folder, "a.txt")) != "a\n" {
		t.Fatal("changing the clone changed the folder")
	}
}
