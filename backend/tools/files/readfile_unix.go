//go:build unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirHandle is an open folder of a walk. Its entries are opened relative to
// its descriptor with O_NOFOLLOW, so a walk never follows a symbolic link,
// even one swapped in for a folder or file after the folder was listed,
// and never resolves a path from the top again.
type dirHandle struct {
	f  *os.File
	fd int
}

// openDirHandle opens the folder l (beneath the workspace root when l is
// inside).
func openDirHandle(l loc) (*dirHandle, error) {
	f, err := l.openDirFile()
	if err != nil {
		return nil, err
	}
	return &dirHandle{f: f, fd: int(f.Fd())}, nil
}

func (h *dirHandle) close() { h.f.Close() }

func (h *dirHandle) readDir() ([]fs.DirEntry, error) { return h.f.ReadDir(-1) }

// openDir opens the sub-folder name, refusing a link.
func (h *dirHandle) openDir(name string) (*dirHandle, error) {
	fd, err := openat(h.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return &dirHandle{f: os.NewFile(uintptr(fd), filepath.Join(h.f.Name(), name)), fd: fd}, nil
}

// readFile reads the file name whole into buf (see readWhole), refusing a
// link.
func (h *dirHandle) readFile(name string, buf []byte, limit int) ([]byte, error) {
	fd, err := openat(h.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK)
	if err != nil {
		return buf[:0], &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	return readWhole(fd, buf, limit)
}

// lstat describes the entry name without following a link.
func (h *dirHandle) lstat(name string) (size int64, mode fs.FileMode, err error) {
	var st unix.Stat_t
	if err := unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, 0, err
	}
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFREG:
	default:
		m |= fs.ModeIrregular
	}
	return st.Size, m, nil
}

// readlink returns the target of the link name.
func (h *dirHandle) readlink(name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(h.fd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readWhole reads the open file fd into buf (reused when large enough),
// refusing files over limit bytes and anything but a regular file. It
// uses the system calls directly: grep opens tens of thousands of files,
// and os.File's poller registration and finalizer cost more than the
// reading.
func readWhole(fd int, buf []byte, limit int) ([]byte, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf[:0], err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf[:0], errNotRegular
	}
	if st.Size > int64(limit) {
		return buf[:0], errTooLarge
	}
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return buf, errTooLarge
			}
			next := make([]byte, len(buf), 2*cap(buf))
			copy(next, buf)
			buf = next
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return buf, err
		}
		if n == 0 {
			if len(buf) > limit {
				return buf, errTooLarge
			}
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
