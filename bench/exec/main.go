// Command exec measures `foya exec` on a scripted session: it starts a
// scripted OpenAI-compatible server (real SSE over loopback) that asks for
// CALLS tool calls over several steps, runs the given foya binary against
// it with --json, and reports wall time, CPU time (user and system, of foya
// and the commands it waited for), peak RSS and events printed. With
// -per-call it also runs a session of one call before each run, and reports
// the CPU a call costs: the median difference over the other calls. With
// -json its last line is the medians as one JSON object (what make bench
// reads).
//
//	go build -o foya . && go run ./bench/exec -foya ./foya -calls 200 -runs 5
//	go run ./bench/exec -foya ./foya -approval full-access -per-step 1 -calls 100 -per-call \
//		-tool bash -args '{"command":"true"}'
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
	args2 := flag.String("args2", "", "the arguments of every second call, when they differ (an edit and its undoing)")
	seed := flag.Bool("seed", false, "put a.txt, 100 lines of which one is \"EDIT = 0\", in the workspace, and read it first (an edit needs that)")
	mode := flag.String("approval", "auto", "the approval mode foya exec runs in")
	perCall := flag.Bool("per-call", false, "also measure a one-call session, and report CPU per call")
	asJSON := flag.Bool("json", false, "end with the medians as one line of JSON")
	flag.Parse()
	w := workload{tool: *tool, args: *args, args2: *args2, seed: *seed, mode: *mode}
	if w.args2 == "" {
		w.args2 = w.args
	}
	jsonOut = *asJSON
	if err := run(*bin, *calls, *perStep, *runs, w, *perCall); err != nil {
		fmt.Fprintln(os.Stderr, "bench/exec:", err)
		os.Exit(1)
	}
}

// jsonOut makes run end with a Summary in JSON.
var jsonOut bool

// Summary is the medians of the runs, as -json prints them.
type Summary struct {
	Calls    int     `json:"calls"`
	PerStep  int     `json:"perStep"`
	Runs     int     `json:"runs"`
	Tool     string  `json:"tool"`
	Approval string  `json:"approval"`
	WallMS   float64 `json:"wallMs"`
	CPUMS    float64 `json:"cpuMs"` // user + system, of foya and the commands it waited for
	MaxRSSKB int64   `json:"maxRssKb"`
}

// workload is what each session's calls do.
type workload struct {
	tool, args, args2 string
	seed              bool
	mode              string
}

func run(bin string, calls, perStep, runs int, w workload, perCall bool) error {
	var walls, cpus, perCalls []time.Duration
	var rss []int64
	for r := range runs {
		if perCall {
			one, err := session(bin, 1, 1, w)
			if err != nil {
				return fmt.Errorf("run %d, one call: %w", r+1, err)
			}
			m, err := session(bin, calls, perStep, w)
			if err != nil {
				return fmt.Errorf("run %d: %w", r+1, err)
			}
			pc := (m.cpu - one.cpu) / time.Duration(calls-1)
			perCalls = append(perCalls, pc)
			walls, cpus, rss = append(walls, m.wall), append(cpus, m.cpu), append(rss, m.rss)
			fmt.Printf("run %d: wall %v, CPU %v (one call: %v), %v CPU per call, peak RSS %.1f MB, %d events\n", r+1,
				m.wall.Round(time.Millisecond), m.cpu.Round(time.Millisecond), one.cpu.Round(time.Millisecond),
				pc.Round(time.Microsecond), float64(m.rss)/1024, m.events)
			continue
		}
		m, err := session(bin, calls, perStep, w)
		if err != nil {
			return fmt.Errorf("run %d: %w", r+1, err)
		}
		walls, cpus, rss = append(walls, m.wall), append(cpus, m.cpu), append(rss, m.rss)
		fmt.Printf("run %d: wall %v, CPU %v, peak RSS %.1f MB, %d events\n", r+1, m.wall.Round(time.Millisecond),
			m.cpu.Round(time.Millisecond), float64(m.rss)/1024, m.events)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	slices.Sort(rss)
	fmt.Printf("median of %d: wall %v, CPU %v, peak RSS %.1f MB (%d calls, %d per step)", runs,
		walls[len(walls)/2].Round(time.Millisecond), cpus[len(cpus)/2].Round(time.Millisecond), float64(rss[len(rss)/2])/1024, calls, perStep)
	if perCall {
		slices.Sort(perCalls)
		fmt.Printf("; CPU per call %v", perCalls[len(perCalls)/2].Round(time.Microsecond))
	}
	fmt.Println()
	if jsonOut {
		b, err := json.Marshal(Summary{Calls: calls, PerStep: perStep, Runs: runs, Tool: w.tool, Approval: w.mode,
			WallMS: ms(walls[len(walls)/2]), CPUMS: ms(cpus[len(cpus)/2]), MaxRSSKB: rss[len(rss)/2]})
		if err != nil {
			return err
		}
		fmt.Println(string(b))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// measured is one foya exec session.
type measured struct {
	wall, cpu time.Duration
	rss       int64 // KiB
	events    int
}

// session runs foya exec once on a scripted session of calls calls.
func session(bin string, calls, perStep int, w workload) (measured, error) {
	var turns []providertest.Turn
	if w.seed {
		// In every session, so that it cancels out of the CPU per call.
		turns = append(turns, providertest.Calls(providertest.Call{ID: "seed", Name: "read", Arguments: `{"path":"a.txt"}`}))
	}
	for n := 0; n < calls; n += perStep {
		var cs []providertest.Call
		for i := n; i < min(n+perStep, calls); i++ {
			args := w.args
			if i%2 == 1 {
				args = w.args2
			}
			cs = append(cs, providertest.Call{ID: fmt.Sprintf("c%d", i), Name: w.tool, Arguments: args})
		}
		turns = append(turns, providertest.Calls(cs...))
	}
	turns = append(turns, providertest.Say("done"))
	srv, err := providertest.Start(turns...)
	if err != nil {
		return measured{}, err
	}
	defer srv.Close()
	dir, err := os.MkdirTemp("", "foya-bench-")
	if err != nil {
		return measured{}, err
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return measured{}, err
	}
	if w.seed {
		var b strings.Builder
		for i := range 100 {
			if i == 50 {
				b.WriteString("EDIT = 0\n")
				continue
			}
			fmt.Fprintf(&b, "line %d of the file the benchmark reads and edits\n", i)
		}
		if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(b.String()), 0o644); err != nil {
			return measured{}, err
		}
	}
	cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
		"--db", filepath.Join(dir, "foya.db"), "--workdir", ws, "--approval", w.mode, "--max-steps", "1000", "--json", "go")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return measured{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measured{}, err
	}
	var m measured
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		m.events++
	}
	err = cmd.Wait()
	m.wall = time.Since(start)
	if err != nil {
		return m, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	m.rss = ru.Maxrss // KiB on Linux
	return m, nil
}
