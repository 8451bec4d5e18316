//go:build linux

package workspace

import (
	"io/fs"
	"syscall"
)

// sysStat returns the inode and change time (ns) of a stat result.
func sysStat(fi fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), st.Ctim.Nano()
	}
	return 0, 0
}
