//go:build unix && !darwin

package trash

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"foya/backend/fspath"
)

// trashDir is one freedesktop trash directory ($trash).
type trashDir struct {
	root string // $trash, holding files/ and info/
	// base is the folder relative Path= values are relative to: $topdir
	// for a top-directory trash, $XDG_DATA_HOME for the home trash.
	base string
	home bool // the home trash writes absolute paths
}

func (d trashDir) files() string { return filepath.Join(d.root, "files") }
func (d trashDir) info() string  { return filepath.Join(d.root, "info") }

// homeTrash returns the user's home trash, $XDG_DATA_HOME/Trash.
func (t *Trash) homeTrash() trashDir {
	return trashDir{root: filepath.Join(t.dataHome, "Trash"), base: t.dataHome, home: true}
}

// Put moves path to the trash: the home trash when path is on the same
// filesystem, otherwise the top-directory trash of path's filesystem. A
// symbolic link is trashed itself, never its target. The .trashinfo file is
// claimed first with O_EXCL; the item then moves with rename(2), never by
// copying. On failure nothing has moved and no claim is left behind.
func (t *Trash) Put(path string) (Item, error) {
	if t.err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, t.err)
	}
	src, err := sourcePath(path)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	fi, err := os.Lstat(src)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	pid, err := mountOf(filepath.Dir(src))
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	dir, err := t.trashFor(src, pid)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	it, err := t.moveInto(dir, src, fi.IsDir(), func(dst string) error { return renameNoReplace(src, dst) })
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	return it, nil
}

// PutAt moves the entry name of the open folder dir to the trash, as Put
// does, without resolving a path to it: the entry moves with renameat(2)
// from dir's file descriptor into the trash's files folder, opened as a
// descriptor too, so a folder on the way that is swapped for a symbolic
// link after dir was opened cannot redirect the move. shown is the clean
// absolute path the user knows the entry by (its last element is name):
// the .trashinfo file records it, and Restore puts the item back there.
// The trash is chosen by the filesystem dir is on.
func (t *Trash) PutAt(dir *os.File, name, shown string) (Item, error) {
	if t.err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, t.err)
	}
	if err := checkAt(name, shown); err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	dfd := int(dir.Fd())
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, &os.PathError{Op: "fstatat", Path: shown, Err: err})
	}
	pid, err := mountOfFd(dfd)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	td, err := t.trashFor(shown, pid)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	files, err := os.Open(td.files())
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	defer files.Close()
	ffd := int(files.Fd())
	it, err := t.moveInto(td, shown, st.Mode&unix.S_IFMT == unix.S_IFDIR, func(dst string) error {
		return renameAtNoReplace(dfd, name, ffd, filepath.Base(dst))
	})
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	return it, nil
}

// trashFor picks the trash that takes src (a clean absolute path, with its
// parent on the mount pid): the home trash on the home filesystem, else the
// top directory's. It refuses a trash folder, a path inside one and one
// holding one.
func (t *Trash) trashFor(src string, pid mountID) (trashDir, error) {
	home := t.homeTrash()
	if hr := resolved(home.root); fspath.Within(hr, src) || fspath.Within(src, hr) {
		return trashDir{}, fmt.Errorf("refusing: the path is the home trash, inside it or holds it (%s)", home.root)
	}
	top, err := mountTop(filepath.Dir(src), pid)
	if err != nil {
		return trashDir{}, fmt.Errorf("find the mount point: %w", err)
	}
	if rel, ok := fspath.Rel(top, src); ok {
		first, _, _ := strings.Cut(rel, string(filepath.Separator))
		if first == ".Trash" || isPrivateTrashName(first) {
			return trashDir{}, errors.New("refusing: the path is a trash folder or inside one")
		}
	}
	hid, err := mountOf(nearestExisting(home.root))
	if err != nil {
		return trashDir{}, err
	}
	if pid.same(hid) {
		if err := ensureHomeTrash(home.root); err != nil {
			return trashDir{}, fmt.Errorf("prepare home trash: %w", err)
		}
		return home, nil
	}
	dir, err := t.topdirTrash(top)
	if err != nil {
		return trashDir{}, err
	}
	if fspath.Within(src, dir.root) {
		return trashDir{}, fmt.Errorf("refusing: the path holds its own trash (%s)", dir.root)
	}
	return dir, nil
}

