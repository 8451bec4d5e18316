package sandboxtest

import (
	"fmt"
	"os"
	"runtime"
)

// CheckDevNull reports an error when /dev/null is not the null device. A
// test command that escaped in Full Access (a move or a delete aimed at
// it) would leave the machine with a regular file there, and every later
// command that writes to it would misbehave; test mains call this after
// their run so that the package that did it is named.
func CheckDevNull() error {
	if runtime.GOOS == "windows" {
		return nil
	}
	fi, err := os.Lstat("/dev/null")
	if err != nil {
		return fmt.Errorf("/dev/null: %w", err)
	}
	if fi.Mode()&os.ModeCharDevice == 0 {
		return fmt.Errorf("/dev/null is no longer the null device (mode %v): a test replaced it", fi.Mode())
	}
	return nil
}
