//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"foya/backend/testwait"

	"golang.org/x/sys/unix"
)

// allModes is plain execution followed by every confining mechanism here.
func allModes(t testing.TB) []mode {
	return append([]mode{plainMode}, restrictedModes(t)...)
}

// start starts script in b's workspace under m.
func (b *box) start(t testing.TB, ctx context.Context, m mode, script string) *Process {
	t.Helper()
	p, err := Start(ctx, Command{Script: script, Dir: b.ws, Env: b.env(), Policy: b.policy(m.restricted)})
	if err != nil {
		t.Fatalf("Start(%q) under %s: %v", script, m.name, err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

// treeOf lists the processes of p's tree: its process group, and the
// processes whose command line holds marker (which may have left the group).
func treeOf(p *Process, marker string) []task {
	ts := groupTasks(p.PID())
	seen := map[int]bool{}
	for _, tk := range ts {
		seen[tk.pid] = true
	}
	for _, tk := range cmdlineTasks(marker) {
		if !seen[tk.pid] {
			ts = append(ts, tk)
		}
	}
	return ts
}

func checkTreeGone(t *testing.T, p *Process, tree []task) {
	t.Helper()
	for _, tk := range tree {
		if tk.alive() {
			t.Errorf("process %d of the tree is still alive", tk.pid)
		}
	}
	if left := groupTasks(p.PID()); len(left) > 0 {
		for _, tk := range left {
			if tk.alive() {
				t.Errorf("process group %d still has process %d", p.PID(), tk.pid)
			}
		}
	}
}

// TestCancelKillsTree cancels a command whose shell waits for two
// grandchildren; afterwards none of their PIDs exists, by PID and by
// process group.
//
// spec: X1
func TestCancelKillsTree(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sl := sleeper(1)
			p := b.start(t, ctx, m, sl+" & "+sl+" & echo ready; wait")
			waitOutput(t, p, "ready")
			waitTasks(t, sl, 2) // "ready" may come before they run sleep
			tree := treeOf(p, sl)
			cancel()
			waitDone(t, p, "the cancel")
			res, _ := p.Result()
			if !res.Cancelled || res.TimedOut {
				t.Errorf("Cancelled, TimedOut = %v, %v; want true, false", res.Cancelled, res.TimedOut)
			}
			checkTreeGone(t, p, tree)
		})
	}
}

// TestCancelKillsEscapedProcess checks that processes that left the
// process group and the session (setsid, nohup, a double fork, one that
// ignores SIGTERM) die with a cancelled command in every mode, Full Access
// and Landlock without namespaces included (a setsid child used to
// survive a cancel there). They are dead by PID when the
// command is done.
//
// spec: X1
func TestCancelKillsEscapedProcess(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			ctx, cancel := context.WithCancel(context.Background())
			sl := sleeper(2)
			p := b.start(t, ctx, m, escapingTree(sl)+"echo ready; wait")
			waitOutput(t, p, "ready")
			tree := waitTasks(t, sl, escapingTreeSize) // "ready" may come before they run sleep
			cancel()
			waitDone(t, p, "the cancel")
			checkTreeGone(t, p, tree)
		})
	}
}

// escapingTree starts escapingTreeSize processes running sl that leave the
// shell's process group or session in the ways daemons do, and returns at
// once; it ends with a newline. The last one ignores SIGTERM, so only the kill after the grace
// period ends it.
func escapingTree(sl string) string {
	return strings.Join([]string{
		"setsid " + sl + " > /dev/null 2>&1 &",
		"nohup " + sl + " > /dev/null 2>&1 &",
		"( ( " + sl + " > /dev/null 2>&1 & ) & )",
		"setsid sh -c '( " + sl + " > /dev/null 2>&1 & )' &",
		`setsid sh -c 'trap "" TERM HUP; exec ` + sl + `' > /dev/null 2>&1 &`,
	}, "\n") + "\n"
}

const escapingTreeSize = 5

