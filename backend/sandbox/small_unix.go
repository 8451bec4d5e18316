//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// fileOwner is the owner's user ID of a file.
func fileOwner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
