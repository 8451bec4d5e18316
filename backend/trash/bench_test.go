//go:build unix && !darwin

package trash

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkPut measures trashing one small file into the home trash: the
// O_EXCL claim of the info file, its write and the rename. Creating the
// file is not timed.
func BenchmarkPut(b *testing.B) {
	e := newEnv(b)
	for i := range b.N {
		b.StopTimer()
		p := filepath.Join(e.work, "f-"+strconv.Itoa(i)+".txt")
		if err := os.WriteFile(p, []byte("small file\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := e.tr.Put(p); err != nil {
			b.Fatal(err)
		}
	}
}