// TestKillBackgroundTree kills a background command whose tree ignores
// SIGTERM: after the grace period SIGKILL ends it.
//
// spec: X1
func TestKillBackgroundTree(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			sl := sleeper(3)
			p := b.start(t, context.Background(), m,
				fmt.Sprintf(`trap '' TERM; sh -c 'trap "" TERM; %[1]s' & %[1]s & echo ready; wait`, sl))
			waitOutput(t, p, "ready")
			waitTasks(t, sl, 2)
			tree := treeOf(p, sl)
			if err := p.Kill(); err != nil {
				t.Fatalf("Kill: %v", err)
			}
			select {
			case <-p.Done():
			default:
				t.Fatal("Kill returned before the command was done")
			}
			res, ok := p.Result()
			if !ok || !res.Cancelled {
				t.Errorf("Result() = %+v, %v; want Cancelled", res, ok)
			}
			checkTreeGone(t, p, tree)
			if err := p.Kill(); err != nil {
				t.Errorf("second Kill: %v; want nil", err)
			}
		})
	}
}

// TestLeftoversKilled checks that what a command leaves running in the
// background dies when its shell ends.
//
// spec: X1
func TestLeftoversKilled(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			sl := sleeper(4)
			res := b.run(t, m, sl+" & echo started")
			if string(res.Output) != "started\n" || res.ExitCode != 0 {
				t.Errorf("output %q, exit %d; want %q, 0", res.Output, res.ExitCode, "started\n")
			}
			for _, tk := range cmdlineTasks(sl) {
				if tk.alive() {
					t.Errorf("leftover process %d still alive", tk.pid)
				}
			}
		})
	}
}

// TestTimeout ends a command that outlives its Timeout. On a loaded
// machine the timeout may fire before the shell has even printed; the
// timeout is then doubled until a run ends a shell that was running.
//
// spec: X1
func TestTimeout(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			sl := sleeper(5)
			for timeout := 200 * time.Millisecond; ; timeout *= 2 {
				res, err := Run(context.Background(), Command{
					Script: "echo begin; " + sl + "; echo never", Dir: b.ws, Env: b.env(),
					Policy: b.policy(m.restricted), Timeout: timeout,
				})
				if err != nil {
					t.Fatal(err)
				}
				if !res.TimedOut || res.Cancelled {
					t.Errorf("TimedOut, Cancelled = %v, %v; want true, false", res.TimedOut, res.Cancelled)
				}
				if res.ExitCode == 0 || (string(res.Output) != "begin\n" && len(res.Output) != 0) {
					t.Errorf("exit %d, output %q; want non-zero, %q", res.ExitCode, res.Output, "begin\n")
				}
				for _, tk := range cmdlineTasks(sl) {
					if tk.alive() {
						t.Errorf("process %d survived the timeout", tk.pid)
					}
				}
				if len(res.Output) > 0 || t.Failed() {
					break
				}
				if timeout > settle {
					t.Fatalf("no run printed before its timeout, the last after %v", timeout)
				}
				t.Logf("the timeout of %v fired before the shell printed: trying again", timeout)
			}
		})
	}
}

// TestExitStatus pins exit codes and deaths by signal.
func TestExitStatus(t *testing.T) {
	cases := []struct {
		script string
		code   int
		signal string
	}{
		{"true", 0, ""},
		{"false", 1, ""},
		{"exit 3", 3, ""},
		{"exit 300", 44, ""},
		{"no-such-command-here", 127, ""},
		{"kill -KILL $$", -1, "SIGKILL"},
		{"kill -TERM $$", -1, "SIGTERM"},
		{"kill -SEGV $$", -1, "SIGSEGV"},
		{"sh -c 'kill -KILL $$'; echo $?", 0, ""},
	}
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			for _, c := range cases {
				res := b.run(t, m, c.script)
				code, sig := c.code, c.signal
				if m.sandbox == "bubblewrap" && sig != "" {
					// bwrap reports a death by signal as 128+N.
					code, sig = 128+map[string]int{"SIGKILL": 9, "SIGTERM": 15, "SIGSEGV": 11}[sig], ""
				}
				if res.ExitCode != code || res.Signal != sig {
					t.Errorf("%q: exit %d, signal %q; want %d, %q (output %q)", c.script, res.ExitCode, res.Signal, code, sig, res.Output)
				}
				if res.TimedOut || res.Cancelled {
					t.Errorf("%q: TimedOut, Cancelled = %v, %v; want false, false", c.script, res.TimedOut, res.Cancelled)
				}
			}
		})
	}
}

