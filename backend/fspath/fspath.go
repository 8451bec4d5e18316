// Package fspath answers one question for the whole kernel: does a path lie
// inside a folder. The approval policy (folder grants), the file tools (is a
// target inside the workspace), the trash (is a path the trash or inside it)
// and the sandbox (is a path writable, read-only, hidden) all ask it, and
// they must agree: a path the file tools call inside the workspace is one
// the sandbox lets a command write.
//
// The answer is lexical: Within never touches the file system and does not
// resolve symbolic links. Callers that care where a link leads resolve
// first (filepath.EvalSymlinks, os.Root) and ask about the resolved path.
// Because of that:
//
//   - Both paths must be absolute. An empty or relative path means
//     something only against a working directory this package does not
//     know, so it is inside nothing and holds nothing.
//   - A ".." element in either path makes the answer false. Lexically
//     "/w/link/../x" is "/w/x", but the kernel resolves "link" first and
//     may land anywhere; refusing is the side that asks the user.
//   - Repeated separators, "." elements and trailing separators are
//     ignored: "/w/", "/w//" and "/w/." are the folder "/w".
//   - Names compare byte for byte, on every system. Where a file system
//     folds case (macOS, Windows) two spellings of one folder compare as
//     different, and the answer is again the side that asks.
//   - A folder holds itself: Within("/w", "/w") is true.
//
// The package imports nothing of Foya's and holds no state; its functions
// are safe for concurrent use.
package fspath

import (
	"os"
	"path/filepath"
	"strings"
)

// Within reports whether p is root or lies inside it, by the rules of the
// package comment: lexical, absolute paths only, no "..".
func Within(root, p string) bool {
	_, ok := Rel(root, p)
	return ok
}

// Rel returns p relative to root when Within(root, p): "." for root
// itself, else the clean path below root, with the system's separator.
func Rel(root, p string) (string, bool) {
	r, ok := clean(root)
	if !ok {
		return "", false
	}
	c, ok := clean(p)
	if !ok {
		return "", false
	}
	if c == r {
		return ".", true
	}
	prefix := r
	if !os.IsPathSeparator(r[len(r)-1]) {
		// Only a file system root ("/", `C:\`) ends in a separator once
		// clean.
		prefix += string(filepath.Separator)
	}
	rest, ok := strings.CutPrefix(c, prefix)
	if !ok || rest == "" {
		return "", false
	}
	return rest, true
}

// WithinAny reports whether p is one of roots or lies inside one of them.
func WithinAny(roots []string, p string) bool {
	for _, r := range roots {
		if Within(r, p) {
			return true
		}
	}
	return false
}

// clean returns p cleaned when it is absolute and has no ".." element.
func clean(p string) (string, bool) {
	if !filepath.IsAbs(p) || hasDotDot(p) {
		return "", false
	}
	return filepath.Clean(p), true
}

// hasDotDot reports whether one of p's elements is "..".
func hasDotDot(p string) bool {
	for _, e := range strings.FieldsFunc(p, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) }) {
		if e == ".." {
			return true
		}
	}
	return false
}

// ResolveExisting resolves the symbolic links of the longest existing
// prefix of an absolute path; the rest is joined on unchanged.
func ResolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