// moveInto claims a name in dir for src and moves it there with move,
// which must fail with an error matching fs.ErrExist when dst exists.
func (t *Trash) moveInto(dir trashDir, src string, isDir bool, move func(dst string) error) (Item, error) {
	var encoded string
	if dir.home {
		encoded = encodePath(src)
	} else {
		rel, ok := fspath.Rel(dir.base, src)
		if !ok {
			return Item{}, fmt.Errorf("path is not under the mount point %s", dir.base)
		}
		encoded = encodePath(filepath.ToSlash(rel))
	}
	deleted := t.now().Local().Truncate(time.Second)
	content := formatInfo(encoded, deleted)
	base := filepath.Base(src)
	const maxTries = 200
	for n := 1; n <= maxTries; n++ {
		name := candidateName(base, n, randomTag)
		infoPath := filepath.Join(dir.info(), name+infoSuffix)
		dst := filepath.Join(dir.files(), name)
		claimed, err := claim(infoPath, content)
		if err != nil {
			return Item{}, err
		}
		if !claimed {
			continue
		}
		if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
			// An entry without info file (another tool's leftover): never
			// overwrite it, and leave it for the user's file manager.
			if rmErr := os.Remove(infoPath); rmErr != nil {
				return Item{}, fmt.Errorf("release claim %s: %w", infoPath, rmErr)
			}
			if err != nil {
				return Item{}, fmt.Errorf("check %s: %w", dst, err)
			}
			continue
		}
		if err := move(dst); err != nil {
			rmErr := os.Remove(infoPath)
			if errors.Is(err, fs.ErrExist) && rmErr == nil {
				continue // lost a race for dst with another tool
			}
			return Item{}, errors.Join(moveError(src, dst, err), releaseError(infoPath, rmErr))
		}
		if isDir {
			// directorysizes is a cache any implementation may rebuild;
			// failing to update it must not undo or fail a completed move.
			_ = t.addDirSize(dir.root, name, infoPath, dst)
		}
		return Item{OriginalPath: src, TrashedPath: dst, InfoPath: infoPath, DeletedAt: deleted}, nil
	}
	return Item{}, fmt.Errorf("no free name in %s after %d tries", dir.files(), maxTries)
}

// claim creates infoPath with O_EXCL and writes content. It returns false,
// nil when the name is taken.
func claim(infoPath string, content []byte) (bool, error) {
	f, err := os.OpenFile(infoPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim a name in the trash: %w", err)
	}
	_, werr := f.Write(content)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return false, errors.Join(fmt.Errorf("write %s: %w", infoPath, err), releaseError(infoPath, os.Remove(infoPath)))
	}
	return true, nil
}

func releaseError(infoPath string, err error) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("remove claimed %s: %w", infoPath, err)
}

func moveError(src, dst string, err error) error {
	if errors.Is(err, syscall.EXDEV) {
		return fmt.Errorf("move to %s: %w: the trash is on another filesystem and copying is not allowed (%v)", dst, ErrUnsupported, err)
	}
	return fmt.Errorf("move to the trash: %w", err)
}

