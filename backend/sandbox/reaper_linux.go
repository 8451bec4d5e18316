package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The signal the runner sends a reaping helper to end its command's tree
// now, and the helper's parent-death signal: unlike SIGKILL it can be
// caught, so the helper outlives the runner long enough to kill every
// descendant.
const killTreeSignal = unix.SIGUSR1

// reapBound bounds how long a reaping helper keeps killing once the shell
// has ended: only a process stuck in the kernel (an unreachable network
// file system) takes longer to die of SIGKILL, and it is left behind.
const reapBound = 10 * time.Second

// runReaper starts the shell as a child of the helper, which is a child
// subreaper (PR_SET_CHILD_SUBREAPER) without any namespace: every process
// the command leaves behind, even one that left the session (setsid, a
// double fork), is reparented to the helper instead of the host's init, so
// that the helper can find it by walking its descendants in /proc.
//
// Termination signals are forwarded to every descendant; killTreeSignal
// (from the runner after the grace period, or as parent-death signal when
// the runner dies) SIGKILLs every descendant. When the shell has ended, the
// helper kills what is left, reaps it until it has no child at all, reports
// how the shell ended and exits.
func runReaper(hs *helperSpec, argv []string, scriptFD int, report func(helperMsg)) int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, killTreeSignal)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: become the command's reaper: %v\n", err)
		code := 125
		report(helperMsg{Exit: &code})
		return code
	}
	// A signal that came before the handler was set is lost: the Go
	// runtime catches SIGUSR1 from its start and, with no handler, does
	// nothing. So a runner that died before (foya killed while starting a
	// command) would leave this helper running the command forever: a
	// parent that is no longer the runner says so (the crash harness,
	// tests/crash, found such commands). A kill that came since is in sigs.
	if hs.Parent != 0 && os.Getppid() != hs.Parent {
		report(helperMsg{Signal: unix.SignalName(killTreeSignal)})
		return 128 + int(killTreeSignal)
	}
	select {
	case sig := <-sigs:
		code := 128 + int(sig.(syscall.Signal))
		report(helperMsg{Signal: unix.SignalName(sig.(syscall.Signal))})
		return code
	default:
	}
	shell, code := startShell(hs, argv, scriptFD, report)
	if shell == nil {
		return code
	}
	go func() {
		for sig := range sigs {
			s := sig.(syscall.Signal)
			if s == killTreeSignal {
				s = unix.SIGKILL
			}
			signalDescendants(s)
		}
	}()
	var ws unix.WaitStatus
	for {
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: wait: %v\n", err)
			return 125
		}
		if pid == shell.Pid {
			break
		}
		// an orphan reparented to us
	}
	endDescendants(time.Now().Add(reapBound))
	if ws.Signaled() {
		report(helperMsg{Signal: unix.SignalName(ws.Signal())})
		return 128 + int(ws.Signal())
	}
	code = ws.ExitStatus()
	report(helperMsg{Exit: &code})
	return code
}

// endDescendants SIGKILLs every descendant of this process and reaps the
// orphans this subreaper inherits, again and again, until it has no child
// left or deadline has passed. A process that forks while it is being
// killed leaves a child that is reparented to us before its parent's death
// is reported, so the next walk finds it.
func endDescendants(deadline time.Time) {
	pause := time.Millisecond
	for !reapOrphans() && time.Now().Before(deadline) {
		if signalDescendants(unix.SIGKILL) > 0 {
			pause = time.Millisecond
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// reapOrphans reaps every child that has ended and reports whether no
// child is left, which means no descendant is: every orphan comes to us.
func reapOrphans() bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.ECHILD):
			return true
		case err != nil || pid <= 0:
			return false
		}
	}
}

// signalDescendants sends sig to every live descendant of this process it
// finds in /proc and returns how many it signalled: parents before their
// children (descendants), so that a shell cannot see its foreground child
// die of the signal and run its next command before the signal reaches it
// too (TestTimeout/plain once printed "begin", "Terminated", "never" and
// exited 0 under load: the helper was preempted between the two). Each is
// signalled through a pidfd opened after the walk and checked again (its
// parent must still be us or one of the descendants found), so that a PID
// reused by an unrelated process meanwhile is left alone.
func signalDescendants(sig unix.Signal) int {
	self := os.Getpid()
	order := descendants(self)
	desc := map[int]bool{self: true}
	for _, pid := range order {
		desc[pid] = true
	}
	buf := make([]byte, 512)
	n := 0
	for _, pid := range order {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			if errors.Is(err, unix.ENOSYS) && unix.Kill(pid, sig) == nil { // before Linux 5.3
				n++
			}
			continue
		}
		if st, ok := readProcState(pid, buf); ok && desc[st.ppid] {
			if unix.PidfdSendSignal(fd, sig, nil, 0) == nil {
				n++
			}
		}
		unix.Close(fd)
	}
	return n
}

// descendants returns the live descendants of root that /proc shows, each
// after its parent (breadth first), root itself left out.
func descendants(root int) []int {
	children := map[int][]int{}
	scanProc(func(pid int, st procState) {
		if st.state != 'Z' && st.state != 'X' {
			children[st.ppid] = append(children[st.ppid], pid)
		}
	})
	seen := map[int]bool{root: true}
	var order []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				order = append(order, c)
				queue = append(queue, c)
			}
		}
	}
	return order
}
