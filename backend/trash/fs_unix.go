//go:build unix && !darwin

package trash

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// renameIfAbsent renames src to dst unless dst exists. The check and the
// rename are two steps (the error then matches fs.ErrExist); it is used only where the kernel lacks an atomic
// no-replace rename.
func renameIfAbsent(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: syscall.EEXIST}
	} else if !os.IsNotExist(err) {
		return err
	}
	return os.Rename(src, dst)
}

// renameAtIfAbsent is renameIfAbsent for names relative to folder
// descriptors.
func renameAtIfAbsent(fromfd int, from string, tofd int, to string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(tofd, to, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		return &os.LinkError{Op: "renameat", Old: from, New: to, Err: syscall.EEXIST}
	} else if !errors.Is(err, unix.ENOENT) {
		return &os.LinkError{Op: "renameat", Old: from, New: to, Err: err}
	}
	if err := unix.Renameat(fromfd, from, tofd, to); err != nil {
		return &os.LinkError{Op: "renameat", Old: from, New: to, Err: err}
	}
	return nil
}
