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
// can be written or does not exist yet.
func readOnlyWhy(path string) string {
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	switch err := unix.Access(path, unix.W_OK); {
	case errors.Is(err, unix.EROFS):
		return "it is on a read-only file system"
	case err != nil:
		return "this user may not write it"
	}
	// The write-ahead log and its index are made beside it when missing.
	dir := filepath.Dir(path)
	for _, side := range []string{path + "-wal", path + "-shm"} {
		if unix.Access(side, unix.W_OK) == nil {
			continue
		}
		switch err := unix.Access(dir, unix.W_OK); {
		case errors.Is(err, unix.EROFS):
			return "it is on a read-only file system"
		case err != nil:
			return "this user may not write its folder " + dir
		}
	}
	return ""
}
