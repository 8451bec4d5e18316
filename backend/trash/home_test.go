//go:build unix && !darwin

package trash

import (
	"path/filepath"
	"testing"
)

// Home is the home trash Put uses for the home folder's filesystem:
// $XDG_DATA_HOME/Trash, or Home/.local/share/Trash under a Home override.
func TestHomeIsTheHomeTrash(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Home: home}, filepath.Join(home, ".local", "share", "Trash")},
		{Options{Home: home, DataHome: filepath.Join(home, "data")}, filepath.Join(home, "data", "Trash")},
	} {
		tr := New(tc.opts)
		got, err := tr.Home()
		if err != nil || got != tc.want {
			t.Errorf("New(%+v).Home() = %q, %v; want %q", tc.opts, got, err, tc.want)
		}
		if got != tr.homeTrash().root {
			t.Errorf("Home() = %q; Put's home trash is %q", got, tr.homeTrash().root)
		}
	}
}
