//go:build unix && !darwin

package trash

import (
	"os"
	"syscall"
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
