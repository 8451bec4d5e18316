package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"foya/backend/approval"
	"foya/backend/fspath"
)

// Protected are the folder names that writes and deletes treat as
// protected wherever they appear inside the workspace (spec D2).
var Protected = []string{".git", ".agents", ".foya"}

// target is a path a tool works on, resolved against the workspace.
type target struct {
	// Arg is the path as the model wrote it.
	Arg string
	// Real is the absolute path the tool touches: cleaned, with symbolic
	// links resolved (in the parent folders only, for delete).
	Real string
	// Workdir is the session's working directory, resolved.
	Workdir string
	// Rel is Real relative to Workdir, with forward slashes; "." for the
	// workdir itself; empty when Real is outside.
	Rel string
	// Inside says Real is the workdir or lies inside it.
	Inside bool
	// Protected says Real is, or lies inside, a .git, .agents or .foya
	// folder of the workspace.
	Protected bool
	// IsWorkdir says Real is the workdir itself.
	IsWorkdir bool
	// FSRoot says Real is the root of a filesystem tree ("/", "C:\").
	FSRoot bool
	// root is the workspace root, opened by resolve when Inside: the
	// target's I/O goes through it (see loc). close releases it.
	root *os.Root
}

// loc is where the target's I/O happens: Rel beneath the workspace root
// when inside, the plain path Real otherwise.
func (t target) loc() loc {
	if t.root != nil {
		return rootLoc(t.root, t.Workdir, filepath.FromSlash(t.Rel))
	}
	return plainLoc(t.Real)
}

// close releases the workspace root resolve opened.
func (t target) close() {
	if t.root != nil {
		t.root.Close()
	}
}

// Show returns the path as results show it: relative to the workdir when
// inside, absolute otherwise.
func (t target) Show() string {
	if t.Inside {
		return filepath.FromSlash(t.Rel)
	}
	return t.Real
}

// workdir resolves the session's working directory.
func workdir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("the session has no working directory")
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("the session's working directory %q is not absolute", dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("the session's working directory %s cannot be used: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("the session's working directory %s cannot be used: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("the session's working directory %s is not a folder", dir)
	}
	return real, nil
}

// maxPathBytes is the longest path a tool takes: Linux's PATH_MAX, which
// no path a file can be opened by exceeds. A longer one made resolving it
// (realPath, element by element) take hours for a path of a million
// missing folders, holding the call.
const maxPathBytes = 4096

// maxQuoted is how much of a model's pattern a result quotes back.
const maxQuoted = 200

// quoted returns a pattern as a result quotes it back to the model: whole
// up to maxQuoted bytes, else its start and its length, so that a huge
// pattern is not stored and sent to the model again in every request.
func quoted(p string) string {
	if len(p) <= maxQuoted {
		return p
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", p[:cut], len(p))
}

// checkPath rejects paths no tool may be given: empty ones, ones with NUL
// bytes (which the OS would cut short) and ones longer than maxPathBytes.
func checkPath(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New("path is empty: give a path relative to the working directory, or an absolute one")
	}
	if len(p) > maxPathBytes {
		return fmt.Errorf("path is %d bytes long; at most %d: no file has so long a path", len(p), maxPathBytes)
	}
	if strings.ContainsRune(p, 0) {
		return fmt.Errorf("path %q contains a NUL byte: no file can have such a name", p)
	}
	return nil
}

// resolve turns the model's path into a target. followLast resolves a
// symbolic link in the last element too (read, write, edit); delete passes
// false, so a link is deleted itself and never its target. The caller
// closes the target.
func resolve(dir, p string, followLast bool) (target, error) {
	if err := checkPath(p); err != nil {
		return target{}, err
	}
	wd, err := workdir(dir)
	if err != nil {
		return target{}, err
	}
	abs := p
	if !filepath.IsAbs(abs) {
		// Join against the workdir as given, so that "a/../b" is relative
		// to what the user sees; links are resolved below.
		abs = filepath.Join(dir, abs)
	}
	abs = filepath.Clean(abs)
	var real string
	if followLast {
		real, err = realPath(abs)
	} else if parent := filepath.Dir(abs); parent == abs {
		real = abs
	} else {
		var rp string
		rp, err = realPath(parent)
		real = filepath.Join(rp, filepath.Base(abs))
	}
	if err != nil {
		return target{}, fmt.Errorf("path %s: %w", p, err)
	}
	t := classify(p, real, wd)
	if t.Inside {
		// The string checks above decide the approval kind only; what
		// is touched is resolved again, beneath this root, at use.
		if t.root, err = os.OpenRoot(wd); err != nil {
			return target{}, fmt.Errorf("the session's working directory %s cannot be used: %w", wd, err)
		}
	}
	return t, nil
}

// classify fills in where real lies relative to the resolved workdir wd.
func classify(arg, real, wd string) target {
	t := target{Arg: arg, Real: real, Workdir: wd, FSRoot: filepath.Dir(real) == real}
	if rel, ok := fspath.Rel(wd, real); ok {
		t.Inside, t.Rel, t.IsWorkdir = true, filepath.ToSlash(rel), rel == "."
		for _, part := range strings.Split(t.Rel, "/") {
			for _, name := range Protected {
				if part == name {
					t.Protected = true
				}
			}
		}
	}
	return t
}

// realPath resolves symbolic links in every element of abs that exists;
// the elements after the first missing one are kept as written.
func realPath(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		// A dangling link in the last element, a loop, a permission
		// problem: fall back to resolving the parent.
		if _, lerr := os.Lstat(abs); lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
			return "", err
		}
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := realPath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}

// readKind is the approval kind of reading t.
func readKind(t target) approval.Kind {
	if t.Inside {
		return approval.ReadInside
	}
	return approval.ReadOutside
}

// writeKind is the approval kind of writing t.
func writeKind(t target) approval.Kind {
	if t.Inside && !t.Protected {
		return approval.WriteInside
	}
	return approval.WriteProtected
}

// deleteKind is the approval kind of deleting t.
func deleteKind(t target) approval.Kind {
	switch {
	case t.FSRoot:
		return approval.DeleteRoot
	case !t.Inside || t.IsWorkdir || t.Protected:
		return approval.DeleteProtected
	}
	return approval.DeleteInside
}
