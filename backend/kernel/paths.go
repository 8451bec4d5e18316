package kernel

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds of CompletePath.
const (
	// MaxCompletions is the most folders CompletePath returns.
	MaxCompletions = 50
	// MaxPathBytes is the longest path CompletePath takes.
	MaxPathBytes = 4096
)

// CompletePath completes a folder path being typed (the browser's "new
// session" path field): the absolute paths of the folders in the typed
// path's parent whose names start with its last element, sorted, at most
// MaxCompletions. "~" and "~/" at the start mean the home folder. Hidden
// folders (names starting with a dot) are offered only when the typed last
// element starts with a dot. A prefix ending in a separator lists the
// folder's subfolders. A parent that does not exist or cannot be read gives
// none. A relative path, a NUL byte or a path longer than MaxPathBytes is
// ErrInvalid.
func (k *Kernel) CompletePath(ctx context.Context, prefix string) ([]string, error) {
	switch {
	case len(prefix) > MaxPathBytes:
		return nil, kindf(ErrInvalid, "path completion: the path is %d bytes long; at most %d", len(prefix), MaxPathBytes)
	case strings.ContainsRune(prefix, 0):
		return nil, kindf(ErrInvalid, "path completion: the path holds a NUL byte")
	}
	path, err := expandHome(prefix)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(path) {
		return nil, kindf(ErrInvalid, "path completion: %q is not an absolute path; start with %c or ~", prefix, filepath.Separator)
	}
	dir, last := path, ""
	if !os.IsPathSeparator(path[len(path)-1]) {
		dir, last = filepath.Split(path)
	}
	f, err := os.Open(dir)
	if err != nil {
		return []string{}, nil // nothing to complete there
	}
	defer f.Close()
	hidden := strings.HasPrefix(last, ".")
	var out []string
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ents, err := f.ReadDir(1024)
		for _, e := range ents {
			name := e.Name()
			if !strings.HasPrefix(name, last) || (strings.HasPrefix(name, ".") && !hidden) {
				continue
			}
			full := filepath.Join(dir, name)
			if e.Type()&os.ModeSymlink != 0 { // a link to a folder is offered too
				if fi, err := os.Stat(full); err != nil || !fi.IsDir() {
					continue
				}
			} else if !e.IsDir() {
				continue
			}
			out = append(out, full)
		}
		if errors.Is(err, io.EOF) || len(ents) == 0 {
			break
		}
		if err != nil {
			break // what was read so far is still worth offering
		}
	}
	slices.Sort(out)
	if len(out) > MaxCompletions {
		out = out[:MaxCompletions]
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// expandHome replaces a leading "~" (alone or before a separator) with the
// home folder; "~" alone means the home folder's contents.
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", kindf(ErrUnavailable, "path completion: no home folder to expand ~ to: %w", err)
	}
	return home + string(filepath.Separator) + strings.TrimLeft(p[1:], `/`+string(filepath.Separator)), nil
}
