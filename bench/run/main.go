// Command run is `make bench`: it runs every Go benchmark of the module
// (each package whose test files hold a func Benchmark..., found anew each
// time, so a new benchmark needs no change here), one package at a time,
// then a scripted 200-call `foya exec` session (bench/exec: wall time, CPU
// time as user+sys from rusage, peak RSS as maxrss), the shell sessions of
// issue 27 (a `bash` call's CPU above plain `bash -c` of the same command,
// in Full Access and sandboxed, and a 1,000-step session's last hundred
// steps against its first), and, when given the
// shared comparison workloads, those too. It rewrites the block between
// the markers in docs/benchmarks.md with the figures, the date, the core
// count and the load; the prose around the block stays as written.
//
//	go run ./bench/run -benchtime 1x
//	go run ./bench/run -benchtime 200ms -bench 'Grep|Mask' -exec-runs 0
//
// It exits non-zero when a benchmark or the session failed, after writing
// the block, which names what failed.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The block of docs/benchmarks.md that run rewrites.
const (
	beginMarker = "<!-- make bench: begin -->"
	endMarker   = "<!-- make bench: end -->"
)

func main() {
	doc := flag.String("doc", "docs/benchmarks.md", "the file whose generated block is rewritten")
	benchtime := flag.String("benchtime", "1x", "go test -benchtime")
	pattern := flag.String("bench", ".", "go test -bench: which benchmarks")
	execRuns := flag.Int("exec-runs", 3, "runs of the scripted foya exec session (0: none)")
	workloads := flag.String("workloads", "", "the shared comparison workloads' folder (its workloads.sh), run once each when given")
	flag.Parse()
	if err := run(*doc, *benchtime, *pattern, *execRuns, *workloads); err != nil {
		fmt.Fprintln(os.Stderr, "bench/run:", err)
		os.Exit(1)
	}
}

func run(doc, benchtime, pattern string, execRuns int, workloads string) error {
	r := report{Date: time.Now().UTC(), Cores: runtime.NumCPU(), CPU: cpuModel(), Load: loadAvg(), Go: runtime.Version(),
		Commit: commit(), Benchtime: benchtime}
	pkgs, err := benchPackages()
	if err != nil {
		return err
	}
	// Only the packages that have a benchmark the pattern selects: go test
	// would build and start the others for nothing. -bench matches the
	// top-level name with the part before the first slash.
	top, _, _ := strings.Cut(pattern, "/")
	re, err := regexp.Compile(top)
	if err != nil {
		return fmt.Errorf("-bench %q: %w", pattern, err)
	}
	pkgs = slices.DeleteFunc(pkgs, func(p pkg) bool { return !slices.ContainsFunc(p.names, re.MatchString) })
	var failed []string
	for _, p := range pkgs {
		fmt.Fprintf(os.Stderr, "bench: %s (%s)\n", p.path, strings.Join(p.names, ", "))
		res, err := runPackage(p.path, benchtime, pattern)
		r.Results = append(r.Results, res...)
		if err != nil {
			failed = append(failed, p.path)
			r.Failed = append(r.Failed, fmt.Sprintf("%s: %v", p.path, err))
		}
	}
	tmp, err := os.MkdirTemp("", "foya-make-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "foya")
	if execRuns > 0 || workloads != "" {
		if err := buildFoya(bin); err != nil {
			return err
		}
	}
	if execRuns > 0 {
		fmt.Fprintln(os.Stderr, "bench: foya exec, scripted 200-call session")
		s, err := execSession(bin, execRuns)
		if err != nil {
			failed = append(failed, "foya exec session")
			r.Failed = append(r.Failed, "foya exec session: "+err.Error())
		} else {
			r.Exec = &s
		}
	}
	if execRuns > 0 {
		fmt.Fprintln(os.Stderr, "bench: shell sessions: per-call overhead against plain bash -c, and 1,000 steps")
		for _, sh := range shellBenches {
			s, err := shellSession(bin, sh)
			if err != nil {
				failed = append(failed, "shell session "+sh.name)
				r.Failed = append(r.Failed, "shell session "+sh.name+": "+err.Error())
				continue
			}
			r.Shell = append(r.Shell, shellResult{shellBench: sh, execSummary: s})
		}
	}
	if workloads != "" {
		fmt.Fprintln(os.Stderr, "bench: shared comparison workloads")
		out, err := runWorkloads(workloads, bin)
		if err != nil {
			failed = append(failed, "shared workloads")
			r.Failed = append(r.Failed, "shared workloads: "+err.Error())
		}
		r.Workloads = out
	}
	old, err := os.ReadFile(doc)
	if err != nil {
		return fmt.Errorf("read %s: %w", doc, err)
	}
	updated, err := rewrite(string(old), r.markdown())
	if err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	if err := os.WriteFile(doc, []byte(updated), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", doc, err)
	}
	fmt.Fprintf(os.Stderr, "bench: %d benchmarks in %d packages; %s rewritten\n", len(r.Results), len(pkgs), doc)
	if len(failed) > 0 {
		return fmt.Errorf("failed: %s (see %s)", strings.Join(failed, ", "), doc)
	}
	return nil
}

// buildFoya builds foya into bin and, with SANDBOX_STAMP set (make bench
// sets it as make build does), the small sandbox helper beside it with
// that stamp, so that the sessions measure what make build ships.
func buildFoya(bin string) error {
	stamp := os.Getenv("SANDBOX_STAMP")
	var ld []string
	if stamp != "" {
		ld = []string{"-ldflags", "-X foya/backend/sandbox.HelperStamp=" + stamp}
	}
	args := append(append([]string{"build"}, ld...), "-o", bin, ".")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("build foya: %v\n%s", err, out)
	}
	if stamp == "" {
		return nil
	}
	args = append(append([]string{"build"}, ld...), "-o", filepath.Join(filepath.Dir(bin), "foya-sandbox"), "./cmd/foya-sandbox")
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the sandbox helper: %v\n%s", err, out)
	}
	return nil
}

