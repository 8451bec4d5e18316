//go:build linux

package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"foya/backend/event"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// BenchmarkExecBigOutputPeakRSS runs `foya exec --approval auto` (the real
// binary) with a scripted model whose one call is `cat` of a 2 GiB file in
// the sandbox, and reports the process's peak resident set: ru_maxrss from
// wait4, the high-water mark of foya itself or of any descendant it waited
// for (the sandbox helper, bash and cat are a few MiB each, so the figure is
// foya's). It checks that the result holds the file's last line and its
// exact size.
//
// spec: O4
func BenchmarkExecBigOutputPeakRSS(b *testing.B) {
	t := &testing.T{}
	bin := foyaBinary(t)
	ws := b.TempDir()
	const size = 2 << 30
	var tail strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&tail, "tail line %06d of the two gigabytes\n", i)
	}
	f, err := os.Create(filepath.Join(ws, "big"))
	if err != nil {
		b.Fatal(err)
	}
	f.Truncate(size - int64(tail.Len()))
	f.Seek(0, 2)
	f.WriteString(tail.String())
	f.Close()
	var peak int64
	for b.Loop() {
		srv := pt.New(b, pt.Calls(call("c1", "bash", `{"command":"cat big","timeout_ms":600000}`)), pt.Say("done"))
		cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
			"--db", filepath.Join(b.TempDir(), "foya.db"), "--workdir", ws, "--approval", "auto", "--json", "cat it")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("foya exec: %v", err)
		}
		text := ""
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev llm.Event
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == event.TypeToolEnd {
				text = fmt.Sprint(field(ev, "text"))
			}
		}
		if !strings.Contains(text, "tail line 002000 of the two gigabytes\n\nExit code 0") ||
			!strings.Contains(text, "of 2,000 lines (2,147,483,648 bytes) left out before this]") {
			b.Fatalf("result: %.400q", text)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss<<10) // kilobytes on Linux
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
}
