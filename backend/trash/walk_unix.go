//go:build unix

package trash

import (
	"os"
	"path/filepath"
)

// resolved returns p with symbolic links resolved as far as it exists.
func resolved(p string) string {
	existing := nearestExisting(p)
	r, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return p
	}
	rest, _ := filepath.Rel(existing, p)
	return filepath.Join(r, rest)
}

// nearestExisting returns p or its closest ancestor that exists.
func nearestExisting(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// mountTop walks up from dir (whose mount identity is id) to the top
// directory of its filesystem: the last ancestor with the same identity.
func mountTop(dir string, id mountID) (string, error) {
	cur := dir
	for {
		parent := filepath.Dir(cur)
		if parent == cur {
			return cur, nil
		}
		pid, err := mountOf(parent)
		if err != nil {
			return "", err
		}
		if !pid.same(id) {
			return cur, nil
		}
		cur = parent
	}
}
