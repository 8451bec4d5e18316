package shell

import (
	"os"
	"path/filepath"
	"testing"

	"foya/backend/lockfile"
)

// Sweep removes the temp folders no live Shell holds (a
// crash leaves them), and only those; Close leaves a folder another Shell
// still uses.
func TestSweepRemovesOnlyFoldersNobodyHolds(t *testing.T) {
	root := t.TempDir()
	a, b := New(Options{TempRoot: root}), New(Options{TempRoot: root})
	defer a.Close()
	defer b.Close()
	dirA, err := a.TempDir("ses_a")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := a.TempDir("ses_shared")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.TempDir("ses_shared"); err != nil {
		t.Fatal(err)
	}
	// What a crashed Shell leaves: a folder and its lock file, unlocked.
	crashed := filepath.Join(root, "foya-ses_crashed")
	os.Mkdir(crashed, 0o700)
	os.WriteFile(filepath.Join(crashed, "f"), []byte("x"), 0o600)
	if l, err := lockfile.Create(crashed+".lock", lockfile.Shared); err != nil {
		t.Fatal(err)
	} else {
		l.Close()
	}
	// A folder that only looks like one: no lock file beside it.
	other := filepath.Join(root, "foya-bin-12345")
	os.Mkdir(other, 0o700)

	if err := b.Sweep(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{dirA: true, shared: true, other: true, crashed: false, crashed + ".lock": false} {
		if _, err := os.Lstat(path); (err == nil) != want {
			t.Errorf("after Sweep, %s exists = %v; want %v", path, err == nil, want)
		}
	}
	// a closes: its own folder goes, the one b still uses stays.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{dirA: false, dirA + ".lock": false, shared: true} {
		if _, err := os.Lstat(path); (err == nil) != want {
			t.Errorf("after a.Close, %s exists = %v; want %v", path, err == nil, want)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(shared); err == nil {
		t.Errorf("after the last user closed, %s is still there", shared)
	}
}
