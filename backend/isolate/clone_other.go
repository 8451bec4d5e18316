//go:build !linux && !darwin

package isolate

import (
	"errors"
	"io/fs"
)

// cloneFile clones nothing here: the caller copies.
func cloneFile(src, dst string, perm fs.FileMode) error { return errors.ErrUnsupported }
