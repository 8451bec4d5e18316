//go:build unix && !darwin

package trash

import "fmt"

// Home returns the home trash, $XDG_DATA_HOME/Trash, which takes the paths
// on the home folder's filesystem; paths on other filesystems go to that
// filesystem's own trash (see Put). The folder may not exist yet: the
// first Put makes it.
func (t *Trash) Home() (string, error) {
	if t.err != nil {
		return "", fmt.Errorf("find the trash: %w", t.err)
	}
	return t.homeTrash().root, nil
}
