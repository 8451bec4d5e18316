package sandboxtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns a new empty folder, removed when the test ends, outside the
// folders the sandbox hides from commands (/tmp, /var/tmp, /run: see the
// sandbox package), so that a test's "outside" folder is really there for
// a confined command and only the policy keeps it read-only. It lives in
// the user's cache folder, falling back to t.TempDir().
func Dir(t testing.TB) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err == nil {
		base = filepath.Join(base, "foya-test")
		err = os.MkdirAll(base, 0o700)
	}
	if err != nil {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(base, "t")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Tests leave read-only folders behind; make them removable.
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	dir, err = filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
