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
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	halves := flag.Int("halves", 0, "also report the CPU of the first and of the last N steps (foya and what it waited for, sampled as each request arrives)")
	baseline := flag.Bool("baseline", false, "with -tool bash: also run the same command with plain bash -c, calls times, and report the CPU per call above it")
	flag.Parse()
	w := workload{tool: *tool, args: *args, args2: *args2, seed: *seed, mode: *mode, halves: *halves, baseline: *baseline}
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
	// With -halves: N, and the CPU of the last N steps over the first N's.
	Halves        int     `json:"halves,omitempty"`
	LastOverFirst float64 `json:"lastOverFirst,omitempty"`
	// With -baseline: the session's CPU per call less that of plain bash -c
	// running the same command.
	OverBashMS float64 `json:"overBashMs,omitempty"`
}

// workload is what each session's calls do.
type workload struct {
	tool, args, args2 string
	seed              bool
	mode              string
	halves            int
	baseline          bool
}

func run(bin string, calls, perStep, runs int, w workload, perCall bool) error {
	var walls, cpus, perCalls, overs []time.Duration
	var rss []int64
	var ratios []float64
	for r := range runs {
		if w.baseline || w.halves > 0 {
			m, err := session(bin, calls, perStep, w)
			if err != nil {
				return fmt.Errorf("run %d: %w", r+1, err)
			}
			walls, cpus, rss = append(walls, m.wall), append(cpus, m.cpu), append(rss, m.rss)
			fmt.Printf("run %d: wall %v, CPU %v (%v per call), peak RSS %.1f MB, %d events", r+1, m.wall.Round(time.Millisecond),
				m.cpu.Round(time.Millisecond), (m.cpu / time.Duration(calls)).Round(time.Microsecond), float64(m.rss)/1024, m.events)
			if w.halves > 0 {
				first, last, err := halvesOf(m.steps, w.halves)
				if err != nil {
					return fmt.Errorf("run %d: %w", r+1, err)
				}
				ratio := float64(last) / float64(first)
				ratios = append(ratios, ratio)
				fmt.Printf("; first %d steps %v (%v per step), last %d %v (%v per step), last/first %.2f", w.halves,
					first.Round(time.Millisecond), (first / time.Duration(w.halves)).Round(time.Microsecond), w.halves,
					last.Round(time.Millisecond), (last / time.Duration(w.halves)).Round(time.Microsecond), ratio)
			}
			if w.baseline {
				plain, err := plainBash(w, calls)
				if err != nil {
					return fmt.Errorf("run %d, plain bash: %w", r+1, err)
				}
				over := m.cpu/time.Duration(calls) - plain/time.Duration(calls)
				overs = append(overs, over)
				fmt.Printf("; plain bash -c %v per call, foya's above it %v per call", (plain / time.Duration(calls)).Round(time.Microsecond),
					over.Round(time.Microsecond))
			}
			fmt.Println()
			continue
		}
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
	if len(ratios) > 0 {
		slices.Sort(ratios)
		fmt.Printf("; last/first %d steps %.2f", w.halves, ratios[len(ratios)/2])
	}
	if len(overs) > 0 {
		slices.Sort(overs)
		fmt.Printf("; above plain bash -c %v per call", overs[len(overs)/2].Round(time.Microsecond))
	}
	fmt.Println()
	if jsonOut {
		sum := Summary{Calls: calls, PerStep: perStep, Runs: runs, Tool: w.tool, Approval: w.mode,
			WallMS: ms(walls[len(walls)/2]), CPUMS: ms(cpus[len(cpus)/2]), MaxRSSKB: rss[len(rss)/2]}
		if len(ratios) > 0 {
			sum.Halves, sum.LastOverFirst = w.halves, ratios[len(ratios)/2]
		}
		if len(overs) > 0 {
			sum.OverBashMS = ms(overs[len(overs)/2])
		}
		b, err := json.Marshal(sum)
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
	// steps are foya's CPU so far (its own and what it waited for) as each
	// request came in: steps[i+1]-steps[i] is step i's.
	steps []time.Duration
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
	// Each request is the end of a step: foya's CPU is sampled as it comes
	// in, before the scripted answer.
	var pid atomic.Int64
	var smu sync.Mutex
	var steps []time.Duration
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return measured{}, err
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if p := pid.Load(); p > 0 && r.Method == http.MethodPost {
			if c, ok := procCPU(int(p)); ok {
				smu.Lock()
				steps = append(steps, c)
				smu.Unlock()
			}
		}
		srv.ServeHTTP(rw, r)
	})}
	go hs.Serve(l)
	defer hs.Close()
	url := "http://" + l.Addr().String() + "/v1"
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
	cmd := exec.Command(bin, "exec", "--base-url", url, "--api-key", "x", "--model", "m",
		"--db", filepath.Join(dir, "foya.db"), "--workdir", ws, "--approval", w.mode, "--max-steps", strconv.Itoa(max(1000, calls+10)), "--json", "go")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return measured{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measured{}, err
	}
	pid.Store(int64(cmd.Process.Pid))
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
	smu.Lock()
	m.steps = append(steps, m.cpu)
	smu.Unlock()
	return m, nil
}

// procCPU is a process's CPU so far, its own and that of the children it
// waited for (utime, stime, cutime and cstime of /proc/PID/stat, in clock
// ticks of 10 ms: summed over many steps, close enough).
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, false
	}
	var ticks int64
	for _, s := range f[11:15] { // fields 14 to 17 of proc(5)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, true
}

// halvesOf returns the CPU of the first n and of the last n steps of a
// session's samples (one per request, and the total at its end).
func halvesOf(steps []time.Duration, n int) (first, last time.Duration, err error) {
	if len(steps) < 2*n+1 {
		return 0, 0, fmt.Errorf("%d samples for two halves of %d steps", len(steps), n)
	}
	first = steps[n] - steps[0]
	last = steps[len(steps)-1] - steps[len(steps)-1-n]
	if first <= 0 {
		return 0, 0, fmt.Errorf("no CPU measured over the first %d steps", n)
	}
	return first, last, nil
}

// plainBash runs the workload's bash command calls times with plain
// bash -c, one after the other, in a fresh folder, and returns their CPU
// (user and system, of bash and what it started): what the session's
// commands cost without Foya.
func plainBash(w workload, calls int) (time.Duration, error) {
	var a struct {
		Command string `json:"command"`
	}
	if w.tool != "bash" || json.Unmarshal([]byte(w.args), &a) != nil || a.Command == "" {
		return 0, fmt.Errorf("-baseline needs -tool bash and a command in -args")
	}
	dir, err := os.MkdirTemp("", "foya-bench-bash-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	var total time.Duration
	for range calls {
		cmd := exec.Command("bash", "-c", a.Command)
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("bash -c %q: %w", a.Command, err)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total, nil
}
