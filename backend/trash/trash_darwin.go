package trash

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"foya/backend/fspath"
)

// finderScript asks Finder to trash the file named by the first argument
// and prints where it went. Finder records the original location, so the
// user's "Put Back" works.
const finderScript = `on run argv
	tell application "Finder"
		set trashed to delete (POSIX file (item 1 of argv) as alias)
		return POSIX path of (trashed as alias)
	end tell
end run`

// finderTimeout bounds a Finder that waits for an automation permission
// prompt nobody answers; the plain move then takes over.
const finderTimeout = 30 * time.Second

// Put moves path to the trash. For the real user's home it asks Finder
// first (so "Put Back" works) and falls back to renaming into ~/.Trash, or
// into $volume/.Trashes/$uid for another volume. Symbolic links always take
// the plain move, so the link is trashed and never its target. Nothing is
// copied across volumes: without a trash on the path's volume the call fails
// with ErrUnsupported.
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
	home := resolved(filepath.Join(t.home, ".Trash"))
	if fspath.Within(home, src) || fspath.Within(src, home) {
		return Item{}, fmt.Errorf("trash %s: refusing: the path is the trash, inside it or holds it (%s)", path, home)
	}
	if isInVolumeTrash(src) {
		return Item{}, fmt.Errorf("trash %s: refusing: the path is a trash folder or inside one", path)
	}
	deleted := t.now().Local().Truncate(time.Second)
	if t.realHome && fi.Mode()&fs.ModeSymlink == 0 {
		if dst, err := finderTrash(src); err == nil {
			return Item{OriginalPath: src, TrashedPath: dst, DeletedAt: deleted}, nil
		} else if _, statErr := os.Lstat(src); statErr == nil {
			// Finder refused or is unavailable (no GUI session, no
			// automation permission): the plain move below takes over.
		} else {
			return Item{}, fmt.Errorf("trash %s: Finder reported %v and the item is no longer at its path; look for it in the Trash", path, err)
		}
	}
	dir, err := t.macTrashFor(src)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", path, err)
	}
	dst, err := moveIn(path, dir, filepath.Base(src), func(dst string) error {
		return unix.RenamexNp(src, dst, unix.RENAME_EXCL)
	})
	if err != nil {
		return Item{}, err
	}
	return Item{OriginalPath: src, TrashedPath: dst, DeletedAt: deleted}, nil
}

// moveIn moves an entry into the trash folder dir under the first free
// name made from base, with rename (which must refuse to replace); shown
// names the entry in errors.
func moveIn(shown, dir, base string, rename func(dst string) error) (string, error) {
	for n := 1; n <= 200; n++ {
		dst := filepath.Join(dir, candidateName(base, n, randomTag))
		err := rename(dst)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if errors.Is(err, unix.EXDEV) {
			return "", fmt.Errorf("trash %s: %w: %s is on another volume and copying is not allowed", shown, ErrUnsupported, dir)
		}
		if err != nil {
			return "", fmt.Errorf("trash %s: move to %s: %w", shown, dst, err)
		}
		return dst, nil
	}
	return "", fmt.Errorf("trash %s: no free name in %s", shown, dir)
}

// PutAt moves the entry name of the open folder dir to the trash without
// resolving a path to it: renameatx_np(2) from dir's descriptor into
// ~/.Trash (or the volume's .Trashes), so a folder on the way swapped for a
// symbolic link cannot redirect it. Finder is not asked (it takes paths
// only), so "Put Back" does not know the item; Restore and RestoreAt do.
// shown is the clean absolute path the user knows the entry by.
func (t *Trash) PutAt(dir *os.File, name, shown string) (Item, error) {
	if t.err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, t.err)
	}
	if err := checkAt(name, shown); err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	home := resolved(filepath.Join(t.home, ".Trash"))
	if fspath.Within(home, shown) || fspath.Within(shown, home) || isInVolumeTrash(shown) {
		return Item{}, fmt.Errorf("trash %s: refusing: the path is a trash folder, inside one or holds one", shown)
	}
	dfd := int(dir.Fd())
	pid, err := mountOfFd(dfd)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	tdir, err := t.macTrashOn(filepath.Dir(shown), pid)
	if err != nil {
		return Item{}, fmt.Errorf("trash %s: %w", shown, err)
	}
	deleted := t.now().Local().Truncate(time.Second)
	dst, err := moveIn(shown, tdir, name, func(dst string) error {
		return unix.RenameatxNp(dfd, name, unix.AT_FDCWD, dst, unix.RENAME_EXCL)
	})
	if err != nil {
		return Item{}, err
	}
	return Item{OriginalPath: shown, TrashedPath: dst, DeletedAt: deleted}, nil
}

// finderTrash has Finder trash src and returns the trashed item's path.
func finderTrash(src string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), finderTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/osascript", "-e", finderScript, src)
	cmd.WaitDelay = 2 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("osascript: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	dst := filepath.Clean(strings.TrimSpace(string(out)))
	if !filepath.IsAbs(dst) {
		return "", fmt.Errorf("osascript printed %q, not a path", out)
	}
	if _, err := os.Lstat(dst); err != nil {
		return "", fmt.Errorf("finder's trashed item: %w", err)
	}
	if _, err := os.Lstat(src); err == nil {
		return "", errors.New("finder left the item in place")
	}
	return dst, nil
}

