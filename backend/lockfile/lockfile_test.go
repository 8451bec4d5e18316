package lockfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"foya/backend/lockfile"
	"foya/backend/testwait"
)

// Locks exclude each other within one process as they do across processes:
// they belong to the open file.
func TestLocksExclude(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.lock")
	ex, err := lockfile.Create(p, lockfile.Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []lockfile.How{lockfile.Exclusive, lockfile.Shared} {
		if _, err := lockfile.Open(p, how); !errors.Is(err, lockfile.ErrLocked) {
			t.Errorf("Open(%d) while held exclusively = %v; want ErrLocked", how, err)
		}
	}
	ex.Close()
	sh1, err := lockfile.Open(p, lockfile.Shared)
	if err != nil {
		t.Fatal(err)
	}
	sh2, err := lockfile.Open(p, lockfile.Shared)
	if err != nil {
		t.Fatalf("a second shared lock: %v", err)
	}
	if _, err := lockfile.Open(p, lockfile.Exclusive); !errors.Is(err, lockfile.ErrLocked) {
		t.Errorf("Open(Exclusive) while shared = %v; want ErrLocked", err)
	}
	sh1.Close()
	sh2.Close()
	ex, err = lockfile.Open(p, lockfile.Exclusive)
	if err != nil {
		t.Fatalf("exclusive after every shared holder left: %v", err)
	}
	ex.Close()
}

// A holder that opened the file before it was removed learns so from
// Current; Open of a missing file says it does not exist; Create makes the
// file anew.
func TestRemoveAndCurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.lock")
	l, err := lockfile.Create(p, lockfile.Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	id := l.ID()
	if !l.Current() {
		t.Fatal("Current() = false for a fresh lock")
	}
	if err := l.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock file after Remove: %v", err)
	}
	if _, err := lockfile.Open(p, lockfile.Exclusive); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open of a removed lock file = %v; want ErrNotExist", err)
	}
	old, err := lockfile.Create(p, lockfile.Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	l, err = lockfile.Create(p, lockfile.Exclusive)
	if err != nil {
		t.Fatalf("Create after the file was removed under a holder: %v", err)
	}
	defer l.Close()
	if old.Current() {
		t.Error("Current() = true for a removed file")
	}
	old.Close()
	if id != "" && l.ID() == id {
		t.Logf("the file system reused the identity %s", id) // possible, not wrong
	}
}

// A symbolic link is never followed.
func TestNoSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows links need privileges to make")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(target, link); err != nil {
		testwait.Missing(t, "symbolic links ("+err.Error()+")", "a lock file path that is a symbolic link")
	}
	if l, err := lockfile.Create(link, lockfile.Exclusive); err == nil {
		l.Close()
		t.Fatal("Create followed a symbolic link")
	}
}

// A lock file made with CreateNew is locked from the
// moment its name exists, so another process that locks every file of
// the folder to learn whose owner is gone (the kernel's sweep) can never
// take it first; no temporary file is left, and an existing name is
// refused.
func TestCreateNewIsLockedFromTheStart(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "own.lock")
	l, err := lockfile.CreateNew(p, lockfile.Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := lockfile.Open(p, lockfile.Exclusive); !errors.Is(err, lockfile.ErrLocked) {
		t.Errorf("Open of a new lock file = %v; want ErrLocked", err)
	}
	if !l.Current() {
		t.Error("the new lock file is not the one its path names")
	}
	if list, _ := os.ReadDir(dir); len(list) != 1 {
		t.Errorf("the folder holds %d files; want the lock file alone", len(list))
	}
	if _, err := lockfile.CreateNew(p, lockfile.Exclusive); err == nil {
		t.Error("CreateNew of an existing lock file succeeded")
	}
}
