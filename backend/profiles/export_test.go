package profiles

import "time"

// SetWindowTimeout shortens the bound of asking a server for its window,
// so that a test of a silent server ends soon; it returns the old one.
func SetWindowTimeout(d time.Duration) time.Duration {
	old := windowTimeout
	windowTimeout = d
	return old
}
