//go:build !unix

package files

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// dirHandle is an open folder of a walk: a root of its own, so its entries
// are resolved beneath it and a link swapped in for one of them cannot
// lead outside it. Entries that are links are not opened.
type dirHandle struct{ r *os.Root }

// openDirHandle opens the folder l (beneath the workspace root when l is
// inside).
func openDirHandle(l loc) (*dirHandle, error) {
	r, err := l.openFolder()
	if err != nil {
		return nil, err
	}
	return &dirHandle{r: r}, nil
}

func (h *dirHandle) close() { h.r.Close() }

func (h *dirHandle) readDir() ([]fs.DirEntry, error) {
	f, err := h.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (h *dirHandle) openDir(name string) (*dirHandle, error) {
	if fi, err := h.r.Lstat(name); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotFolder}
	}
	r, err := h.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &dirHandle{r: r}, nil
}

func (h *dirHandle) readFile(name string, buf []byte, limit int) ([]byte, error) {
	if fi, err := h.r.Lstat(name); err != nil {
		return buf[:0], err
	} else if !fi.Mode().IsRegular() {
		return buf[:0], errNotRegular
	}
	f, err := h.r.Open(name)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return buf, errTooLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if len(buf) > limit {
				return buf, errTooLarge
			}
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func (h *dirHandle) lstat(name string) (int64, fs.FileMode, error) {
	fi, err := h.r.Lstat(name)
	if err != nil {
		return 0, 0, err
	}
	return fi.Size(), fi.Mode(), nil
}

func (h *dirHandle) readlink(name string) (string, error) { return h.r.Readlink(name) }
