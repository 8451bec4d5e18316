package isolate

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// cloneFile makes dst (which must not exist) a copy-on-write clone of src
// with clonefile(2): APFS shares the blocks until either file changes;
// other file systems refuse, and the caller copies.
func cloneFile(src, dst string, perm fs.FileMode) error {
	if err := unix.Clonefile(src, dst, unix.CLONE_NOFOLLOW); err != nil {
		return err
	}
	if err := os.Chmod(dst, perm); err != nil {
		os.Remove(dst)
		return err
	}
	return nil
}
