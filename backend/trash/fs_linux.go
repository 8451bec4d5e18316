package trash

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mountID identifies the mount a path lives on: its device and, where the
// kernel reports it (Linux 5.8 and later), the mount id, which tells bind
// mounts of one device apart (rename(2) cannot cross them either).
type mountID struct {
	dev    uint64
	mnt    uint64
	hasMnt bool
}

func (a mountID) same(b mountID) bool {
	if a.dev != b.dev {
		return false
	}
	return !a.hasMnt || !b.hasMnt || a.mnt == b.mnt
}

func mountOf(p string) (mountID, error) {
	var stx unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, p, unix.AT_STATX_SYNC_AS_STAT, unix.STATX_BASIC_STATS|unix.STATX_MNT_ID, &stx)
	if err == nil {
		return mountID{
			dev:    unix.Mkdev(stx.Dev_major, stx.Dev_minor),
			mnt:    stx.Mnt_id,
			hasMnt: stx.Mask&unix.STATX_MNT_ID != 0,
		}, nil
	}
	// Old kernels lack statx; some container seccomp profiles refuse it.
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		return mountID{}, &os.PathError{Op: "statx", Path: p, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return mountID{}, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	return mountID{dev: st.Dev}, nil
}

// renameNoReplace renames src to dst and fails with an error matching
// fs.ErrExist when dst exists, atomically where the filesystem supports
// RENAME_NOREPLACE.
func renameNoReplace(src, dst string) error {
	err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL), errors.Is(err, unix.EOPNOTSUPP):
		return renameIfAbsent(src, dst)
	}
	return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
}

// pseudoFS are filesystem types that never hold a user's trash; skipping
// them keeps List from touching /proc, /sys and automount points.
var pseudoFS = map[string]bool{
	"proc": true, "sysfs": true, "cgroup": true, "cgroup2": true, "devpts": true,
	"mqueue": true, "debugfs": true, "tracefs": true, "securityfs": true,
	"pstore": true, "bpf": true, "configfs": true, "fusectl": true,
	"hugetlbfs": true, "autofs": true, "binfmt_misc": true, "rpc_pipefs": true,
	"nsfs": true, "efivarfs": true, "selinuxfs": true, "devtmpfs": true,
}

// mountPoints returns the mount points in /proc/self/mountinfo.
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		mp, fstype, ok := parseMountinfoLine(sc.Text())
		if !ok || pseudoFS[fstype] || seen[mp] {
			continue
		}
		seen[mp] = true
		out = append(out, mp)
	}
	return out, sc.Err()
}

// parseMountinfoLine returns the mount point (field 5) and the filesystem
// type (first field after " - ") of a mountinfo line.
func parseMountinfoLine(l string) (mountPoint, fstype string, ok bool) {
	pre, post, ok := strings.Cut(l, " - ")
	if !ok {
		return "", "", false
	}
	fields := strings.Fields(pre)
	postFields := strings.Fields(post)
	if len(fields) < 5 || len(postFields) < 1 {
		return "", "", false
	}
	return unescapeOctal(fields[4]), postFields[0], true
}

// unescapeOctal decodes the \NNN escapes the kernel uses for spaces, tabs,
// newlines and backslashes in mount points.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountOfFd is mountOf for an open folder.
func mountOfFd(fd int) (mountID, error) {
	var stx unix.Statx_t
	err := unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_STATX_SYNC_AS_STAT, unix.STATX_BASIC_STATS|unix.STATX_MNT_ID, &stx)
	if err == nil {
		return mountID{
			dev:    unix.Mkdev(stx.Dev_major, stx.Dev_minor),
			mnt:    stx.Mnt_id,
			hasMnt: stx.Mask&unix.STATX_MNT_ID != 0,
		}, nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		return mountID{}, &os.PathError{Op: "statx", Path: "(open folder)", Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return mountID{}, &os.PathError{Op: "fstat", Path: "(open folder)", Err: err}
	}
	return mountID{dev: st.Dev}, nil
}

// renameAtNoReplace is renameNoReplace for names relative to folder
// descriptors (unix.AT_FDCWD for a path).
func renameAtNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL), errors.Is(err, unix.EOPNOTSUPP):
		return renameAtIfAbsent(fromfd, from, tofd, to)
	}
	return &os.LinkError{Op: "renameat", Old: from, New: to, Err: err}
}
