package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrLocked is returned when the lock is held by someone else and the
// caller did not ask to wait.
var ErrLocked = errors.New("locked by another process")

// How says which lock to take.
type How uint8

const (
	// Exclusive is the zero How: one holder, no shared holders.
	Exclusive How = 0
	// Shared lets any number of shared holders in, and no exclusive one.
	Shared How = 1 << 0
	// Wait blocks until the lock is free instead of returning ErrLocked.
	Wait How = 1 << 1
)

// File is an open lock file whose lock is held until Close or Remove.
type File struct {
	f    *os.File
	path string
}

// Create opens the lock file at path, creating it (mode 0600) if needed,
// and takes the lock. It never follows a symbolic link at path. When the
// file is removed by another holder between the open and the lock, it
// starts again, so the lock returned is on the file path names.
func Create(path string, how How) (*File, error) {
	for {
		l, err := open(path, os.O_RDWR|os.O_CREATE, how)
		if err != nil {
			return nil, err
		}
		if l.Current() {
			return l, nil
		}
		l.Close()
	}
}

// CreateNew makes a new lock file at path, which must not exist, holding
// its lock from the start: the file is made and locked under a temporary
// name, then linked to path. Another process that opens every lock file
// in the folder to learn which owners are gone (and removes those it can
// lock) cannot take it in between, as it could the file Create makes.
// Where the file system has no hard links, it falls back to Create.
func CreateNew(path string, how How) (*File, error) {
	if !removeWhileOpen {
		return Create(path, how) // the temporary name could not go while open
	}
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".new-")
	if err != nil {
		return nil, fmt.Errorf("make lock file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := lock(tmp, how&Shared != 0, how&Wait != 0); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("lock %s: %w", tmp.Name(), err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		tmp.Close()
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("make lock file: %w", err)
		}
		return Create(path, how)
	}
	return &File{f: tmp, path: path}, nil
}

// Open takes the lock on an existing lock file; a missing file is an error
// satisfying errors.Is(err, fs.ErrNotExist). The file may have been removed
// after the open: check Current before trusting what the lock says.
func Open(path string, how How) (*File, error) {
	return open(path, os.O_RDWR, how)
}

func open(path string, flag int, how How) (*File, error) {
	f, err := os.OpenFile(path, flag|noFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := lock(f, how&Shared != 0, how&Wait != 0); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &File{f: f, path: path}, nil
}

// Path returns the lock file's path.
func (l *File) Path() string { return l.path }

// Stat describes the locked file.
func (l *File) Stat() (fs.FileInfo, error) { return l.f.Stat() }

// ID returns an identity of the locked file that changes when the file is
// replaced by another of the same name (device and inode on Unix, volume
// and file index on Windows), or "" where the system does not tell.
func (l *File) ID() string { return fileID(l.f) }

// Current reports whether path still names the locked file: false once the
// file was removed or replaced.
func (l *File) Current() bool {
	a, err := l.f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(l.path)
	return err == nil && os.SameFile(a, b)
}

// Close releases the lock and keeps the file.
func (l *File) Close() error { return l.f.Close() }

// Remove removes the lock file, if path still names it, then releases the
// lock. Only a holder of the exclusive lock should remove the file.
func (l *File) Remove() error {
	var err error
	if removeWhileOpen && l.Current() {
		err = os.Remove(l.path)
	}
	cur := !removeWhileOpen && l.Current()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if cur {
		// Windows cannot remove an open file. Between the close and the
		// removal another process may take the lock; it sees the file go
		// (Current turns false) and starts over.
		err = os.Remove(l.path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("remove lock file: %w", err)
	}
	return nil
}
