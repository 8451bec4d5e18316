//go:build unix && !darwin && !linux && !freebsd && !dragonfly && !openbsd && !netbsd

package trash

// mountPoints is not implemented on this system: List shows the home trash
// and Put still finds a file's own top directory by walking up.
func mountPoints() ([]string, error) { return nil, nil }
