package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// tempPrefix starts the names of the temporary files writes go through;
// the watcher ignores them.
const tempPrefix = ".foya-write-"

// writeAtomic replaces path with data through a temporary file in the same
// folder and a rename, so readers see the old file or the new one, never
// half of one. mode is a Unix st_mode whose permission bits the new file
// gets; when path existed, its owner and group are kept where the OS lets
// us. On error nothing has changed at path and no temporary file is left.
func writeAtomic(path string, data []byte, mode uint32) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPrefix+"*.tmp")
	if err != nil {
		return writeError(path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return writeError(path, err)
	}
	if err = f.Chmod(goMode(mode)); err != nil {
		return writeError(path, err)
	}
	if fi, serr := os.Lstat(path); serr == nil {
		keepOwner(f, fi)
	}
	if err = f.Sync(); err != nil {
		return writeError(path, err)
	}
	if err = f.Close(); err != nil {
		return writeError(path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return writeError(path, err)
	}
	return nil
}

// writeError words a failed write for the model.
func writeError(path string, err error) error {
	var msg string
	switch {
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
