package trash

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Sentinel errors; callers branch on them with errors.Is.
var (
	// ErrExists means Restore found something at the original path and
	// left both it and the trashed item alone.
	ErrExists = errors.New("something already exists at the original path")
	// ErrNotFound means the trashed item is no longer in the trash (it was
	// restored, emptied, or its name now belongs to another deletion).
	ErrNotFound = errors.New("item is no longer in the trash")
	// ErrUnsupported means no trash can take the path (for example a
	// filesystem without a usable top-directory trash) or the operation is
	// not available on this system. Nothing was moved or deleted.
	ErrUnsupported = errors.New("no usable trash")
)

// Item is one entry in a trash.
type Item struct {
	// OriginalPath is the absolute path the item was deleted from, with
	// symbolic links in its parent folders resolved.
	OriginalPath string
	// TrashedPath is where the file or folder is now (…/files/NAME on
	// freedesktop systems).
	TrashedPath string
	// InfoPath is the .trashinfo file describing the item, or empty on
	// systems without one.
	InfoPath string
	// DeletedAt is when the item was trashed, to the second, in local time.
	DeletedAt time.Time
}

// Options configures a Trash. Every field is optional; the zero value means
// the real user's environment.
type Options struct {
	// Home overrides $HOME. When Home is set and DataHome is not, the data
	// home is Home/.local/share and $XDG_DATA_HOME is ignored, so a test that
	// points Home at a temporary folder never touches the real trash.
	Home string
	// DataHome overrides $XDG_DATA_HOME (freedesktop systems only).
	DataHome string
	// UID is the numeric user id used in top-directory trash names
	// ($topdir/.Trash/$uid, $topdir/.Trash-$uid). It is used only when
	// UIDSet is true; otherwise the process's real user id is used.
	UID    int
	UIDSet bool
	// Now returns the deletion time; nil means time.Now.
	Now func() time.Time
}

// Trash moves paths to one user's trash and restores them. Create it with
// New or Default; it is safe for concurrent use.
type Trash struct {
	home     string
	dataHome string
	uid      int
	now      func() time.Time
	err      error // set when the environment could not be resolved
	realHome bool  // no Home override: the desktop (Finder) may be asked

	sizesMu sync.Mutex // serialises our own directorysizes rewrites
}

// New returns a Trash configured by opts. Problems with the environment (no
// home folder) are reported by the first method call, not here.
func New(opts Options) *Trash {
	t := &Trash{now: opts.Now, uid: os.Getuid()}
	if opts.UIDSet {
		t.uid = opts.UID
	}
	if t.now == nil {
		t.now = time.Now
	}
	t.home = opts.Home
	t.realHome = opts.Home == ""
	if t.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			t.err = fmt.Errorf("find home folder: %w", err)
		}
		t.home = h
	}
	t.dataHome = opts.DataHome
	if t.dataHome == "" {
		// The base directory specification says relative values are
		// invalid and must be ignored.
		if x := os.Getenv("XDG_DATA_HOME"); opts.Home == "" && filepath.IsAbs(x) {
			t.dataHome = x
		} else if t.home != "" {
			t.dataHome = filepath.Join(t.home, ".local", "share")
		}
	}
	if t.home != "" {
		t.home = absClean(t.home)
	}
	if t.dataHome != "" {
		t.dataHome = absClean(t.dataHome)
	}
	return t
}

// Default returns a Trash for the real user's environment.
func Default() *Trash { return New(Options{}) }

// absClean makes p absolute and clean; it falls back to Clean when the
// working directory is unknown.
func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// sourcePath turns the caller's path into the absolute path Put moves: clean,
// with symbolic links resolved in its parent folders but not in its last
// element, so a link is trashed itself and never its target.
func sourcePath(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	if dir == abs {
		return "", errors.New("refusing to trash the filesystem root")
	}
	rdir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(rdir, base), nil
}

// checkAt checks the arguments of PutAt and RestoreAt: name is one path
// element, and the last one of shown, a clean absolute path.
func checkAt(name, shown string) error {
	switch {
	case name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/`+string(filepath.Separator)) || strings.ContainsRune(name, 0):
		return fmt.Errorf("%q is not the name of an entry in a folder", name)
	case !filepath.IsAbs(shown) || filepath.Clean(shown) != shown:
		return fmt.Errorf("%q is not a clean absolute path", shown)
	case filepath.Base(shown) != name:
		return fmt.Errorf("%q does not end in %q", shown, name)
	case filepath.Dir(shown) == shown:
		return errors.New("refusing to trash the filesystem root")
	}
	return nil
}
