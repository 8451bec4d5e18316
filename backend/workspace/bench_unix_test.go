//go:build unix

package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"foya/backend/tools/files"
)

// sourceTree writes n files of about size bytes each, in folders of 50,
// with text like source code (words from a small vocabulary), and returns
// the bytes written.
func sourceTree(tb testing.TB, dir string, n, size int) int64 {
	tb.Helper()
	words := strings.Fields("func return if else for range var const type struct package import err nil string int byte " +
		"context ctx fmt Errorf t Fatal append len make map slice value key index next prev")
	r := rand.New(rand.NewPCG(1, 2))
	var total int64
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i/50)
		for b.Len() < size {
			for range 8 {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d\n", r.IntN(1000))
		}
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/50), fmt.Sprintf("f%05d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		total += int64(b.Len())
	}
	return total
}

// BenchmarkNothingChangedWatched is BenchmarkNothingChanged with a real
// watcher attached, as the kernel runs it: Before looks only at the paths
// the watcher reported (none), After waits for the watcher's barrier and
// does the same.
func BenchmarkNothingChangedWatched(b *testing.B) {
	ws := b.TempDir()
	sourceTree(b, ws, 10_000, 1000)
	m := New(Options{Dir: b.TempDir()})
	defer m.Close()
	ctx := context.Background()
	m.Warm("s", ws)
	w, err := files.Watch(ws, files.WatchOptions{
		OnChange:   func(p string) { m.Touch("s", p) },
		OnDegraded: func(string) { m.Degrade("s") },
	})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	m.Attach("s", w)
	if _, err := m.Before(ctx, "s", ws); err != nil { // the full walk that makes later ones narrow
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := m.Before(ctx, "s", ws); err != nil {
			b.Fatal(err)
		}
		c, err := m.After(ctx, "s", ws)
		if err != nil || len(c.Changes) != 0 {
			b.Fatal(err, len(c.Changes))
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkNothingChanged is the overhead a shell command pays on a
// 10,000-file workspace when it changes nothing: Before and After.
func BenchmarkNothingChanged(b *testing.B) {
	ws := b.TempDir()
	sourceTree(b, ws, 10_000, 1000)
	m := New(Options{Dir: b.TempDir()})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Before(ctx, "s", ws); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := m.Before(ctx, "s", ws); err != nil {
			b.Fatal(err)
		}
		c, err := m.After(ctx, "s", ws)
		if err != nil || len(c.Changes) != 0 {
			b.Fatal(err, len(c.Changes))
		}
	}
	// CPU time as well as wall time: on a loaded machine the wall time
	// measures the wait for a core more than the work.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFirstIndex builds the first index of a 10,000-file, 100 MB
// repository and reports the disk it takes against the source's size.
//
// FOYA_BENCH_TREE names a real folder to index instead (its size is
// summed as the source), for figures on real code.
func BenchmarkFirstIndex(b *testing.B) {
	ws := os.Getenv("FOYA_BENCH_TREE")
	var src int64
	if ws == "" {
		ws = b.TempDir()
		src = sourceTree(b, ws, 10_000, 10_000)
	} else {
		filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil && fi.Size() <= DefaultMaxFile {
					src += fi.Size()
				}
			}
			return nil
		})
	}
	ctx := context.Background()
	var u Usage
	cpu := cpuTime()
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "ix")
		m := New(Options{Dir: dir})
		b.StartTimer()
		if _, err := m.Before(ctx, "s", ws); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		u = m.Usage()
		m.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(src)/1e6, "MB-source")
	b.ReportMetric(float64(u.BlobBytes+u.IndexBytes)/1e6, "MB-disk")
	b.ReportMetric(float64(u.BlobBytes+u.IndexBytes)/float64(src), "disk/source")
}
