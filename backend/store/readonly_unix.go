//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readOnlyWhy says why the database at path can only be read (a read-only
// file system, a file or folder this user may not write), or "" when it
// can be written or does not exist yet. immutable says that nobody can
// change it either, and no write-ahead log holds anything: on a read-only
// file system SQLite cannot make the log's index (-shm) it needs to read
// a database in WAL mode, unless told that the file cannot change.
func readOnlyWhy(path string) (why string, immutable bool) {
	if _, err := os.Stat(path); err != nil {
		return "", false
	}
	const rofs = "it is on a read-only file system"
	switch err := unix.Access(path, unix.W_OK); {
	case errors.Is(err, unix.EROFS):
		why = rofs
	case err != nil:
		why = "this user may not write it"
	}
	// The write-ahead log and its index are made beside it when missing.
	dir := filepath.Dir(path)
	for _, side := range []string{path + "-wal", path + "-shm"} {
		if why != "" {
			break
		}
		if unix.Access(side, unix.W_OK) == nil {
			continue
		}
		switch err := unix.Access(dir, unix.W_OK); {
		case errors.Is(err, unix.EROFS):
			why = rofs
		case err != nil:
			why = "this user may not write its folder " + dir
		}
	}
	if why == rofs {
		fi, err := os.Stat(path + "-wal")
		immutable = err != nil || fi.Size() == 0
	}
	return why, immutable
}
