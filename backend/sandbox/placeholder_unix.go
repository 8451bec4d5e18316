//go:build unix

package sandbox

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// removeDirWhileOpen: a folder can be removed while this process has it
// open (and locked), so nobody can take the lock in between.
const removeDirWhileOpen = true

// lockDir takes the shared lock on an open folder, waiting for it, or the
// exclusive lock without waiting (failing when another holds it).
func lockDir(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX | unix.LOCK_NB
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
