//go:build !unix && !windows

package lockfile

import (
	"errors"
	"os"
)

const (
	noFollow        = 0
	removeWhileOpen = true
)

func lock(*os.File, bool, bool) error {
	return errors.New("file locks are not supported on this system")
}

func fileID(*os.File) string { return "" }