// ensureHomeTrash creates the home trash and its files/ and info/ folders
// (mode 0700) when missing.
func ensureHomeTrash(root string) error {
	for _, d := range []string{root, filepath.Join(root, "files"), filepath.Join(root, "info")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// topdirTrash returns the trash for files under the mount point top,
// creating the user's folder when needed: $top/.Trash/$uid when $top/.Trash
// is a real directory with the sticky bit, else $top/.Trash-$uid. When
// neither can be used it returns an error wrapping ErrUnsupported.
func (t *Trash) topdirTrash(top string) (trashDir, error) {
	uid := strconv.Itoa(t.uid)
	var problems []string
	shared := filepath.Join(top, ".Trash")
	if ok, why := sharedTrashUsable(shared); ok {
		d := trashDir{root: filepath.Join(shared, uid), base: top}
		if err := t.ensureUserTrash(d.root); err == nil {
			return d, nil
		} else {
			problems = append(problems, err.Error())
		}
	} else if why != "" {
		problems = append(problems, why)
	}
	d := trashDir{root: filepath.Join(top, ".Trash-"+uid), base: top}
	if err := t.ensureUserTrash(d.root); err != nil {
		problems = append(problems, err.Error())
		return trashDir{}, fmt.Errorf("%w on the filesystem mounted at %s (%s); nothing was moved or deleted",
			ErrUnsupported, top, strings.Join(problems, "; "))
	}
	return d, nil
}

// sharedTrashUsable applies the specification's checks to $topdir/.Trash:
// it must be a directory, not a symbolic link, with the sticky bit. why
// explains a failed check; it is empty when .Trash does not exist.
func sharedTrashUsable(shared string) (ok bool, why string) {
	fi, err := os.Lstat(shared)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, ""
	case err != nil:
		return false, fmt.Sprintf("%s: %v", shared, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, shared + " is a symbolic link, ignored as the trash specification requires"
	case !fi.IsDir():
		return false, shared + " is not a directory, ignored"
	case fi.Mode()&fs.ModeSticky == 0:
		return false, shared + " lacks the sticky bit, ignored as the trash specification requires"
	}
	return true, ""
}

// ensureUserTrash creates root (mode 0700) with files/ and info/ and checks
// that each is a real directory owned by this user, so another user cannot
// redirect our files with a planted link or folder.
func (t *Trash) ensureUserTrash(root string) error {
	for _, d := range []string{root, filepath.Join(root, "files"), filepath.Join(root, "info")} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", d, err)
		}
		if err := t.checkOwnDir(d); err != nil {
			return err
		}
	}
	return nil
}

func (t *Trash) checkOwnDir(d string) error {
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%s is not a real directory", d)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		owner := int(st.Uid)
		if owner != t.uid && owner != os.Geteuid() {
			return fmt.Errorf("%s belongs to user %d, not %d", d, owner, t.uid)
		}
	}
	return nil
}

// isPrivateTrashName reports whether name is ".Trash-" followed by digits.
func isPrivateTrashName(name string) bool {
	rest, ok := strings.CutPrefix(name, ".Trash-")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Restore moves it back to its original path and removes its .trashinfo and
// its directorysizes line. It refuses, with an error wrapping ErrExists,
// when anything is at the original path now, and with ErrNotFound when the
// item is gone from the trash or its trash entry now describes another
// deletion. Missing parent folders of the original path are recreated.
func (t *Trash) Restore(it Item) error {
	return t.restore(it, restoreTo{
		exists: func() error { _, err := os.Lstat(it.OriginalPath); return err },
		mkdir:  func() error { return os.MkdirAll(filepath.Dir(it.OriginalPath), 0o755) },
		move:   func() error { return renameNoReplace(it.TrashedPath, it.OriginalPath) },
	})
}

// RestoreAt moves it back into the open folder dir under name, as Restore
// does, with renameat(2) into dir's file descriptor, so no path to the
// original location is resolved: a folder on the way that was swapped for
// a symbolic link cannot redirect the item. name must be the last element
// of it.OriginalPath; the caller opened dir for the folder the user knows
// as its parent (and created it when missing).
func (t *Trash) RestoreAt(it Item, dir *os.File, name string) error {
	if err := checkAt(name, it.OriginalPath); err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	dfd := int(dir.Fd())
	return t.restore(it, restoreTo{
		exists: func() error {
			var st unix.Stat_t
			if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return &os.PathError{Op: "fstatat", Path: it.OriginalPath, Err: err}
			}
			return nil
		},
		mkdir: func() error { return nil },
		move:  func() error { return renameAtNoReplace(unix.AT_FDCWD, it.TrashedPath, dfd, name) },
	})
}