// pkg is a package with benchmarks.
type pkg struct {
	path  string
	names []string
}

var benchFunc = regexp.MustCompile(`(?m)^func (Benchmark[A-Za-z0-9_]*)\(\w+ \*testing\.B\)`)

// benchPackages lists the module's packages whose test files (for this
// platform) declare benchmarks, in go list's order.
func benchPackages() ([]pkg, error) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{"\t"}}{{.Dir}}{{"\t"}}{{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}`, "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	for line := range strings.Lines(string(out)) {
		f := strings.SplitN(strings.TrimRight(line, "\n"), "\t", 3)
		if len(f) != 3 {
			continue
		}
		var names []string
		for _, name := range strings.Fields(f[2]) {
			src, err := os.ReadFile(filepath.Join(f[1], name))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", name, err)
			}
			for _, m := range benchFunc.FindAllSubmatch(src, -1) {
				names = append(names, string(m[1]))
			}
		}
		if len(names) > 0 {
			pkgs = append(pkgs, pkg{path: f[0], names: names})
		}
	}
	return pkgs, nil
}

// result is one benchmark's line of go test output.
type result struct {
	Pkg, Name  string
	Iterations int64
	// Metrics are the value of each unit, in the order printed (ns/op,
	// B/op, allocs/op, then the benchmark's own).
	Metrics []metric
	Status  string // "", "SKIP" or "FAIL"
	Note    string // why it was skipped or failed
}

type metric struct {
	Value float64
	Unit  string
}

func (r result) metric(unit string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Unit == unit {
			return m.Value, true
		}
	}
	return 0, false
}

// runPackage runs one package's benchmarks, no tests, and reads their
// results from go test -json. Packages run one after the other, so that no
// two benchmarks share the cores.
func runPackage(path, benchtime, pattern string) ([]result, error) {
	cmd := exec.Command("go", "test", "-json", "-count=1", "-run", "^$", "-bench", pattern, "-benchmem", "-benchtime", benchtime,
		"-timeout", "30m", path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	res, perr := parseJSON(path, out)
	werr := cmd.Wait()
	return res, errors.Join(perr, werr)
}

// testEvent is one line of go test -json.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// parseJSON reads go test -json output: the output's text, joined back into
// lines (a benchmark's name and its figures may come in separate events),
// gives the results; --- SKIP and --- FAIL lines mark benchmarks that gave
// none, with the line logged before them as the reason.
func parseJSON(path string, r io.Reader) ([]result, error) {
	var text strings.Builder
	dec := json.NewDecoder(r)
	for {
		var ev testEvent
		if err := dec.Decode(&ev); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read go test -json: %w", err)
		}
		if ev.Action == "output" {
			text.WriteString(ev.Output)
		}
	}
	return parseText(path, text.String()), nil
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parseText reads go test -bench output.
func parseText(path, out string) []result {
	var res []result
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "--- "); ok {
			status, name, _ := strings.Cut(rest, ": ")
			name, _, _ = strings.Cut(name, " (")
			if (status == "SKIP" || status == "FAIL") && strings.HasPrefix(name, "Benchmark") {
				res = append(res, result{Pkg: path, Name: procSuffix.ReplaceAllString(name, ""), Status: status})
			}
			continue
		}
		if r, ok := parseLine(line); ok {
			r.Pkg = path
			res = append(res, r)
			continue
		}
		// A skip's or failure's reason is the log line after it.
		if n := len(res); n > 0 && res[n-1].Status != "" && res[n-1].Note == "" && strings.Contains(line, ".go:") {
			res[n-1].Note = trimLogPrefix(line)
		}
	}
	return res
}

// trimLogPrefix drops the "file_test.go:12: " a b.Log or b.Skip line starts with.
func trimLogPrefix(s string) string {
	if i := strings.Index(s, ".go:"); i >= 0 {
		if j := strings.Index(s[i+4:], ": "); j >= 0 {
			return s[i+4+j+2:]
		}
	}
	return s
}

// parseLine reads one result line: name, iterations, then value-unit pairs.
func parseLine(line string) (result, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return result{}, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return result{}, false
	}
	r := result{Name: procSuffix.ReplaceAllString(f[0], ""), Iterations: n}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return result{}, false
		}
		r.Metrics = append(r.Metrics, metric{v, f[i+1]})
	}
	return r, true
}

// execSummary is bench/exec's -json line.
type execSummary struct {
	Calls    int     `json:"calls"`
	PerStep  int     `json:"perStep"`
	Runs     int     `json:"runs"`
	Tool     string  `json:"tool"`
	Approval string  `json:"approval"`
	WallMS   float64 `json:"wallMs"`
	CPUMS    float64 `json:"cpuMs"`
	MaxRSSKB int64   `json:"maxRssKb"`
	// The shell sessions' figures (bench/exec -halves, -baseline).
	Halves        int     `json:"halves"`
	LastOverFirst float64 `json:"lastOverFirst"`
	OverBashMS    float64 `json:"overBashMs"`
}

// execSession runs bench/exec: a scripted 200-call session, 10 calls of ls
// per step, in Auto, runs times.
func execSession(bin string, runs int) (execSummary, error) {
	cmd := exec.Command("go", "run", "./bench/exec", "-foya", bin, "-calls", "200", "-per-step", "10", "-runs", strconv.Itoa(runs), "-json")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return execSummary{}, fmt.Errorf("bench/exec: %w", err)
	}
	os.Stderr.Write(out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var s execSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		return execSummary{}, fmt.Errorf("bench/exec printed no summary: %w", err)
	}
	return s, nil
}

// shellCommand is what every call of the shell sessions runs: it changes
// a file, as most commands of a coding session do, so that capture has
// something to find at every step.
const shellCommand = "echo x >> m.log && wc -l m.log"

// shellBench is one scripted shell session of make bench.
type shellBench struct {
	name     string
	approval string
	calls    int
	halves   int // > 0: the first and last that many steps are compared
}

// shellBenches are issue 27's guards: a shell call's CPU above plain
// bash -c running the same command (in Full Access and in Auto, sandboxed),
// and a 1,000-step session whose per-step CPU must stay flat.
var shellBenches = []shellBench{
	{name: "300 calls, Full Access", approval: "full-access", calls: 300},
	{name: "300 calls, Auto (sandboxed)", approval: "auto", calls: 300},
	{name: "1,000 steps, Full Access", approval: "full-access", calls: 1000, halves: 100},
}

type shellResult struct {
	shellBench
	execSummary
}

// shellSession runs one shell session once with bench/exec.
func shellSession(bin string, sh shellBench) (execSummary, error) {
	args := []string{"run", "./bench/exec", "-foya", bin, "-approval", sh.approval, "-per-step", "1", "-calls", strconv.Itoa(sh.calls),
		"-runs", "1", "-baseline", "-tool", "bash", "-args", `{"command":"` + shellCommand + `"}`, "-json"}
	if sh.halves > 0 {
		args = append(args, "-halves", strconv.Itoa(sh.halves))
	}
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return execSummary{}, fmt.Errorf("bench/exec: %w", err)
	}
	os.Stderr.Write(out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var s execSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		return execSummary{}, fmt.Errorf("bench/exec printed no summary: %w", err)
	}
	return s, nil
}

// runWorkloads runs the shared comparison workloads once each and returns
// their table.
func runWorkloads(dir, bin string) (string, error) {
	cmd := exec.Command("bash", filepath.Join(dir, "workloads.sh"), bin)
	cmd.Env = append(os.Environ(), "REPS=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	os.Stderr.Write(out)
	if err != nil {
		return string(out), fmt.Errorf("workloads.sh: %w", err)
	}
	return string(out), nil
}

// report is what the generated block says.
type report struct {
	Date      time.Time
	Cores     int
	CPU       string
	Load      string
	Go        string
	Commit    string
	Benchtime string
	Results   []result
	Exec      *execSummary
	Shell     []shellResult
	Workloads string
	Failed    []string
}

func (r report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Written by `make bench` (BENCHTIME=%s) on %s: %d cores", r.Benchtime, r.Date.Format("2006-01-02 15:04 UTC"), r.Cores)
	if r.CPU != "" {
		fmt.Fprintf(&b, " (%s)", r.CPU)
	}
	if r.Load != "" {
		fmt.Fprintf(&b, ", load average %s at the start", r.Load)
	}
	fmt.Fprintf(&b, ", %s", r.Go)
	if r.Commit != "" {
		fmt.Fprintf(&b, ", commit %s", r.Commit)
	}
	b.WriteString(". Single runs on a shared machine: compare with figures from the same run. " +
		"Everything between the markers is rewritten by `make bench`; edit the text around them.\n\n")
	if len(r.Failed) > 0 {
		b.WriteString("**Failed:**\n\n")
		for _, f := range r.Failed {
			fmt.Fprintf(&b, "- %s\n", oneLine(f))
		}
		b.WriteString("\n")
	}
	if r.Exec != nil {
		e := r.Exec
		fmt.Fprintf(&b, "`foya exec --json`, a scripted %d-call session (%d steps × %d calls of `%s`, %s mode) against providertest over loopback, median of %d runs (`go run ./bench/exec -foya FOYA -calls %d -runs %d -json`, FOYA built by `go build .`, with its small sandbox helper when SANDBOX_STAMP is set, as by `make bench`):\n\n",
			e.Calls, (e.Calls+e.PerStep-1)/e.PerStep, e.PerStep, e.Tool, e.Approval, e.Runs, e.Calls, e.Runs)
		b.WriteString("| wall | CPU (user+sys) | peak RSS (maxrss) |\n| --- | --- | --- |\n")
		fmt.Fprintf(&b, "| %.0f ms | %.0f ms | %.1f MB |\n\n", e.WallMS, e.CPUMS, float64(e.MaxRSSKB)/1024)
	}
	if len(r.Shell) > 0 {
		fmt.Fprintf(&b, "Shell sessions (issue 27): `foya exec --json`, one `bash` call per step running `%s`, once each; the CPU of foya and all it started, per call, and above plain `bash -c` running the same command as often (`go run ./bench/exec -foya FOYA -approval MODE -per-step 1 -calls N -runs 1 -baseline [-halves 100] -tool bash -args '{\"command\":\"%s\"}'`, FOYA and its small sandbox helper built as `make build` does):\n\n", shellCommand, shellCommand)
		b.WriteString("| session | CPU per call | above plain `bash -c` | last 100 steps / first 100 |\n| --- | --- | --- | --- |\n")
		for _, sh := range r.Shell {
			ratio := "—"
			if sh.halves > 0 {
				ratio = fmt.Sprintf("%.2f", sh.LastOverFirst)
			}
			fmt.Fprintf(&b, "| %s | %.2f ms | %.2f ms | %s |\n", sh.name, sh.CPUMS/float64(sh.Calls), sh.OverBashMS, ratio)
		}
		b.WriteString("\n")
	}
	if r.Workloads != "" {
		b.WriteString("The shared comparison workloads, once each (`workloads.sh`: wall s, user+sys s, peak RSS KB, calls verified):\n\n```\n")
		b.WriteString(strings.TrimRight(r.Workloads, "\n"))
		b.WriteString("\n```\n\n")
	}
	fmt.Fprintf(&b, "Every Go benchmark (`go test -run '^$' -bench . -benchmem -benchtime %s`, one package at a time):\n\n", r.Benchtime)
	b.WriteString("| package | benchmark | runs | ns/op | B/op | allocs/op | other metrics |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, res := range r.Results {
		pkg := strings.TrimPrefix(strings.TrimPrefix(res.Pkg, "foya/"), "foya")
		if pkg == "" {
			pkg = "(root)"
		}
		if res.Status != "" {
			note := res.Status
			if res.Note != "" {
				note += ": " + oneLine(res.Note)
			}
			fmt.Fprintf(&b, "| %s | %s | — | — | — | — | %s |\n", pkg, res.Name, note)
			continue
		}
		var other []string
		for _, m := range res.Metrics {
			switch m.Unit {
			case "ns/op", "B/op", "allocs/op":
				continue
			}
			other = append(other, num(m.Value)+" "+m.Unit)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s |\n", pkg, res.Name, res.Iterations,
			get(res, "ns/op"), get(res, "B/op"), get(res, "allocs/op"), strings.Join(other, ", "))
	}
	return b.String()
}

