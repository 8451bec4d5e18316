package approval

import (
	"fmt"
	"strings"
)

// Mode is a session's approval mode.
type Mode string

const (
	// Manual asks before anything that changes the workspace or runs a command.
	Manual Mode = "manual"
	// Auto allows workspace changes and sandboxed commands; it asks before
	// leaving the workspace or the sandbox.
	Auto Mode = "auto"
	// FullAccess allows everything except deleting the filesystem root, with
	// no sandbox.
	FullAccess Mode = "full_access"
)

// Modes lists every mode, in order of increasing freedom.
var Modes = []Mode{Manual, Auto, FullAccess}

// ParseMode reads a mode as users write it: "manual", "auto", "full_access",
// "full-access" or "Full Access", in any case.
func ParseMode(s string) (Mode, error) {
	norm := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	for _, m := range Modes {
		if norm == string(m) {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown approval mode %q: want manual, auto or full-access", s)
}

// String returns the mode's name as stored.
func (m Mode) String() string { return string(m) }
