//go:build unix

package shell

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/sandbox"
	"foya/backend/tools"
)

// bigSize is what the output benchmarks print: 2 GiB.
const bigSize = 2 << 30

// bigTailLines are text lines at the end of the big file, more than a
// result keeps, so the kept tail is text whose last line is known.
const bigTailLines = 2000

// bigFile makes a file of bigSize bytes: a hole (zeros, no disk space)
// followed by numbered text lines.
func bigFile(tb testing.TB, dir string) string {
	tb.Helper()
	var tail strings.Builder
	for i := 1; i <= bigTailLines; i++ {
		fmt.Fprintf(&tail, "tail line %06d of the two gigabytes\n", i)
	}
	path := filepath.Join(dir, "big")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(bigSize - int64(tail.Len())); err != nil {
		tb.Fatal(err)
	}
	if _, err := f.Seek(0, 2); err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteString(tail.String()); err != nil {
		tb.Fatal(err)
	}
	return path
}

// checkBigResult checks that a result of `cat big` holds the right tail
// and exact totals.
func checkBigResult(text string) error {
	last := fmt.Sprintf("tail line %06d of the two gigabytes\n", bigTailLines)
	if !strings.Contains(text, last+"\nExit code 0") {
		return fmt.Errorf("the result does not end with %q: %.200q", last, text[max(0, len(text)-300):])
	}
	total := fmt.Sprintf("of %s lines (%s bytes) left out before this]", num(bigTailLines), num(bigSize))
	if !strings.Contains(text, total) {
		return fmt.Errorf("the notice does not count %s lines and %s bytes: %.300q", num(bigTailLines), num(bigSize), text)
	}
	return nil
}

func benchBash(b *testing.B, bx *box, mode approval.Mode, command string) tools.Result {
	b.Helper()
	res := bx.call(b, context.Background(), bx.rc("ses_bench", &gate{mode: mode}), BashName,
		map[string]any{"command": command, "timeout_ms": 600000})
	if res.IsError {
		b.Fatalf("%s: %.300s", command, res.Text)
	}
	return res
}

