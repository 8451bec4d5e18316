package trash

import (
	"fmt"
	"path/filepath"
)

// Home returns the home volume's trash, ~/.Trash; paths on other volumes
// go to $volume/.Trashes/$uid (see Put).
func (t *Trash) Home() (string, error) {
	if t.err != nil {
		return "", fmt.Errorf("find the trash: %w", t.err)
	}
	return filepath.Join(t.home, ".Trash"), nil
}
