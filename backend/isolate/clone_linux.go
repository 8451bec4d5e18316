package isolate

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// cloneFile makes dst (which must not exist) a copy-on-write clone of src
// with FICLONE: Btrfs, XFS, bcachefs and ZFS 2.2 share the blocks until
// either file changes; other file systems refuse, and the caller copies.
func cloneFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = unix.IoctlFileClone(int(out.Fd()), int(in.Fd()))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}
