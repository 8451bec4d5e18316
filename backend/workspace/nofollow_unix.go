//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// noFollow makes opening the last element fail when it is a link: what the
// walk saw as a file must still be one.
const noFollow = syscall.O_NOFOLLOW

// openDirAt opens the folder name in the open folder dir, relative to its
// descriptor and refusing a link: a folder swapped for a
// link after dir was listed is not entered, and no path is resolved from
// the top again.
func openDirAt(dir *os.File, name string) (*os.File, error) {
	for {
		fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name)), nil
	}
}
