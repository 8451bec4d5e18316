//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"foya/backend/testwait"
)

// parentMain plays Foya in TestParentDeath: it starts script restricted in
// the current directory, says so with the command's PID (which is also its
// process group), and waits to be killed. Unless FOYA_SANDBOX_TEST_EARLY is
// set, it first waits for the command to print "ready".
func parentMain(script string) int {
	forceMode = os.Getenv("FOYA_SANDBOX_TEST_FORCE")
	dir, _ := os.Getwd()
	// No mechanism forced means a command without restriction (Full Access).
	restricted := forceMode != ""
	policy := Policy{Restricted: restricted, Writable: []string{dir}}
	if os.Getenv("FOYA_SANDBOX_TEST_LOOPBACK") != "" {
		policy.Loopback = &Loopback{}
	}
	p, err := Start(context.Background(), Command{Script: script, Dir: dir, Policy: policy})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	for os.Getenv("FOYA_SANDBOX_TEST_EARLY") == "" {
		if data, _, _ := p.Read(0); strings.Contains(string(data), "ready") {
			break
		}
		select {
		case <-p.Done():
			res, _ := p.Result()
			fmt.Printf("ended before it was ready: exit %d %s: %q\n", res.ExitCode, res.Signal, res.Output)
			return 1
		case <-time.After(10 * time.Millisecond):
		}
	}
	fmt.Println("started", p.PID())
	<-p.Done()
	return 0
}

// startParent starts a process that plays Foya and runs script under m, and
// returns it with the command's process group once it said it started. The
// parent is killed when the test ends, whatever happens.
func startParent(t *testing.T, m mode, script string, early bool) (*exec.Cmd, int) {
	t.Helper()
	b := newBox(t)
	parent := exec.Command(os.Args[0])
	parent.Dir = b.ws
	parent.Env = append(os.Environ(), "FOYA_SANDBOX_TEST_PARENT="+script, "FOYA_SANDBOX_TEST_FORCE="+m.force)
	if early {
		parent.Env = append(parent.Env, "FOYA_SANDBOX_TEST_EARLY=1")
	}
	if m.loopback {
		parent.Env = append(parent.Env, "FOYA_SANDBOX_TEST_LOOPBACK=1")
	}
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Started like the commands, with a parent-death signal, so that a
	// test binary killed midway leaves no parent behind.
	parent.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := onStarterThread(parent.Start); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		parent.Process.Kill()
		parent.Wait()
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	pgid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "started ")))
	if !strings.HasPrefix(line, "started ") || err != nil {
		t.Fatalf("the parent said %q", line)
	}
	return parent, pgid
}

// TestParentDeath kills the process that started a command, as if Foya
// crashed: the command's whole tree must die with it, including processes
// that left the process group and the session (setsid, nohup, a double
// fork, one that ignores SIGTERM), in every mode, Full Access included
// (without a PID namespace they used to outlive Foya).
//
// spec: X1
func TestParentDeath(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			sl := sleeper(7)
			parent, pgid := startParent(t, m, escapingTree(sl)+sl+" & echo ready; wait", false)
			tree := append(waitTasks(t, sl, escapingTreeSize+1), groupTasks(pgid)...)
			parent.Process.Kill()
			parent.Wait()
			// The kernel kills them on its own time: wait for each, boundedly.
			for _, tk := range awaitGone(tree, time.Now().Add(settle)) {
				t.Errorf("process %d outlived its parent", tk.pid)
			}
		})
	}
}

// TestParentDeathAtStart kills the process that started a sandboxed command
// right after Start returned, while the sandbox may still be setting up:
// bubblewrap's init arms its parent-death signal only at the end of its
// setup, so without the runner's own guard its sandbox would outlive Foya.
// Every process of the command's group (which holds the sandbox's init)
// must end.
//
// spec: X1
func TestParentDeathAtStart(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(m.name, func(t *testing.T) {
			sl := sleeper(8)
			// Different pauses before the kill reach different points of
			// the setup; none is needed for the test to pass.
			for _, pause := range []time.Duration{0, 0, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond,
				5 * time.Millisecond, 8 * time.Millisecond, 13 * time.Millisecond} {
				parent, pgid := startParent(t, m, sl+" & "+sl+" & echo ready; wait", true)
				time.Sleep(pause)
				parent.Process.Kill()
				parent.Wait()
				for _, tk := range awaitGroupGone(pgid) {
					t.Errorf("killed %v after Start: process %d (%s) outlived its parent", pause, tk.pid, cmdline(tk.pid))
				}
			}
			for _, tk := range cmdlineTasks(sl) {
				if tk.alive() {
					t.Errorf("process %d outlived its parent", tk.pid)
				}
			}
		})
	}
}

// TestParentDeathJoined is TestParentDeath and TestParentDeathAtStart for
// a command that joined a shared Loopback (started below nsenter and
// unshare): its whole tree dies with the runner too.
//
// spec: X1
func TestParentDeathJoined(t *testing.T) {
	if !Probe().NetNS {
		testwait.Missing(t, lackUserNS(), "the parent's death for a command in a shared loopback")
	}
	if _, err := joinTools(); err != nil {
		testwait.Missing(t, "nsenter and unshare (Debian package util-linux)", "the parent's death for a command in a shared loopback")
	}
	m := nsMode
	m.loopback = true
	sl := sleeper(9)
	parent, pgid := startParent(t, m, escapingTree(sl)+sl+" & echo ready; wait", false)
	if !strings.Contains(cmdline(pgid), "nsenter") && !strings.Contains(cmdline(pgid), "unshare") {
		t.Errorf("the command's leader is %q; want unshare (the command joined no loopback)", cmdline(pgid))
	}
	tree := append(waitTasks(t, sl, escapingTreeSize+1), groupTasks(pgid)...)
	parent.Process.Kill()
	parent.Wait()
	for _, tk := range awaitGone(tree, time.Now().Add(settle)) {
		t.Errorf("process %d outlived its parent", tk.pid)
	}
	for _, pause := range []time.Duration{0, 0, time.Millisecond, 3 * time.Millisecond, 8 * time.Millisecond} {
		parent, pgid := startParent(t, m, sl+" & "+sl+" & echo ready; wait", true)
		time.Sleep(pause)
		parent.Process.Kill()
		parent.Wait()
		for _, tk := range awaitGroupGone(pgid) {
			t.Errorf("killed %v after Start: process %d (%s) outlived its parent", pause, tk.pid, cmdline(tk.pid))
		}
	}
	for _, tk := range cmdlineTasks(sl) {
		if tk.alive() {
			t.Errorf("process %d outlived its parent", tk.pid)
		}
	}
}

// cmdline is the command line of process pid, for messages.
func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	s := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}
