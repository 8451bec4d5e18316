// Command exec measures `foya exec` on a scripted session: it starts a
// scripted OpenAI-compatible server (real SSE over loopback) that asks for
// CALLS tool calls over several steps, runs the given foya binary against
// it with --json, and reports wall time, peak RSS and events printed.
//
//	go build -o foya . && go run ./bench/exec -foya ./foya -calls 200 -runs 5
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"foya/backend/provider/providertest"
)

func main() {
	bin := flag.String("foya", "./foya", "the foya binary")
	calls := flag.Int("calls", 200, "tool calls in the session")
	perStep := flag.Int("per-step", 10, "tool calls per model step")
	runs := flag.Int("runs", 5, "how many times to run it")
	tool := flag.String("tool", "ls", "the tool the scripted model calls")
	args := flag.String("args", `{"path":"."}`, "the calls' JSON arguments")
	flag.Parse()
	if err := run(*bin, *calls, *perStep, *runs, *tool, *args); err != nil {
		fmt.Fprintln(os.Stderr, "bench/exec:", err)
		os.Exit(1)
	}
}

func run(bin string, calls, perStep, runs int, tool, args string) error {
	var walls []time.Duration
	var rss []int64
	for r := range runs {
		var turns []providertest.Turn
		for n := 0; n < calls; n += perStep {
			var cs []providertest.Call
			for i := n; i < min(n+perStep, calls); i++ {
				cs = append(cs, providertest.Call{ID: fmt.Sprintf("c%d", i), Name: tool, Arguments: args})
			}
			turns = append(turns, providertest.Calls(cs...))
		}
		turns = append(turns, providertest.Say("done"))
		srv, err := providertest.Start(turns...)
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "foya-bench-")
		if err != nil {
			return err
		}
		cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
			"--db", filepath.Join(dir, "foya.db"), "--workdir", dir, "--approval", "auto", "--max-steps", "1000", "--json", "go")
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return err
		}
		events := 0
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			events++
		}
		err = cmd.Wait()
		wall := time.Since(start)
		srv.Close()
		os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("run %d: %w", r+1, err)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		walls = append(walls, wall)
		rss = append(rss, ru.Maxrss) // KiB on Linux
		fmt.Printf("run %d: wall %v, peak RSS %.1f MB, %d events\n", r+1, wall.Round(time.Millisecond), float64(ru.Maxrss)/1024, events)
	}
	slices.Sort(walls)
	slices.Sort(rss)
	fmt.Printf("median of %d: wall %v, peak RSS %.1f MB (%d calls, %d per step)\n", runs,
		walls[len(walls)/2].Round(time.Millisecond), float64(rss[len(rss)/2])/1024, calls, perStep)
	return nil
}