// TestStdinClosed checks that a command waiting for input or a terminal
// gets end of file at once instead of hanging.
func TestStdinClosed(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			res, err := Run(context.Background(), Command{
				Script: `cat; echo "cat=$?"; read -r line; echo "read=$?"; cat /dev/tty >/dev/null 2>&1; echo "tty=$?"`,
				Dir:    b.ws, Env: b.env(), Policy: b.policy(m.restricted),
				Timeout: time.Minute, // only so that a hang fails instead of blocking the suite
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := "cat=0\nread=1\ntty=1\n"; string(res.Output) != want || res.TimedOut {
				t.Errorf("output %q (timed out %v); want %q", res.Output, res.TimedOut, want)
			}
		})
	}
}

// TestBigScript runs a 1 MB command line, which no single argument can hold.
func TestBigScript(t *testing.T) {
	script := "x=" + strings.Repeat("a", 1<<20) + `; echo ${#x} "$0"`
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			res := b.run(t, m, script)
			if !strings.HasPrefix(string(res.Output), "1048576 ") || res.ExitCode != 0 {
				t.Errorf("output %q, exit %d; want 1048576 and 0", res.Output, res.ExitCode)
			}
		})
	}
}

// TestBadInput checks that bad commands are refused with a clear error and
// leave nothing behind.
func TestBadInput(t *testing.T) {
	b := newBox(t)
	file := filepath.Join(b.root, "file")
	writeFile(t, file, "x")
	ok := Command{Script: "true", Dir: b.ws, Policy: b.policy(true)}
	cases := []struct {
		name string
		edit func(c *Command)
		want string
	}{
		{"empty script", func(c *Command) { c.Script = "" }, "empty command"},
		{"blank script", func(c *Command) { c.Script = " \n\t" }, "empty command"},
		{"NUL in script", func(c *Command) { c.Script = "echo a\x00b" }, "NUL"},
		{"negative timeout", func(c *Command) { c.Timeout = -time.Second }, "invalid timeout"},
		{"negative tail", func(c *Command) { c.TailBytes = -1 }, "invalid TailBytes"},
		{"huge tail", func(c *Command) { c.TailBytes = MaxTailBytes + 1 }, "invalid TailBytes"},
		{"bad env entry", func(c *Command) { c.Env = []string{"NOEQUALS"} }, "invalid environment entry"},
		{"missing dir", func(c *Command) { c.Dir = filepath.Join(b.root, "missing") }, "working directory"},
		{"dir is a file", func(c *Command) { c.Dir = file }, "not a directory"},
		{"relative writable", func(c *Command) { c.Policy.Writable = []string{"ws"} }, "not an absolute path"},
		{"missing writable", func(c *Command) { c.Policy.Writable = []string{filepath.Join(b.root, "missing")} }, "writable directory"},
		{"writable is a file", func(c *Command) { c.Policy.Writable = []string{file} }, "not a directory"},
		{"relative read-only", func(c *Command) { c.Policy.ReadOnly = []string{".foya"} }, "not an absolute path"},
	}
	for _, c := range cases {
		cmd := ok
		cmd.Policy.Writable = append([]string(nil), ok.Policy.Writable...)
		c.edit(&cmd)
		_, err := Run(context.Background(), cmd)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Run error = %v; want one containing %q", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: Run error = %v; want context.Canceled", err)
	}
}

// TestUnavailable checks that a helper failure surfaces as ErrUnavailable
// with the helper's reason.
func TestUnavailable(t *testing.T) {
	if Probe().Landlock == 0 {
		testwait.Missing(t, "Landlock", "a helper failure surfacing as ErrUnavailable")
	}
	old := forceMode
	forceMode = "bogus"
	defer func() { forceMode = old }()
	b := newBox(t)
	_, err := Run(context.Background(), Command{Script: "true", Dir: b.ws, Policy: b.policy(true)})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("Run with a broken helper: %v; want ErrUnavailable naming the mode", err)
	}
}

