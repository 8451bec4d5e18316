//go:build linux

package workspace

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysStat returns the inode and change time (ns) of a stat result.
func sysStat(fi fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), st.Ctim.Nano()
	}
	return 0, 0
}

// statAt stats name in the open folder dir without following a link: one
// fstatat(2) relative to the folder, no path to resolve again.
func statAt(dir *os.File, dirAbs, name string) (Entry, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Entry{}, false
	}
	e := Entry{Mode: st.Mode, Size: st.Size, MTime: st.Mtim.Nano(), CTime: st.Ctim.Nano(), Ino: st.Ino}
	if e.IsDir() {
		e.Size, e.MTime = 0, 0
	}
	return e, true
}
