//go:build unix

package isolate

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// freeSpace returns the bytes an unprivileged user may still write on the
// file system of path (statfs).
func freeSpace(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// allocated returns the disk a file takes (its allocated blocks) and its
// identity, so that hard links count once.
func allocated(fi fs.FileInfo) (int64, [2]uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, [2]uint64{}, false
	}
	return int64(st.Blocks) * 512, [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