// restoreTo is where restore puts an item back: exists returns nil when
// something is there, an error matching fs.ErrNotExist when not; mkdir
// makes its folder; move moves the item there, failing with an error
// matching fs.ErrExist when something is in the way.
type restoreTo struct {
	exists, mkdir, move func() error
}

func (t *Trash) restore(it Item, to restoreTo) error {
	if t.err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, t.err)
	}
	dir, err := t.checkItem(it)
	if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	fi, err := os.Lstat(it.TrashedPath)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w: %s is gone", it.OriginalPath, ErrNotFound, it.TrashedPath)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	data, err := readInfoFile(it.InfoPath)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w: its info file %s is missing, so the trash no longer records this deletion", it.OriginalPath, ErrNotFound, it.InfoPath)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	pi, err := parseInfo(data)
	if err != nil {
		return fmt.Errorf("restore %s: read %s: %w", it.OriginalPath, it.InfoPath, err)
	}
	orig, err := originalPath(dir, pi.path)
	if err != nil {
		return fmt.Errorf("restore %s: read %s: %w", it.OriginalPath, it.InfoPath, err)
	}
	// Compare dates as written: local wall-clock seconds, no zone.
	if orig != it.OriginalPath || (!it.DeletedAt.IsZero() && pi.deleted.Local().Format(dateLayout) != it.DeletedAt.Local().Format(dateLayout)) {
		return fmt.Errorf("restore %s: %w: %s now holds another deletion (of %s)", it.OriginalPath, ErrNotFound, it.TrashedPath, orig)
	}
	if err := to.exists(); err == nil {
		return fmt.Errorf("restore %s: %w; the item stays in the trash", it.OriginalPath, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	if err := to.mkdir(); err != nil {
		return fmt.Errorf("restore %s: recreate its folder: %w", it.OriginalPath, err)
	}
	if err := to.move(); err != nil {
		switch {
		case errors.Is(err, fs.ErrExist):
			return fmt.Errorf("restore %s: %w; the item stays in the trash", it.OriginalPath, ErrExists)
		case errors.Is(err, syscall.EXDEV):
			return fmt.Errorf("restore %s: %w: the original folder is now on another filesystem and copying is not allowed; the item stays in the trash", it.OriginalPath, ErrUnsupported)
		}
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	var errs []error
	if err := os.Remove(it.InfoPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("remove %s: %w", it.InfoPath, err))
	}
	if fi.IsDir() {
		if err := t.removeDirSize(dir.root, filepath.Base(it.TrashedPath)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("restored %s, but the trash was not fully updated: %w", it.OriginalPath, err)
	}
	return nil
}

// checkItem verifies that it names an entry of one of this user's trashes
// and returns that trash, so Restore never moves a file from elsewhere.
func (t *Trash) checkItem(it Item) (trashDir, error) {
	if !filepath.IsAbs(it.OriginalPath) || filepath.Clean(it.OriginalPath) != it.OriginalPath {
		return trashDir{}, fmt.Errorf("original path %q is not a clean absolute path", it.OriginalPath)
	}
	if !filepath.IsAbs(it.TrashedPath) || filepath.Clean(it.TrashedPath) != it.TrashedPath {
		return trashDir{}, fmt.Errorf("trashed path %q is not a clean absolute path", it.TrashedPath)
	}
	files := filepath.Dir(it.TrashedPath)
	root := filepath.Dir(files)
	name := filepath.Base(it.TrashedPath)
	if filepath.Base(files) != "files" {
		return trashDir{}, fmt.Errorf("%s is not in a trash's files folder", it.TrashedPath)
	}
	if want := filepath.Join(root, "info", name+infoSuffix); it.InfoPath != want {
		return trashDir{}, fmt.Errorf("info path %q does not belong to %s (want %s)", it.InfoPath, it.TrashedPath, want)
	}
	home := t.homeTrash()
	uid := strconv.Itoa(t.uid)
	switch {
	case root == home.root || root == resolved(home.root):
		home.root = root
		return home, nil
	case filepath.Base(root) == ".Trash-"+uid:
		return trashDir{root: root, base: filepath.Dir(root)}, nil
	case filepath.Base(root) == uid && filepath.Base(filepath.Dir(root)) == ".Trash":
		shared := filepath.Dir(root)
		if ok, why := sharedTrashUsable(shared); !ok {
			return trashDir{}, fmt.Errorf("%s cannot be used: %s", shared, why)
		}
		return trashDir{root: root, base: filepath.Dir(shared)}, nil
	}
	return trashDir{}, fmt.Errorf("%s is not one of this user's trash folders", root)
}

// originalPath turns an info file's Path value into an absolute path.
// Relative values are relative to the trash's base folder and must not
// climb out of it with "..".
func originalPath(dir trashDir, p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("relative Path %q contains ..", p)
		}
	}
	return filepath.Join(dir.base, filepath.FromSlash(p)), nil
}