// TestReadOnlyPlaceholder checks that a read-only folder that does not
// exist yet is there, empty and read-only, while the command runs, so that
// the command cannot create it with its own content, and is gone once no
// command relies on it: the user's project gets no empty folder from Foya.
// One that existed stays; one another holder still relies on (a command
// started meanwhile, another Foya process's lock) stays until it is done.
//
// spec: A2
func TestReadOnlyPlaceholder(t *testing.T) {
	const plant = `[ -d .agents ] && echo held; mkdir -p .agents/skills; echo x > .agents/planted; mkdir -p fresh/.foya; echo x > fresh/.foya/planted`
	for _, m := range restrictedModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			agents, fresh := filepath.Join(b.ws, ".agents"), filepath.Join(b.ws, "fresh", ".foya")
			policy := Policy{Restricted: true, Writable: []string{b.ws}, ReadOnly: []string{b.foya, agents, fresh}}
			run := func(script string) Result {
				t.Helper()
				res, err := Run(context.Background(), Command{Script: script, Dir: b.ws, Policy: policy})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			res := run(plant)
			if !strings.Contains(string(res.Output), "held") {
				t.Errorf("the missing read-only folder was not there while the command ran: %s", res.Output)
			}
			for _, p := range []string{agents, fresh} {
				if exists(p) {
					t.Errorf("%s is left after the command (planted: %v): %s", p, exists(filepath.Join(p, "planted")), res.Output)
				}
			}
			if !exists(b.foya) {
				t.Errorf("the existing %s was removed", b.foya)
			}

			// A command still running holds the folder for itself.
			first, err := Start(context.Background(), Command{Script: `while [ ! -e go ]; do sleep 0.05; done; echo x > .agents/late`, Dir: b.ws, Policy: policy})
			if err != nil {
				t.Fatal(err)
			}
			run(`true`)
			if !exists(agents) {
				t.Errorf("%s removed while another command relied on it", agents)
			}
			writeFile(t, filepath.Join(b.ws, "go"), "")
			<-first.Done()
			if exists(agents) {
				t.Errorf("%s is left after the last command", agents)
			}

			// Another process's hold (its shared lock) keeps it too, and
			// something put in it by someone else is never removed.
			probe, err := Start(context.Background(), Command{Script: `while [ ! -e go2 ]; do sleep 0.05; done`, Dir: b.ws, Policy: policy})
			if err != nil {
				t.Fatal(err)
			}
			other, err := os.Open(agents)
			if err != nil {
				t.Fatal(err)
			}
			if err := unix.Flock(int(other.Fd()), unix.LOCK_SH); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(b.ws, "go2"), "")
			<-probe.Done()
			other.Close()
			if !exists(agents) {
				t.Errorf("%s removed while another process held it", agents)
			}
			os.Remove(agents)
			probe, err = Start(context.Background(), Command{Script: `while [ ! -e go3 ]; do sleep 0.05; done`, Dir: b.ws, Policy: policy})
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(agents, "users"), "mine")
			writeFile(t, filepath.Join(b.ws, "go3"), "")
			<-probe.Done()
			if readFile(filepath.Join(agents, "users")) != "mine" {
				t.Errorf("a file put in the folder by someone else is gone")
			}
		})
	}
}

// TestForkBomb checks that a fork bomb is bounded by the process limit and
// ends with its tree. It lets the bomb run until it has hit the limit,
// however long that takes on a loaded machine, then kills it.
func TestForkBomb(t *testing.T) {
	old := procLimit
	procLimit = 64
	defer func() { procLimit = old }()
	limitHit := [][]byte{
		[]byte("Resource temporarily unavailable"), // RLIMIT_NPROC or pid_max refused a fork
		[]byte("more than 64 processes"),           // the helper ended it (root on older kernels)
		[]byte("Cannot fork"),
	}
	for _, m := range restrictedModes(t) {
		if m == llMode && os.Getuid() == 0 {
			continue // RLIMIT_NPROC does not bind root without a user namespace (documented)
		}
		if m.sandbox == "bubblewrap" {
			continue // bwrap sets no process limit (documented)
		}
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			p, err := Start(context.Background(), Command{
				Script: `bomb() { bomb | bomb; }; bomb`, Dir: b.ws, Env: b.env(), Policy: b.policy(true),
				Timeout: 2 * time.Minute, // only so that a bomb that is never bounded fails instead of blocking the suite
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Kill() })
			most := 0
			hit := func() bool {
				data, _, _ := p.Read(0)
				for _, h := range limitHit {
					if bytes.Contains(data, h) {
						return true
					}
				}
				return false
			}
		watch:
			for !hit() {
				select {
				case <-p.Done():
					break watch
				case <-time.After(50 * time.Millisecond):
					most = max(most, len(groupTasks(p.PID())))
				}
			}
			if err := p.Kill(); err != nil {
				t.Fatalf("Kill: %v", err)
			}
			// The namespace's pid_max (minimum 301) or RLIMIT_NPROC bounds it.
			if most > 301 {
				t.Errorf("the bomb reached %d processes; want at most 301", most)
			}
			t.Logf("the bomb reached %d processes", most)
			if res, _ := p.Result(); !hit() || res.TimedOut {
				t.Errorf("the bomb never hit the limit: %+v\n%s", res, res.Output)
			}
			for _, tk := range groupTasks(p.PID()) {
				if tk.alive() {
					t.Errorf("process %d of the bomb survived", tk.pid)
				}
			}
		})
	}
}

