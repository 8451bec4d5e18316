package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// loc is what one tool call's I/O touches. Inside the workspace it is a
// name beneath the workspace root, opened once per call as an *os.Root:
// every system call then resolves the name from the root's descriptor at
// the moment it runs, follows a symbolic link only while it stays beneath
// the root, and fails otherwise. So a folder swapped for a link between
// the approval check and the use cannot lead the tool outside. Outside the
// workspace (a path the user approved, or Full Access) it is a plain path.
type loc struct {
	// root is the workspace, or nil for a plain path.
	root *os.Root
	// name is relative to root (with the OS's separators, "." for the
	// root itself), or the absolute path when root is nil.
	name string
	// path is the absolute path the user knows: what File Changes, the
	// stale-read guard and the trash record.
	path string
	// show is how messages name it.
	show string
}

// plainLoc is a loc for an absolute path, used as it is.
func plainLoc(path string) loc { return loc{name: path, path: path, show: path} }

// rootLoc is a loc for name beneath root, the folder wd.
func rootLoc(root *os.Root, wd, name string) loc {
	name = filepath.Clean(name)
	show := name
	return loc{root: root, name: name, path: filepath.Join(wd, name), show: show}
}

func (l loc) lstat() (fs.FileInfo, error) {
	if l.root != nil {
		return l.root.Lstat(l.name)
	}
	return os.Lstat(l.name)
}

func (l loc) stat() (fs.FileInfo, error) {
	if l.root != nil {
		return l.root.Stat(l.name)
	}
	return os.Stat(l.name)
}

func (l loc) open() (*os.File, error) {
	if l.root != nil {
		return l.root.Open(l.name)
	}
	return os.Open(l.name)
}

func (l loc) readlink() (string, error) {
	if l.root != nil {
		return l.root.Readlink(l.name)
	}
	return os.Readlink(l.name)
}

func (l loc) mkdirAll(perm fs.FileMode) error {
	if l.root != nil {
		return l.root.MkdirAll(l.name, perm)
	}
	return os.MkdirAll(l.name, perm)
}

func (l loc) mkdir(perm fs.FileMode) error {
	if l.root != nil {
		return l.root.Mkdir(l.name, perm)
	}
	return os.Mkdir(l.name, perm)
}

func (l loc) remove() error {
	if l.root != nil {
		return l.root.Remove(l.name)
	}
	return os.Remove(l.name)
}

// isRoot says l is the workspace root itself (or a filesystem root).
func (l loc) isRoot() bool {
	if l.root != nil {
		return l.name == "."
	}
	return filepath.Dir(l.name) == l.name
}

// base is l's last element.
func (l loc) base() string { return filepath.Base(l.name) }

// parent is the folder holding l. The workspace root's parent is the root
// itself: nothing above it is reached through a root loc.
func (l loc) parent() loc {
	p := l
	p.name, p.path, p.show = filepath.Dir(l.name), filepath.Dir(l.path), filepath.Dir(l.show)
	return p
}

// child is the entry name of the folder l.
func (l loc) child(name string) loc {
	c := l
	c.name, c.path, c.show = filepath.Join(l.name, name), filepath.Join(l.path, name), filepath.Join(l.show, name)
	return c
}

// openFolder opens the folder l as a root of its own, so that names in it
// are resolved from its descriptor: a link that replaces a folder on the
// way after this call does not redirect what follows.
func (l loc) openFolder() (*os.Root, error) {
	if l.root != nil {
		return l.root.OpenRoot(l.name)
	}
	return os.OpenRoot(l.name)
}

// openDirFile opens the folder l for the *at system calls of the trash.
func (l loc) openDirFile() (*os.File, error) {
	f, err := l.open()
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: l.show, Err: errNotFolder}
	}
	return f, nil
}

var errNotFolder = errors.New("not a folder")

// isEscape reports whether err is os.Root refusing a name that leads out
// of the root: a symbolic link (absolute, or climbing with "..") where a
// folder was expected, or "..". The os package does not export the error,
// so its text is what there is to go by.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// escapeMessage words isEscape for the model.
func escapeMessage(show string) string {
	return fmt.Sprintf("path %s: a folder on the way changed into a link that leads outside the workspace (or the path itself is such a link); Foya does not follow it, so nothing was read or changed. Look with ls; if the link is meant to be there, give the path it leads to", show)
}
