//go:build unix

package files

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives the new file the old one's owner and group when the
// process may (root, or the same owner with a group it belongs to).
func keepOwner(f *os.File, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}
