//go:build freebsd || dragonfly

package trash

import "golang.org/x/sys/unix"

// mountPoints returns the mounted filesystems' mount points.
func mountPoints() ([]string, error) {
	n, err := unix.Getfsstat(nil, unix.MNT_NOWAIT)
	if err != nil {
		return nil, err
	}
	buf := make([]unix.Statfs_t, n)
	n, err = unix.Getfsstat(buf, unix.MNT_NOWAIT)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, n)
	for _, st := range buf[:n] {
		out = append(out, unix.ByteSliceToString(st.Mntonname[:]))
	}
	return out, nil
}
