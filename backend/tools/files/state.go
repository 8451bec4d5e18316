package files

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// MaxKeep is the largest file whose contents write, edit, delete and
// revert read into memory and keep as a blob. write and edit refuse larger
// files; delete still moves them to the trash, which then holds the only
// copy.
const MaxKeep = 64 << 20

// Unix file type bits, as st_mode carries them.
const (
	modeTypeMask = 0o170000
	modeRegular  = 0o100000
	modeDir      = 0o040000
	modeSymlink  = 0o120000
	modePermMask = 0o7777
)

// state is what is at a path at one moment.
type state struct {
	Exists  bool
	IsDir   bool
	Link    bool
	Mode    uint32 // Unix st_mode: type and permission bits
	Size    int64
	ModTime time.Time
	// Data is the content (a link's target for a link), nil for a folder
	// or when larger than MaxKeep.
	Data []byte
	// SHA is the sha256 of Data; empty when Data is nil.
	SHA string
}

// UnixMode turns Go's FileMode into a Unix st_mode value (type bits
// included), as File Changes record modes.
func UnixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	switch {
	case m.IsDir():
		u |= modeDir
	case m&fs.ModeSymlink != 0:
		u |= modeSymlink
	case m.IsRegular():
		u |= modeRegular
	}
	return u
}

// goMode turns the permission bits of a Unix st_mode into Go's FileMode,
// for Chmod.
func goMode(u uint32) fs.FileMode {
	m := fs.FileMode(u & 0o777)
	if u&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if u&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if u&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// errTooLarge is returned by snapshot for files over the limit.
var errTooLarge = errors.New("file too large")

// errNotRegular is returned by a walk's reads of what is not a regular file.
var errNotRegular = errors.New("not a regular file")

// snapshot reads what is at path without following a link in its last
// element. Files up to limit bytes are read whole and hashed; for larger
// ones Data and SHA stay empty and the error wraps errTooLarge, with the
// rest of the state filled in. A missing path is a state with Exists false
// and no error.
func snapshot(l loc, limit int64) (state, error) {
	path := l.show
	fi, err := l.lstat()
	if errors.Is(err, fs.ErrNotExist) {
		return state{}, nil
	}
	if err != nil {
		return state{}, err
	}
	st := state{Exists: true, IsDir: fi.IsDir(), Link: fi.Mode()&fs.ModeSymlink != 0, Mode: UnixMode(fi.Mode()),
		Size: fi.Size(), ModTime: fi.ModTime()}
	switch {
	case st.IsDir:
		return st, nil
	case st.Link:
		target, err := l.readlink()
		if err != nil {
			return st, err
		}
		st.Data = []byte(target)
	case !fi.Mode().IsRegular():
		return st, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	default:
		if fi.Size() > limit {
			return st, fmt.Errorf("%s is %d bytes, more than %d: %w", path, fi.Size(), limit, errTooLarge)
		}
		data, err := readLimited(l, limit)
		if err != nil {
			return st, err
		}
		st.Data = data
		st.Size = int64(len(data))
	}
	st.SHA = digest(st.Data)
	return st, nil
}

// readLimited reads a whole file of at most limit bytes; a file that grew
// past limit since it was stat'ed is an errTooLarge.
func readLimited(l loc, limit int64) ([]byte, error) {
	path := l.show
	f, err := l.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("%s is more than %d bytes: %w", path, limit, errTooLarge)
	}
	if buf.Len() == 0 {
		return []byte{}, nil
	}
	return buf.Bytes(), nil
}

// digest returns the sha256 of b in hex.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// isBinary reports whether b looks like binary content: a NUL byte in its
// first 8 KiB, as git and ripgrep decide.
func isBinary(b []byte) bool {
	if len(b) > 8<<10 {
		b = b[:8<<10]
	}
	return bytes.IndexByte(b, 0) >= 0
}