// TestHugeOutputBounded prints a million numbered lines and keeps the last
// 1000 bytes: the tail and the dropped counts are exact.
//
// spec: O2
// spec: O3
func TestHugeOutputBounded(t *testing.T) {
	var all bytes.Buffer
	for i := 1; i <= 1000000; i++ {
		all.WriteString(strconv.Itoa(i))
		all.WriteByte('\n')
	}
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			res, err := Run(context.Background(), Command{
				Script: `seq 1 1000000`, Dir: b.ws, Policy: b.policy(m.restricted), TailBytes: 1000,
			})
			if err != nil {
				t.Fatal(err)
			}
			want := all.Bytes()[all.Len()-1000:]
			dropped := all.Bytes()[:all.Len()-1000]
			if !bytes.Equal(res.Output, want) {
				t.Errorf("Output = %q...; want the last 1000 bytes %q...", res.Output[:20], want[:20])
			}
			if res.TotalBytes != int64(all.Len()) || res.TotalLines != 1000000 {
				t.Errorf("TotalBytes, TotalLines = %d, %d; want %d, 1000000", res.TotalBytes, res.TotalLines, all.Len())
			}
			if res.DroppedBytes != int64(len(dropped)) || res.DroppedLines != int64(bytes.Count(dropped, []byte("\n"))) {
				t.Errorf("DroppedBytes, DroppedLines = %d, %d; want %d, %d",
					res.DroppedBytes, res.DroppedLines, len(dropped), bytes.Count(dropped, []byte("\n")))
			}
		})
	}
}

