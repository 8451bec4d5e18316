//go:build !unix

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

const noFollow = 0

// openDirAt opens the folder name in the folder dir, refusing a link. With
// no openat here, it checks that what it opened is the folder Lstat saw
// (a first version: a swap between the two is still possible).
func openDirAt(dir *os.File, name string) (*os.File, error) {
	p := filepath.Join(dir.Name(), name)
	seen, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !seen.IsDir() {
		return nil, fmt.Errorf("open %s: not a folder", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(seen, fi) {
		f.Close()
		return nil, fmt.Errorf("open %s: it changed while it was opened", p)
	}
	return f, nil
}
