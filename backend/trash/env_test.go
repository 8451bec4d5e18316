//go:build unix && !darwin

package trash

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestNewResolvesTheEnvironment(t *testing.T) {
	home := t.TempDir()
	xdg := t.TempDir()
	tests := []struct {
		name     string
		envHome  string
		envXDG   string
		opts     Options
		wantRoot string
	}{
		{"XDG_DATA_HOME wins", home, xdg, Options{}, filepath.Join(xdg, "Trash")},
		{"relative XDG_DATA_HOME is ignored", home, "rel/data", Options{}, filepath.Join(home, ".local", "share", "Trash")},
		{"unset XDG_DATA_HOME", home, "", Options{}, filepath.Join(home, ".local", "share", "Trash")},
		{"Home option ignores the environment", "/nonexistent", xdg, Options{Home: home}, filepath.Join(home, ".local", "share", "Trash")},
		{"DataHome option", home, xdg, Options{DataHome: filepath.Join(home, "d")}, filepath.Join(home, "d", "Trash")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", tt.envHome)
			t.Setenv("XDG_DATA_HOME", tt.envXDG)
			var tr *Trash
			if tt.opts.Home == "" && tt.opts.DataHome == "" {
				tr = Default()
			} else {
				tr = New(tt.opts)
			}
			if got := tr.homeTrash().root; got != tt.wantRoot {
				t.Errorf("home trash = %s; want %s", got, tt.wantRoot)
			}
		})
	}
	t.Run("uid", func(t *testing.T) {
		if got := New(Options{Home: home}).uid; got != os.Getuid() {
			t.Errorf("default uid = %d; want %d", got, os.Getuid())
		}
		if got := New(Options{Home: home, UIDSet: true}).uid; got != 0 {
			t.Errorf("uid with UIDSet and UID 0 = %d; want 0", got)
		}
	})
}

func TestNoHomeIsAClearError(t *testing.T) {
	t.Setenv("HOME", "")
	tr := New(Options{})
	if tr.err == nil {
		t.Skip("the home folder is known without $HOME here")
	}
	p := filepath.Join(t.TempDir(), "f")
	writeFile(t, p, "f")
	if _, err := tr.Put(p); err == nil {
		t.Error("Put without a home folder succeeded")
	}
	if _, err := tr.List(); err == nil {
		t.Error("List without a home folder succeeded")
	}
	mustExist(t, p)
}

// spec: D1
func TestConcurrentPutsOfOneNameKeepEveryCopy(t *testing.T) {
	e := newEnv(t)
	const n = 8
	var wg sync.WaitGroup
	items := make([]Item, n)
	errs := make([]error, n)
	for i := range n {
		src := filepath.Join(e.work, strconv.Itoa(i), "same name")
		writeFile(t, filepath.Join(src, "id"), strconv.Itoa(i)) // folders, so directorysizes is written concurrently too
		wg.Add(1)
		go func() {
			defer wg.Done()
			items[i], errs[i] = e.tr.Put(src)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, it := range items {
		if seen[it.TrashedPath] {
			t.Errorf("two items share %s", it.TrashedPath)
		}
		seen[it.TrashedPath] = true
		if got := readFile(t, filepath.Join(it.TrashedPath, "id")); got != strconv.Itoa(i) {
			t.Errorf("item %d holds folder %s", i, got)
		}
	}
	if got := len(listUnder(t, e.tr, e.trashRoot())); got != n {
		t.Errorf("List() = %d items; want %d", got, n)
	}
	sizes := readFile(t, filepath.Join(e.trashRoot(), "directorysizes"))
	for _, it := range items {
		name := encodePath(filepath.Base(it.TrashedPath))
		found := false
		for _, l := range splitLines(sizes) {
			if n, ok := sizesLineName(l); ok && encodePath(n) == name {
				found = true
			}
		}
		if !found {
			t.Errorf("directorysizes lacks %s:\n%s", name, sizes)
		}
	}
}

func splitLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