func get(r result, unit string) string {
	v, ok := r.metric(unit)
	if !ok {
		return "—"
	}
	return num(v)
}

// num prints a figure with thousands separators and no needless decimals.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if v >= 100 || v <= -100 {
		s = strconv.FormatFloat(v, 'f', 0, 64)
	} else if strings.Contains(s, ".") && len(s) > 6 {
		s = strconv.FormatFloat(v, 'g', 4, 64)
	}
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	if !strings.ContainsAny(intPart, "e") {
		for i := len(intPart) - 3; i > 0; i -= 3 {
			intPart = intPart[:i] + "," + intPart[i:]
		}
	}
	if neg {
		intPart = "-" + intPart
	}
	if frac != "" {
		return intPart + "." + frac
	}
	return intPart
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(s), "\n", " "), "|", "\\|")
}

// section is what rewrite appends when the file has no block yet.
const section = "\n## Every benchmark, one command (`make bench`)\n\n" +
	"`make bench` runs every Go benchmark in the module (any `func Benchmark...` in a test file; nothing to register), " +
	"one package at a time, then a scripted 200-call `foya exec` session, and rewrites the block below. " +
	"`make bench BENCHTIME=200ms` gives steadier figures for the fast benchmarks; `BENCH=regexp` runs some only; " +
	"`WORKLOADS=folder` adds the shared comparison workloads (`workloads.sh`).\n\n"

// rewrite replaces the text between the markers with block, or, when the
// file has no markers, appends a section holding them. Everything outside
// the markers stays byte for byte.
func rewrite(doc, block string) (string, error) {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	switch {
	case i < 0 && j < 0:
		if !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + section + beginMarker + "\n" + block + endMarker + "\n", nil
	case i < 0 || j < i || strings.Count(doc, beginMarker) != 1 || strings.Count(doc, endMarker) != 1:
		return "", fmt.Errorf("want one %q followed by one %q", beginMarker, endMarker)
	}
	return doc[:i+len(beginMarker)] + "\n" + block + doc[j:], nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " / ")
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if exec.Command("git", "diff", "--quiet", "HEAD", "--", ".", ":!docs/benchmarks.md").Run() != nil {
		c += "-dirty"
	}
	return c
}