// TestOutputEdges pins the accounting at its edges: UTF-8 cut at the start
// of the tail, binary output, a last line without newline, no output.
//
// spec: O3
func TestOutputEdges(t *testing.T) {
	cases := []struct {
		name, script                                   string
		tail                                           int
		total, lines, keptBytes, droppedBytes, dropped int64
		utf8                                           bool
	}{
		// 1000 two-byte runes, 999 kept bytes: the cut half rune is dropped.
		{"utf-8 cut", `for i in $(seq 1000); do printf 'é'; done`, 999, 2000, 1, 998, 1002, 0, true},
		{"no trailing newline", `printf 'a\nb'`, 0, 3, 2, 3, 0, 0, true},
		{"nothing", `true`, 0, 0, 0, 0, 0, 0, true},
		{"lines dropped", `printf 'one\ntwo\nthree\n'`, 7, 14, 3, 7, 7, 1, true},
	}
	b := newBox(t)
	for _, c := range cases {
		res, err := Run(context.Background(), Command{Script: c.script, Dir: b.ws, TailBytes: c.tail})
		if err != nil {
			t.Fatal(err)
		}
		got := []int64{res.TotalBytes, res.TotalLines, int64(len(res.Output)), res.DroppedBytes, res.DroppedLines}
		want := []int64{c.total, c.lines, c.keptBytes, c.droppedBytes, c.dropped}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: total, lines, kept, dropped bytes, dropped lines = %v; want %v (output %q)", c.name, got, want, res.Output)
		}
		if c.utf8 && !utf8.Valid(res.Output) {
			t.Errorf("%s: Output is not valid UTF-8: %q", c.name, res.Output)
		}
	}
	res, err := Run(context.Background(), Command{Script: `head -c 100000 /dev/urandom; printf '\377\376'`, Dir: b.ws, TailBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalBytes != 100002 || int64(len(res.Output))+res.DroppedBytes != 100002 || len(res.Output) < 997 ||
		!bytes.HasSuffix(res.Output, []byte{0xff, 0xfe}) {
		t.Errorf("binary output: total %d, kept %d, dropped %d", res.TotalBytes, len(res.Output), res.DroppedBytes)
	}
}

// TestMemoryFlat prints 2 GiB and checks that the runner allocated a tiny,
// fixed fraction of it.
//
// spec: O4
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 2 GiB")
	}
	b := newBox(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Run(context.Background(), Command{Script: `head -c 2147483648 /dev/zero`, Dir: b.ws})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalBytes != 2<<30 || len(res.Output) != DefaultTailBytes {
		t.Fatalf("TotalBytes %d, kept %d; want %d, %d", res.TotalBytes, len(res.Output), int64(2<<30), DefaultTailBytes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d bytes for 2 GiB of output; want under 4 MiB", alloc)
	}
}

// TestBackgroundReadBounded follows a command that never stops printing:
// every Read returns at most the ring's size, offsets follow each other,
// and what was read plus what was dropped is everything.
//
// spec: B2
// spec: O4
func TestBackgroundReadBounded(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			p, err := Start(context.Background(), Command{
				Script: `i=0; while :; do i=$((i+1)); echo "line $i"; done`, Dir: b.ws,
				Policy: b.policy(m.restricted), TailBytes: 4096,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Kill() })
			var off, read, lost int64
			pause := time.Millisecond
			for reads := 0; reads < 50 || lost == 0; reads++ {
				data, next, dropped := p.Read(off)
				if len(data) > 4096 {
					t.Fatalf("Read returned %d bytes; want at most 4096", len(data))
				}
				if next != off+dropped+int64(len(data)) {
					t.Fatalf("Read(%d) = %d bytes, next %d, dropped %d: offsets do not add up", off, len(data), next, dropped)
				}
				read += int64(len(data))
				lost += dropped
				off = next
				if reads >= 50 && lost == 0 {
					// The reader keeps up (the shell is slow on a loaded
					// machine): pause longer and longer until the ring
					// overflows.
					if pause >= settle {
						t.Fatalf("nothing was dropped in %d reads of a command that never stops printing", reads)
					}
					pause *= 2
				}
				select {
				case <-p.Done():
					res, _ := p.Result()
					t.Fatalf("the command ended: %+v", res)
				case <-time.After(pause):
				}
			}
			if err := p.Kill(); err != nil {
				t.Fatal(err)
			}
			res, _ := p.Result()
			if read+lost != off || res.TotalBytes < off {
				t.Errorf("read %d + lost %d != offset %d, or total %d < offset", read, lost, off, res.TotalBytes)
			}
			if data, next, _ := p.Read(res.TotalBytes + 100); len(data) != 0 || next != res.TotalBytes {
				t.Errorf("Read beyond the end = %d bytes, next %d; want 0, %d", len(data), next, res.TotalBytes)
			}
		})
	}
}

