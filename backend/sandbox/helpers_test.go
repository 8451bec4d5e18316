//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"foya/backend/sandbox/sandboxtest"
	"foya/backend/testwait"
)

// mode is one way to run a command in the tests.
type mode struct {
	name       string
	restricted bool
	force      string // forceMode while it runs
	sandbox    string // the Result.Sandbox it must report
	// loopback makes TestParentDeathJoined's parent name a Loopback.
	loopback bool
}

var (
	plainMode = mode{name: "plain", sandbox: "none"}
	nsMode    = mode{name: "landlock+netns", restricted: true, force: modeNS, sandbox: "landlock+netns"}
	llMode    = mode{name: "landlock+seccomp", restricted: true, force: modeLandlock, sandbox: "landlock+seccomp"}
	bwrapMode = mode{name: "bubblewrap", restricted: true, force: "bwrap", sandbox: "bubblewrap"}
	// bwrapUserNSMode runs bwrap in a user namespace of the runner's own,
	// as for any user but root; tested separately when root runs the tests.
	bwrapUserNSMode = mode{name: "bubblewrap+userns", restricted: true, force: "bwrap+userns", sandbox: "bubblewrap"}
)

// restrictedModes are the confining mechanisms that work here; the tests run
// each of them, whatever Probe would choose.
func restrictedModes(t testing.TB) []mode {
	t.Helper()
	c := Probe()
	var ms []mode
	if c.NetNS {
		ms = append(ms, nsMode)
	}
	if c.Landlock > 0 {
		ms = append(ms, llMode)
	}
	if c.Bubblewrap {
		ms = append(ms, bwrapMode)
		if os.Geteuid() == 0 && bwrapUserNSWorks() {
			ms = append(ms, bwrapUserNSMode)
		}
	}
	if len(ms) == 0 {
		testwait.Missing(t, "every sandbox mechanism ("+c.Reason+")", "commands in the sandbox")
	}
	return ms
}

// bwrapUserNSWorks reports whether bwrap runs in a user namespace of the
// runner's own here.
var bwrapUserNSWorks = sync.OnceValue(func() bool {
	attr := bwrapAttr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID)
	attr.Pdeathsig = 0 // not started from the starter thread
	return tryBwrap(attr) == nil
})

// use makes m the mechanism of restricted commands until the test ends.
// Tests that call it must not run in parallel.
func (m mode) use(t testing.TB) {
	t.Helper()
	old := forceMode
	forceMode = m.force
	t.Cleanup(func() { forceMode = old })
}

// box is a workspace, a session temp folder and a folder outside both.
type box struct {
	root, ws, sess, out, foya string
	shm                       string // a file name in /dev/shm for this run
	tmpOut                    string // a folder outside both in /tmp, when a test makes one
}