// maxInfoSize bounds what we read of a .trashinfo file; real ones are a few
// hundred bytes.
const maxInfoSize = 1 << 20

func readInfoFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInfoSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInfoSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxInfoSize)
	}
	return data, nil
}

// List returns the items of the home trash and of the top-directory trashes
// of the mounted filesystems this user can see, newest first. Top-directory
// trashes are read on a best-effort basis: one that cannot be read is
// skipped. Info files without their trashed item, and trashed items without
// an info file, are left out: neither can be restored by path.
func (t *Trash) List() ([]Item, error) {
	if t.err != nil {
		return nil, fmt.Errorf("list trash: %w", t.err)
	}
	home := t.homeTrash()
	items, err := listDir(home)
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	seen := map[string]bool{home.root: true, resolved(home.root): true}
	tops, _ := mountPoints() // best effort: without the mount table only the home trash is listed
	uid := strconv.Itoa(t.uid)
	for _, top := range tops {
		var dirs []trashDir
		if ok, _ := sharedTrashUsable(filepath.Join(top, ".Trash")); ok {
			dirs = append(dirs, trashDir{root: filepath.Join(top, ".Trash", uid), base: top})
		}
		dirs = append(dirs, trashDir{root: filepath.Join(top, ".Trash-"+uid), base: top})
		for _, d := range dirs {
			if seen[d.root] {
				continue
			}
			seen[d.root] = true
			more, err := listDir(d)
			if err == nil {
				items = append(items, more...)
			}
		}
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := b.DeletedAt.Compare(a.DeletedAt); c != 0 {
			return c
		}
		return strings.Compare(a.TrashedPath, b.TrashedPath)
	})
	return items, nil
}

// listDir reads the items of one trash. A trash without an info folder is
// empty.
func listDir(d trashDir) ([]Item, error) {
	entries, err := os.ReadDir(d.info())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), infoSuffix)
		if !ok || name == "" || e.IsDir() {
			continue
		}
		infoPath := filepath.Join(d.info(), e.Name())
		data, err := readInfoFile(infoPath)
		if err != nil {
			continue
		}
		pi, err := parseInfo(data)
		if err != nil {
			continue
		}
		orig, err := originalPath(d, pi.path)
		if err != nil {
			continue
		}
		trashed := filepath.Join(d.files(), name)
		if _, err := os.Lstat(trashed); err != nil {
			continue
		}
		items = append(items, Item{OriginalPath: orig, TrashedPath: trashed, InfoPath: infoPath, DeletedAt: pi.deleted})
	}
	return items, nil
}
