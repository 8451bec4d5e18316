//go:build unix

package lockfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	noFollow        = unix.O_NOFOLLOW
	removeWhileOpen = true
)

func lock(f *os.File, shared, wait bool) error {
	how := unix.LOCK_EX
	if shared {
		how = unix.LOCK_SH
	}
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrLocked
		}
		return err
	}
}

func fileID(f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%x-%x", uint64(st.Dev), uint64(st.Ino))
}