// TestOnOutput checks the live tail: bounded, and its last call is the
// final Output.
func TestOnOutput(t *testing.T) {
	b := newBox(t)
	var mu sync.Mutex
	var calls [][]byte
	res, err := Run(context.Background(), Command{
		Script: `for i in $(seq 1 5); do seq 1 20000; sleep 0.15; done`, Dir: b.ws, TailBytes: 512,
		OnOutput: func(tail []byte) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, tail)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("OnOutput called %d times", len(calls))
	if len(calls) == 0 {
		t.Fatal("OnOutput never called")
	}
	for _, c := range calls {
		if len(c) > 512 {
			t.Errorf("OnOutput got %d bytes; want at most 512", len(c))
		}
	}
	if !bytes.Equal(calls[len(calls)-1], res.Output) {
		t.Errorf("last OnOutput tail %q; want the final Output %q", calls[len(calls)-1], res.Output)
	}
}

// TestDenied checks the hint on a few outputs.
func TestDenied(t *testing.T) {
	modes := restrictedModes(t)
	m := modes[0]
	m.use(t)
	b := newBox(t)
	cases := []struct {
		script     string
		restricted bool
		want       bool
	}{
		{`echo x > "$OUT/f"`, true, true},
		{`echo x > "$OUT/f"`, false, false},
		{`cat missing-file`, true, false},
		{`echo x > f && echo ok`, true, false},
		{`mkdir /proc/nope`, true, false}, // not writable without the sandbox either
		{`echo 'echo hi' > run.sh && ./run.sh`, true, false},
		{`exec 3<>/dev/tcp/127.0.0.1/9`, true, true},
	}
	for _, c := range cases {
		res, err := Run(context.Background(), Command{Script: c.script, Dir: b.ws, Env: b.env(), Policy: b.policy(c.restricted)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Denied != c.want {
			t.Errorf("%q (restricted %v) under %s: Denied = %v; want %v\n%s", c.script, c.restricted, m.name, res.Denied, c.want, res.Output)
		}
	}
}

// TestProbe reports what works here and checks that it is consistent.
func TestProbe(t *testing.T) {
	c := Probe()
	t.Logf("Probe() = %+v", c)
	if c != Probe() {
		t.Error("Probe is not stable")
	}
	switch c.Mechanism {
	case "landlock+netns":
		if c.Landlock < 1 || !c.NetNS {
			t.Errorf("mechanism %s with Landlock %d, NetNS %v", c.Mechanism, c.Landlock, c.NetNS)
		}
	case "landlock+seccomp":
		if c.Landlock < 1 || c.Reason == "" {
			t.Errorf("mechanism %s with Landlock %d and no reason", c.Mechanism, c.Landlock)
		}
	case "bubblewrap":
		if !c.Bubblewrap {
			t.Errorf("mechanism bubblewrap without Bubblewrap")
		}
	case "":
		if !strings.HasPrefix(c.Reason, "sandbox unavailable") {
			t.Errorf("no mechanism, reason %q", c.Reason)
		}
	default:
		t.Errorf("unknown mechanism %q", c.Mechanism)
	}
	b := newBox(t)
	res, err := Run(context.Background(), Command{Script: "true", Dir: b.ws, Policy: b.policy(true)})
	switch {
	case c.Mechanism == "" && !errors.Is(err, ErrUnavailable):
		t.Errorf("no mechanism: Run error %v; want ErrUnavailable", err)
	case c.Mechanism != "" && (err != nil || res.Sandbox != c.Mechanism):
		t.Errorf("Run: %v, Sandbox %q; want %q", err, res.Sandbox, c.Mechanism)
	}
}

// TestHelperHasCommandsEnvironment checks that the process above the shell
// (the helper, or bwrap) holds the command's environment, not the runner's:
// a command can read its parent's /proc/PID/environ, and the runner's
// holds Foya's secrets.
//
// spec: A2
func TestHelperHasCommandsEnvironment(t *testing.T) {
	t.Setenv("FOYA_RUNNER_ONLY_SECRET", "runner-secret-value")
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			var env []string
			for _, kv := range b.env() {
				if !strings.HasPrefix(kv, "FOYA_RUNNER_ONLY_SECRET=") {
					env = append(env, kv)
				}
			}
			res, err := Run(context.Background(), Command{Script: `tr '\0' '\n' < /proc/$PPID/environ; echo "own=${FOYA_RUNNER_ONLY_SECRET:-unset}"`,
				Dir: b.ws, Env: env, Policy: b.policy(m.restricted)})
			if err != nil {
				t.Fatal(err)
			}
			out := string(res.Output)
			// Where the helper keeps more privileges than the shell (PID 1
			// of the namespaces), its environ is not readable at all.
			readable := !strings.Contains(out, "Permission denied")
			if strings.Contains(out, "runner-secret-value") || !strings.Contains(out, "own=unset") || readable && !strings.Contains(out, "WS="+b.ws) {
				t.Errorf("the command's parent's environment:\n%s", out)
			}
		})
	}
}

// TestPlainIsUnrestricted pins what Full Access keeps although its
// commands run below the reaping helper (so that none outlives Foya): the host's
// user, PID and mount namespaces, the user's own uid, and no
// no_new_privs, so that sudo and setuid programs work.
func TestPlainIsUnrestricted(t *testing.T) {
	b := newBox(t)
	res := b.run(t, plainMode, `readlink /proc/self/ns/user /proc/self/ns/pid /proc/self/ns/mnt /proc/self/ns/net; id -u; `+
		`grep NoNewPrivs /proc/self/status; kill -0 `+strconv.Itoa(os.Getpid())+` && echo sees-the-host`)
	var want []string
	for _, ns := range []string{"user", "pid", "mnt", "net"} {
		l, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, l)
	}
	want = append(want, strconv.Itoa(os.Getuid()), "NoNewPrivs:\t0", "sees-the-host")
	if got := strings.TrimSpace(string(res.Output)); got != strings.Join(want, "\n") {
		t.Errorf("a command without restriction reports\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}
