package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// skipSet is what an index never looks at: absolute paths of files and
// folders (and what is below them), resolved as the index's roots are.
type skipSet struct {
	paths []string
	byDir map[string][]string // by folder: the names skipped in it
}

func newSkipSet(paths []string) skipSet {
	s := skipSet{byDir: map[string][]string{}}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		// The files may not exist yet; their folder does, and may be
		// reached through a link (the index's root is resolved).
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		s.paths = append(s.paths, p)
		dir := filepath.Dir(p)
		s.byDir[dir] = append(s.byDir[dir], filepath.Base(p))
	}
	return s
}

// in returns the names skipped in the folder dir (absolute).
func (s skipSet) in(dir string) []string {
	if len(s.byDir) == 0 {
		return nil
	}
	return s.byDir[dir]
}

// has reports whether abs is skipped or below a skipped folder.
func (s skipSet) has(abs string) bool {
	for _, p := range s.paths {
		if abs == p || strings.HasPrefix(abs, p+string(os.PathSeparator)) {
			return true
		}
	}
	return false
}