// macTrashFor returns the trash folder for src: ~/.Trash on the home
// volume, $volume/.Trashes/$uid elsewhere.
func (t *Trash) macTrashFor(src string) (string, error) {
	parent := filepath.Dir(src)
	pid, err := mountOf(parent)
	if err != nil {
		return "", err
	}
	return t.macTrashOn(parent, pid)
}

// macTrashOn is macTrashFor for a path whose folder parent is on the
// volume pid.
func (t *Trash) macTrashOn(parent string, pid mountID) (string, error) {
	home := filepath.Join(t.home, ".Trash")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", fmt.Errorf("prepare %s: %w", home, err)
	}
	hid, err := mountOf(home)
	if err != nil {
		return "", err
	}
	if pid.same(hid) {
		return home, nil
	}
	top, err := mountTop(parent, pid)
	if err != nil {
		return "", err
	}
	trashes := filepath.Join(top, ".Trashes")
	fi, err := os.Lstat(trashes)
	if err != nil || !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("%w on the volume mounted at %s (no usable .Trashes folder); nothing was moved or deleted", ErrUnsupported, top)
	}
	dir := filepath.Join(trashes, strconv.Itoa(t.uid))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("%w on the volume mounted at %s (%v); nothing was moved or deleted", ErrUnsupported, top, err)
	}
	return dir, nil
}

// isInVolumeTrash reports whether p is a .Trashes folder or inside one.
func isInVolumeTrash(p string) bool {
	for _, part := range strings.Split(p, string(filepath.Separator)) {
		if part == ".Trashes" {
			return true
		}
	}
	return false
}

// Restore moves it back to its original path. It refuses with ErrExists
// when something is at the original path and with ErrNotFound when the item
// is gone from the trash. Missing parent folders are recreated.
func (t *Trash) Restore(it Item) error {
	if t.err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, t.err)
	}
	for _, p := range []string{it.OriginalPath, it.TrashedPath} {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return fmt.Errorf("restore %s: %q is not a clean absolute path", it.OriginalPath, p)
		}
	}
	home := resolved(filepath.Join(t.home, ".Trash"))
	if !fspath.Within(home, filepath.Dir(it.TrashedPath)) && !isInVolumeTrash(it.TrashedPath) {
		return fmt.Errorf("restore %s: %s is not in a trash folder", it.OriginalPath, it.TrashedPath)
	}
	if _, err := os.Lstat(it.TrashedPath); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w: %s is gone", it.OriginalPath, ErrNotFound, it.TrashedPath)
	} else if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	if _, err := os.Lstat(it.OriginalPath); err == nil {
		return fmt.Errorf("restore %s: %w; the item stays in the trash", it.OriginalPath, ErrExists)
	}
	if err := os.MkdirAll(filepath.Dir(it.OriginalPath), 0o755); err != nil {
		return fmt.Errorf("restore %s: recreate its folder: %w", it.OriginalPath, err)
	}
	switch err := unix.RenamexNp(it.TrashedPath, it.OriginalPath, unix.RENAME_EXCL); {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return fmt.Errorf("restore %s: %w; the item stays in the trash", it.OriginalPath, ErrExists)
	case errors.Is(err, unix.EXDEV):
		return fmt.Errorf("restore %s: %w: the original folder is on another volume now and copying is not allowed", it.OriginalPath, ErrUnsupported)
	default:
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
}

// RestoreAt moves it back into the open folder dir under name (the last
// element of it.OriginalPath) with renameatx_np(2), so no path to the
// original location is resolved.
func (t *Trash) RestoreAt(it Item, dir *os.File, name string) error {
	if t.err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, t.err)
	}
	if err := checkAt(name, it.OriginalPath); err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	if !filepath.IsAbs(it.TrashedPath) || filepath.Clean(it.TrashedPath) != it.TrashedPath {
		return fmt.Errorf("restore %s: %q is not a clean absolute path", it.OriginalPath, it.TrashedPath)
	}
	home := resolved(filepath.Join(t.home, ".Trash"))
	if !fspath.Within(home, filepath.Dir(it.TrashedPath)) && !isInVolumeTrash(it.TrashedPath) {
		return fmt.Errorf("restore %s: %s is not in a trash folder", it.OriginalPath, it.TrashedPath)
	}
	if _, err := os.Lstat(it.TrashedPath); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w: %s is gone", it.OriginalPath, ErrNotFound, it.TrashedPath)
	} else if err != nil {
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
	switch err := unix.RenameatxNp(unix.AT_FDCWD, it.TrashedPath, int(dir.Fd()), name, unix.RENAME_EXCL); {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return fmt.Errorf("restore %s: %w; the item stays in the trash", it.OriginalPath, ErrExists)
	case errors.Is(err, unix.EXDEV):
		return fmt.Errorf("restore %s: %w: the original folder is on another volume now and copying is not allowed", it.OriginalPath, ErrUnsupported)
	default:
		return fmt.Errorf("restore %s: %w", it.OriginalPath, err)
	}
}

// List is not available on macOS: Finder keeps original locations in its
// own private records. It returns an error wrapping ErrUnsupported; callers
// keep the Items Put returned.
func (t *Trash) List() ([]Item, error) {
	return nil, fmt.Errorf("list trash: %w: macOS keeps original locations in Finder's private records", ErrUnsupported)
}
