//go:build !linux

package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
)

// sysStat returns nothing off Linux (a first version): size, mode and
// modification time decide.
func sysStat(fi fs.FileInfo) (ino uint64, ctime int64) { return 0, 0 }

// statAt stats name in the folder dirAbs without following a link.
func statAt(dir *os.File, dirAbs, name string) (Entry, bool) {
	fi, err := os.Lstat(filepath.Join(dirAbs, name))
	if err != nil {
		return Entry{}, false
	}
	return entryOf(fi), true
}
