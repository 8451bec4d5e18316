//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// escapingCommand starts processes sleeping m that leave the shell's
// process group and session the ways daemons do (setsid, nohup, a double
// fork, a setsid double fork, one that ignores SIGTERM and SIGHUP) beside
// the plain tree of treeCommand, prints "up" and waits. n is how many
// processes hold m.
func escapingCommand(m string) (cmd string, n int) {
	sl := "sleep " + m
	return strings.Join([]string{
		"setsid " + sl + " > /dev/null 2>&1 &",
		"nohup " + sl + " > /dev/null 2>&1 &",
		"( ( " + sl + " > /dev/null 2>&1 & ) & )",
		"setsid sh -c '( " + sl + " > /dev/null 2>&1 & )' &",
		`setsid sh -c 'trap "" TERM HUP; exec ` + sl + `' > /dev/null 2>&1 &`,
		treeCommand(m),
	}, "\n"), 5 + 3
}

// alivePID reports whether process pid exists and has not exited (a
// zombie or a dying process is dead).
func alivePID(pid int) bool {
	state, _, ok := procStat(strconv.Itoa(pid))
	return ok && state != "Z" && state != "X" && state != "x"
}

// awaitPIDsGone waits until none of pids is alive, at most 20 seconds (the
// kernel ends processes on its own time; the bound only turns a failure
// into a failed test instead of a hang), and fails for each one still
// alive then.
func awaitPIDsGone(t *testing.T, pids map[int]int, after string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for pid := range pids {
		for alivePID(pid) && time.Now().Before(deadline) {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			unix.Poll(fds, int(time.Until(deadline)/time.Millisecond)+1)
			unix.Close(fd)
		}
	}
	for pid := range pids {
		if alivePID(pid) {
			t.Errorf("process %d (%s) outlived %s", pid, cmdlineOf(pid), after)
		}
	}
}

func cmdlineOf(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// killPIDs ends what a failed test left running, so that it does not
// outlive the test binary.
func killPIDs(t *testing.T, pids map[int]int) {
	t.Cleanup(func() {
		for pid := range pids {
			if alivePID(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// TestShellCancelEndsEscapedTree cancels a run while its foreground command
// has started daemons that left its process group and session (setsid,
// nohup, double forks, one that ignores SIGTERM): in Full Access as in Auto,
// none of them outlives the cancel (a setsid child once survived a cancel
// in Full Access).
//
// spec: X1
func TestShellCancelEndsEscapedTree(t *testing.T) {
	for _, mode := range []string{"full_access", "auto"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "auto" {
				needSandbox(t)
			}
			m := sleepMarker()
			script, n := escapingCommand(m)
			args, _ := json.Marshal(map[string]any{"command": script})
			h := newHarness(t, nil, pt.Calls(call("c1", "bash", string(args))))
			sess := h.session(mode)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan kernel.Run)
			go func() { done <- h.runIn(ctx, sess.ID, "start daemons") }()
			pids := waitProcesses(t, m, n)
			killPIDs(t, pids)
			cancel()
			run := testwait.Receive(t, done, "the cancelled run to end")
			if run.Status != kernel.RunCancelled {
				t.Fatalf("run %s", run.Status)
			}
			awaitPIDsGone(t, pids, "the cancel")
		})
	}
}

// TestKilledExecLeavesNoProcess starts a background command with daemons
// that left its session through a real foya exec process, then kills that
// process with SIGKILL, as a crash would: every descendant of the command
// ends within a bounded wait, in Full Access as in Auto (background
// children once survived a SIGKILL of Foya).
//
// spec: X1, B3
func TestKilledExecLeavesNoProcess(t *testing.T) {
	for _, mode := range []string{"full-access", "auto"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "auto" {
				needSandbox(t)
			}
			m := sleepMarker()
			script, n := escapingCommand(m)
			args, _ := json.Marshal(map[string]any{"command": script, "run_in_background": true})
			hold := make(chan struct{})
			defer close(hold)
			srv := pt.New(t, pt.Calls(call("c1", "bash", string(args))), pt.Turn{Text: "thinking for good", Hold: hold})
			dir := t.TempDir()
			self, _ := os.Executable()
			cmd := exec.Command(self, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m",
				"--db", filepath.Join(dir, "foya.db"), "--workdir", dir, "--approval", mode, "--json", "start daemons")
			cmd.Env = append(os.Environ(), "FOYA_TEST_CHILD=exec")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			pids := waitProcesses(t, m, n)
			killPIDs(t, pids)
			// The model is still thinking: foya exec is alive, the command
			// runs in the background.
			testwait.Until(t, "the model's second request", func() bool { return len(srv.Requests()) >= 2 })
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			awaitPIDsGone(t, pids, fmt.Sprintf("a SIGKILL of foya exec (%s)", mode))
		})
	}
}
