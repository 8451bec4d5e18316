//go:build unix

package files

import (
	"syscall"
)

// readWhole reads the file at path into buf (reused when large enough),
// refusing files over limit bytes. It uses the system calls directly: grep
// opens tens of thousands of files, and os.File's poller registration and
// finalizer cost more than the reading.
func readWhole(path string, buf []byte, limit int) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf[:0], err
	}
	defer syscall.Close(fd)
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= 1<<20 {
				// A big file: ask its size once rather than read it all.
				var st syscall.Stat_t
				if err := syscall.Fstat(fd, &st); err == nil && st.Size > int64(limit) {
					return buf, errTooLarge
				}
			}
			if len(buf) > limit {
				return buf, errTooLarge
			}
			next := make([]byte, len(buf), 2*cap(buf))
			copy(next, buf)
			buf = next
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
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
