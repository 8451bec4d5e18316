//go:build unix && !linux

package trash

import (
	"os"
	"syscall"
)

// mountID identifies the filesystem a path lives on by its device.
type mountID struct{ dev uint64 }

func (a mountID) same(b mountID) bool { return a.dev == b.dev }

func mountOf(p string) (mountID, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return mountID{}, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	return mountID{dev: uint64(st.Dev)}, nil
}

// mountOfFd is mountOf for an open folder.
func mountOfFd(fd int) (mountID, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return mountID{}, &os.PathError{Op: "fstat", Path: "(open folder)", Err: err}
	}
	return mountID{dev: uint64(st.Dev)}, nil
}