func newBox(t testing.TB) *box {
	t.Helper()
	root := sandboxtest.Dir(t)
	b := &box{
		root: root,
		ws:   filepath.Join(root, "ws"),
		sess: filepath.Join(root, "sess"),
		out:  filepath.Join(root, "out"),
	}
	b.foya = filepath.Join(b.ws, ".foya")
	for _, d := range []string{b.ws, b.sess, b.out, b.foya} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func (b *box) policy(restricted bool) Policy {
	return Policy{Restricted: restricted, Writable: []string{b.ws, b.sess}, ReadOnly: []string{b.foya}}
}

func (b *box) env(extra ...string) []string {
	env := append(os.Environ(), "WS="+b.ws, "SESS="+b.sess, "OUT="+b.out, "TMPDIR="+b.sess)
	return append(env, extra...)
}

// run runs script in b's workspace under m and fails the test if it cannot
// start.
func (b *box) run(t testing.TB, m mode, script string, extraEnv ...string) Result {
	t.Helper()
	return b.runIn(t, m, b.ws, script, extraEnv...)
}

// runIn is run with another working directory.
func (b *box) runIn(t testing.TB, m mode, dir, script string, extraEnv ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Command{Script: script, Dir: dir, Env: b.env(extraEnv...), Policy: b.policy(m.restricted)})
	if err != nil {
		t.Fatalf("Run(%q) under %s: %v", script, m.name, err)
	}
	if res.Sandbox != m.sandbox {
		t.Errorf("Run under %s: Sandbox = %q; want %q", m.name, res.Sandbox, m.sandbox)
	}
	return res
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// task is one process as the host's /proc sees it.
type task struct {
	pid   int
	start string // start time, so that a reused PID is not taken for it
}

// procStat returns the fields of /proc/pid/stat after the command name:
// state, ppid, pgrp, session, ... (field 3 of proc(5) is index 0).
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// tasksWhere lists the host's processes for which match is true.
func tasksWhere(match func(pid int, stat []string, cmdline string) bool) []task {
	entries, _ := os.ReadDir("/proc")
	var ts []task
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st := procStat(pid)
		if len(st) < 20 {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if match(pid, st, strings.ReplaceAll(string(cl), "\x00", " ")) {
			ts = append(ts, task{pid: pid, start: st[19]})
		}
	}
	return ts
}

// groupTasks lists the processes of process group pgid.
func groupTasks(pgid int) []task {
	g := strconv.Itoa(pgid)
	return tasksWhere(func(_ int, st []string, _ string) bool { return st[2] == g })
}

// sleeper is a command that sleeps for good and that no other test, and no
// other run of these tests on the machine, uses: the tests find their
// processes by its command line. n tells the tests apart. Every sleeper has
// the same length, so none is the prefix of another.
func sleeper(n int) string {
	return fmt.Sprintf("sleep 9%07d%02d", os.Getpid()%10000000, n%100)
}

// cmdlineTasks lists the processes whose command line starts with prefix
// (arguments separated by spaces).
func cmdlineTasks(prefix string) []task {
	return tasksWhere(func(_ int, _ []string, cl string) bool { return strings.HasPrefix(cl, prefix) })
}

// alive reports whether the task still runs: it exists, is the same
// process, and has not exited. A process that has exited may still be
// listed a while: as a zombie ("Z") until its reaper waits for it, and as
// "X" (EXIT_DEAD) while the reaper releases it.
func (tk task) alive() bool {
	st := procStat(tk.pid)
	return len(st) >= 20 && st[19] == tk.start && st[0] != "Z" && st[0] != "X" && st[0] != "x"
}

// settle bounds every wait of the tests for what the kernel or a command
// does on its own time (a background child executing its program, a killed
// process exiting). On a loaded machine these take longer, never forever;
// the bound only turns a real failure into a failed test instead of a hang.
const settle = 10 * time.Second

// waitTasks waits until exactly n processes run whose command line starts
// with prefix, and returns them. A background child shows its shell's
// command line until it has executed its program, so seeing the shell's
// output is not enough.
func waitTasks(t testing.TB, prefix string, n int) []task {
	t.Helper()
	deadline := time.Now().Add(settle)
	for {
		var ts []task
		for _, tk := range cmdlineTasks(prefix) {
			if tk.alive() {
				ts = append(ts, tk)
			}
		}
		if len(ts) == n {
			return ts
		}
		if len(ts) > n || time.Now().After(deadline) {
			t.Fatalf("found %d processes %q; want %d", len(ts), prefix, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitGone waits until none of tasks is alive, at most until deadline, and
// returns those still alive then.
func awaitGone(tasks []task, deadline time.Time) []task {
	var left []task
	for _, tk := range tasks {
		for tk.alive() && time.Now().Before(deadline) {
			tk.waitExit(deadline)
		}
		if tk.alive() {
			left = append(left, tk)
		}
	}
	return left
}

// waitExit blocks until tk has exited, deadline has passed or something
// else happened (an error, a signal); the caller looks again.
func (tk task) waitExit(deadline time.Time) {
	fd, err := unix.PidfdOpen(tk.pid, 0)
	if err != nil {
		time.Sleep(10 * time.Millisecond)
		return
	}
	defer unix.Close(fd)
	if !tk.alive() { // the PID may name another process by now
		return
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if _, err := unix.Poll(fds, int(time.Until(deadline)/time.Millisecond)+1); err != nil {
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitGroupGone waits until process group pgid has no live process left,
// at most settle, and returns those still alive then.
func awaitGroupGone(pgid int) []task {
	deadline := time.Now().Add(settle)
	for {
		var live []task
		for _, tk := range groupTasks(pgid) {
			if tk.alive() {
				live = append(live, tk)
			}
		}
		if len(live) == 0 || time.Now().After(deadline) {
			return live
		}
		awaitGone(live, deadline)
	}
}

// waitOutput polls p's output until it contains want or p ends; it fails
// the test when neither happened within a minute (a hang guard).
func waitOutput(t testing.TB, p *Process, want string) {
	t.Helper()
	deadline := time.After(6 * settle)
	for {
		data, _, _ := p.Read(0)
		if bytes.Contains(data, []byte(want)) {
			return
		}
		select {
		case <-p.Done():
			res, _ := p.Result()
			t.Fatalf("command ended before printing %q: %+v\n%s", want, res, res.Output)
		case <-deadline:
			t.Fatalf("the command did not print %q within %v; it printed %q", want, 6*settle, data)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func haveCommand(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// waitDone waits until p has ended, and fails the test, saying why it
// waited, when it has not within settle: a cancelled or killed command that
// does not end is a failure, not a hang.
func waitDone(t testing.TB, p *Process, why string) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(settle):
		t.Fatalf("the command (process group %d) did not end within %v after %s", p.PID(), settle, why)
	}
}
