package trash

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
)

// Home returns the user's Recycle Bin on the system drive,
// %SystemDrive%\$Recycle.Bin\<user SID>; each drive has its own (see Put).
func (t *Trash) Home() (string, error) {
	if t.err != nil {
		return "", fmt.Errorf("find the trash: %w", t.err)
	}
	sid, err := userSID()
	if err != nil {
		return "", fmt.Errorf("find the trash: %w", err)
	}
	return filepath.Join(cmp.Or(os.Getenv("SystemDrive"), "C:")+`\`, "$Recycle.Bin", sid), nil
}
