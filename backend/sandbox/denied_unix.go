//go:build unix

package sandbox

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writableUnconfined reports whether the user could write p (or create it,
// when it does not exist) without the sandbox: only then was a refusal the
// sandbox's doing.
func writableUnconfined(p string) bool {
	if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
		return unix.Access(filepath.Dir(p), unix.W_OK|unix.X_OK) == nil
	}
	return unix.Access(p, unix.W_OK) == nil
}
