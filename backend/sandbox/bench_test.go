//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func benchRun(b *testing.B, cmd Command) Result {
	b.Helper()
	res, err := Run(context.Background(), cmd)
	if err != nil {
		b.Fatal(err)
	}
	if res.ExitCode != 0 {
		b.Fatalf("exit %d: %s", res.ExitCode, res.Output)
	}
	return res
}

// BenchmarkStartPlain measures starting and ending `true` without sandbox.
func BenchmarkStartPlain(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		benchRun(b, Command{Script: "true", Dir: dir})
	}
}

// BenchmarkStartSandboxed measures the same under each confining mechanism.
func BenchmarkStartSandboxed(b *testing.B) {
	for _, m := range restrictedModes(b) {
		b.Run(m.name, func(b *testing.B) {
			m.use(b)
			box := newBox(b)
			for b.Loop() {
				benchRun(b, Command{Script: "true", Dir: box.ws, Policy: box.policy(true)})
			}
		})
	}
}

// BenchmarkRunBigOutput prints 512 MiB through the runner's ring buffer and
// compares with the same bytes sent to /dev/null by the shell itself.
//
// spec: O4
func BenchmarkRunBigOutput(b *testing.B) {
	const size = 512 << 20
	dir := b.TempDir()
	file := filepath.Join(dir, "big")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		b.Fatal(err)
	}
	f.Close()
	// Read the file once so that every variant finds it in the page cache.
	benchRun(b, Command{Script: `cat "$F" > /dev/null`, Dir: dir, Env: append(os.Environ(), "F="+file)})
	cases := []struct {
		name, script string
		restricted   bool
	}{
		{"captured/head-zero", `head -c 536870912 /dev/zero`, false},
		{"captured/cat-file", `cat "$F"`, false},
		{"captured-sandboxed/cat-file", `cat "$F"`, true},
		{"baseline/head-zero-to-devnull", `head -c 536870912 /dev/zero > /dev/null`, false},
		{"baseline/cat-file-to-devnull", `cat "$F" > /dev/null`, false},
		{"baseline/cat-file-pipe-cat-devnull", `cat "$F" | cat > /dev/null`, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.restricted && Probe().Mechanism == "" {
				b.Skip("no sandbox here")
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				pol := Policy{Restricted: c.restricted, Writable: []string{dir}}
				res := benchRun(b, Command{Script: c.script, Dir: dir, Env: append(os.Environ(), "F="+file), Policy: pol})
				if want := int64(size); res.TotalBytes != want && res.TotalBytes != 0 {
					b.Fatalf("TotalBytes %d; want %d", res.TotalBytes, want)
				}
			}
		})
	}
}
