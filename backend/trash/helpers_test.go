//go:build unix && !darwin

package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"foya/backend/fspath"
	"foya/backend/testwait"
)

// fixedNow is the deletion time the tests' trashes record.
var fixedNow = time.Date(2024, 3, 5, 14, 7, 9, 0, time.Local)

// env is a test's home folder, its trash and a workspace on the same
// filesystem, all under temporary folders.
type env struct {
	home, data, work string
	tr               *Trash
}

func newEnv(t testing.TB) *env {
	t.Helper()
	home := t.TempDir()
	e := &env{home: home, data: filepath.Join(home, ".local", "share"), work: t.TempDir()}
	e.tr = New(Options{Home: home, Now: func() time.Time { return fixedNow }})
	return e
}

func (e *env) trashRoot() string { return filepath.Join(e.data, "Trash") }

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustNotExist(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s still exists (lstat err = %v)", path, err)
	}
}

func mustExist(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("%s is missing: %v", path, err)
	}
}

// listUnder lists tr and keeps the items whose trash lies under one of
// roots, so trashes the machine itself has on its mounts never disturb a
// test.
func listUnder(t testing.TB, tr *Trash, roots ...string) []Item {
	t.Helper()
	all, err := tr.List()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var out []Item
	for _, it := range all {
		for _, r := range roots {
			if fspath.Within(r, it.TrashedPath) {
				out = append(out, it)
				break
			}
		}
	}
	return out
}

// makeReadOnly makes dir refuse new entries for the test's duration: by
// mode bits for a normal user, by the immutable attribute for root (whom
// mode bits do not stop). It skips the test when neither is possible.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	if _, err := exec.LookPath("chattr"); err != nil {
		testwait.Missing(t, "chattr (Debian package e2fsprogs), to make a folder read-only for root", "trashing from a read-only folder")
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		testwait.Missing(t, fmt.Sprintf("chattr +i, to make a folder read-only for root (%v: %s)", err, out), "trashing from a read-only folder")
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}