// BenchmarkBashBigOutput runs `cat` of a 2 GiB file through the bash tool
// (sandboxed and not), and the baselines to compare it with: the same
// cat to /dev/null, and through a pipe to a second cat, started the same way.
// MB/s is the figure to compare.
//
// spec: O4
func BenchmarkBashBigOutput(b *testing.B) {
	bx := newBenchBox(b)
	bigFile(b, bx.ws)
	// Read once so that every case finds the file in the page cache.
	sandbox.Run(context.Background(), sandbox.Command{Script: "cat big > /dev/null", Dir: bx.ws})
	cases := []struct {
		name string
		mode approval.Mode
		cmd  string
		tool bool
	}{
		{"bash-tool/full-access/cat", approval.FullAccess, "cat big", true},
		{"bash-tool/auto-sandboxed/cat", approval.Auto, "cat big", true},
		{"baseline/cat-to-devnull", "", "cat big > /dev/null", false},
		{"baseline/cat-pipe-cat-to-devnull", "", "cat big | cat > /dev/null", false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.mode == approval.Auto && sandbox.Probe().Mechanism == "" {
				b.Skip("no sandbox here")
			}
			b.SetBytes(bigSize)
			for b.Loop() {
				if !c.tool {
					res, err := sandbox.Run(context.Background(), sandbox.Command{Script: c.cmd, Dir: bx.ws})
					if err != nil || res.ExitCode != 0 {
						b.Fatalf("%v %+v", err, res)
					}
					continue
				}
				if err := checkBigResult(benchBash(b, bx, c.mode, c.cmd).Text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBashStart measures one bash call of `true`, sandboxed (Auto) and
// not (Full Access): the difference is the sandbox's start overhead.
func BenchmarkBashStart(b *testing.B) {
	bx := newBenchBox(b)
	for _, mode := range []approval.Mode{approval.FullAccess, approval.Auto} {
		b.Run(string(mode), func(b *testing.B) {
			if mode == approval.Auto && sandbox.Probe().Mechanism == "" {
				b.Skip("no sandbox here")
			}
			for b.Loop() {
				benchBash(b, bx, mode, "true")
			}
		})
	}
}

// BenchmarkBashBigOutputPeakRSS runs the 2 GiB `cat` through the bash tool in
// a fresh child process (this test binary, started again) and reports that
// process's peak resident set (VmHWM from /proc/self/status, the kernel's
// high-water mark of the whole process: Go heap, stacks, runtime and binary)
// and the Go runtime's own view (MemStats.Sys, what it got from the OS). The
// shell and cat run in their own processes and are not counted.
func BenchmarkBashBigOutputPeakRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	for _, mode := range []approval.Mode{approval.FullAccess, approval.Auto} {
		b.Run(string(mode), func(b *testing.B) {
			if mode == approval.Auto && sandbox.Probe().Mechanism == "" {
				b.Skip("no sandbox here")
			}
			dir := b.TempDir()
			bigFile(b, dir)
			var hwm, sys float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), rssChildEnv+"="+string(mode)+":"+dir)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("child: %v\n%s", err, out)
				}
				var r rssReport
				if err := json.Unmarshal(out[strings.LastIndexByte(strings.TrimSpace(string(out)), '\n')+1:], &r); err != nil {
					b.Fatalf("child said %s: %v", out, err)
				}
				if r.Error != "" {
					b.Fatal(r.Error)
				}
				hwm, sys = max(hwm, float64(r.VmHWM)/(1<<20)), max(sys, float64(r.Sys)/(1<<20))
			}
			b.ReportMetric(hwm, "peak-RSS-MiB")
			b.ReportMetric(sys, "go-sys-MiB")
		})
	}
}

const rssChildEnv = "FOYA_SHELL_RSS_CHILD"

type rssReport struct {
	VmHWM int64  `json:"vmHWM"` // bytes
	Sys   uint64 `json:"sys"`   // bytes
	Error string `json:"error,omitempty"`
}

// rssChild is the child of BenchmarkBashBigOutputPeakRSS: it runs the tool
// once and prints an rssReport as its last line.
func rssChild() int {
	mode, dir, _ := strings.Cut(os.Getenv(rssChildEnv), ":")
	report := func(r rssReport) int {
		b, _ := json.Marshal(r)
		fmt.Println(string(b))
		return 0
	}
	tmp, err := os.MkdirTemp("", "foya-rss-")
	if err != nil {
		return report(rssReport{Error: err.Error()})
	}
	defer os.RemoveAll(tmp)
	sh := New(Options{TempRoot: tmp})
	defer sh.Close()
	g := &gate{mode: approval.Mode(mode)}
	rc := &tools.RunContext{SessionID: "ses_rss", Workdir: dir, ApprovalMode: mode, Approval: g.approve, Update: func(event.Progress) {}}
	res, err := bashTool{sh}.Run(context.Background(), rc, tools.Call{ID: "c", Name: BashName,
		Arguments: json.RawMessage(`{"command":"cat big","timeout_ms":600000}`)})
	if err == nil {
		err = checkBigResult(res.Text)
	}
	if err != nil {
		return report(rssReport{Error: err.Error()})
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return report(rssReport{VmHWM: vmHWM(), Sys: ms.Sys})
}

// vmHWM returns this process's peak resident set in bytes.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// newBenchBox is newBox for benchmarks.
func newBenchBox(b *testing.B) *box {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	bx := &box{ws: filepath.Join(root, "ws"), out: filepath.Join(root, "out"), tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{bx.ws, bx.out, bx.tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	bx.sh = New(Options{TempRoot: bx.tmp})
	b.Cleanup(func() { bx.sh.Close() })
	return bx
}
