package files

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// tempPrefix starts the names of the temporary files writes go through;
// the watcher ignores them.
const tempPrefix = ".foya-write-"

// writeAtomic replaces l with data through a temporary file in the same
// folder and a rename, so readers see the old file or the new one, never
// half of one. The folder is opened once (beneath the workspace root when
// l is inside) and the temporary file, the mode, the owner and the rename
// all go through its descriptor, so a folder swapped for a link meanwhile
// cannot send the write elsewhere. mode is a Unix st_mode whose permission
// bits the new file gets; when l existed, its owner and group are kept
// where the OS lets us. On error nothing has changed at l and no temporary
// file is left.
func writeAtomic(l loc, data []byte, mode uint32) (err error) {
	dir, err := l.parent().openFolder()
	if err != nil {
		return writeError(l.show, err)
	}
	defer dir.Close()
	name := l.base()
	f, tmp, err := createTemp(dir)
	if err != nil {
		return writeError(l.show, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			dir.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return writeError(l.show, err)
	}
	if err = f.Chmod(goMode(mode)); err != nil {
		return writeError(l.show, err)
	}
	if fi, serr := dir.Lstat(name); serr == nil {
		keepOwner(f, fi)
	}
	if err = f.Sync(); err != nil {
		return writeError(l.show, err)
	}
	if err = f.Close(); err != nil {
		return writeError(l.show, err)
	}
	if err = dir.Rename(tmp, name); err != nil {
		return writeError(l.show, err)
	}
	return nil
}

// createTemp creates a new file with a random name in dir, for writeAtomic.
func createTemp(dir *os.Root) (*os.File, string, error) {
	for range 100 {
		var b [8]byte
		rand.Read(b[:])
		name := tempPrefix + hex.EncodeToString(b[:]) + ".tmp"
		f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("no free name for a temporary file")
}

// writeError words a failed write for the model.
func writeError(path string, err error) error {
	var msg string
	switch {
	case isEscape(err):
		return errors.New(escapeMessage(path))
	case errors.Is(err, syscall.ENOSPC):
		msg = "the disk is full"
	case errors.Is(err, syscall.EDQUOT):
		msg = "the disk quota is exhausted"
	case errors.Is(err, syscall.EROFS):
		msg = "the filesystem is read-only"
	case errors.Is(err, fs.ErrPermission):
		msg = "permission denied"
	default:
		msg = strings.TrimPrefix(err.Error(), "open ")
	}
	return fmt.Errorf("could not write %s: %s; the file is unchanged", path, msg)
}
