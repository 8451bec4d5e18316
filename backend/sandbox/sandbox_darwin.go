package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const sandboxExec = "/usr/bin/sandbox-exec"

var (
	probeOnce sync.Once
	probed    Capability
)

// Probe reports what can confine commands on this machine: sandbox-exec
// with a generated Seatbelt profile.
func Probe() Capability {
	probeOnce.Do(func() {
		if _, err := os.Stat(sandboxExec); err != nil {
			probed = Capability{Reason: fmt.Sprintf("sandbox unavailable: %s: %v", sandboxExec, err)}
			return
		}
		err := exec.Command(sandboxExec, "-p", seatbeltProfile(nil, nil, nil, false), "/usr/bin/true").Run()
		if err != nil {
			probed = Capability{Reason: fmt.Sprintf("sandbox unavailable: sandbox-exec: %v", err)}
			return
		}
		probed = Capability{Mechanism: "seatbelt"}
	})
	return probed
}

func start(ctx context.Context, sp *spec) (*Process, error) {
	args := []string{sp.shell}
	name := "none"
	if sp.Policy.Restricted {
		if c := Probe(); c.Mechanism == "" {
			return nil, fmt.Errorf("%w: %s", ErrUnavailable, c.Reason)
		}
		args = []string{sandboxExec, "-p", seatbeltProfile(sp.writable, sp.readOnly, sp.hidden, sp.Policy.Network), sp.shell}
		name = "seatbelt"
	}
	cmd := exec.Command(args[0])
	var script *os.File
	if len(sp.Script) > bigScript {
		// Too long for one argument: the shell reads it from a pipe.
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("script pipe: %w", err)
		}
		script = w
		cmd.ExtraFiles = []*os.File{r}
		args = append(args, "/dev/fd/3")
	} else {
		args = append(args, "-c", sp.Script)
	}
	cmd.Args = args
	cmd.Env = sp.Env
	cmd.Dir = sp.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	p := newProcess(sp, name)
	cmd.Stdout = p.out
	cmd.Stderr = p.out
	cmd.WaitDelay = pipeGrace
	started := time.Now()
	err := cmd.Start()
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if err != nil {
		if script != nil {
			script.Close()
		}
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	if script != nil {
		go func() {
			defer script.Close()
			script.WriteString(sp.Script) // fails only if the shell ended first
		}()
	}
	p.pid = cmd.Process.Pid
	go p.supervise(ctx, cmd, &darwinTree{pid: p.pid}, sp, started)
	return p, nil
}

// seatbeltProfile allows everything but writes outside writable (and inside
// readOnly), reading or writing the hidden paths and, unless network, the
// network (UNIX sockets included).
func seatbeltProfile(writable, readOnly []string, hidden []hiddenPath, network bool) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n")
	for _, w := range writable {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(w))
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		fmt.Fprintf(&b, "  (literal %s)\n", sbplString(dev))
	}
	b.WriteString("  (regex #\"^/dev/fd/\"))\n")
	for _, ro := range readOnly {
		fmt.Fprintf(&b, "(deny file-write* (subpath %s))\n", sbplString(ro))
	}
	for _, h := range hidden {
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", sbplString(h.Path))
	}
	if !network {
		b.WriteString("(deny network*)\n")
	}
	return b.String()
}

// sbplString quotes s as a Seatbelt profile string.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// darwinTree is a command in its own session and process group.
type darwinTree struct{ pid int }

// waitExited waits for the leader's exit with kqueue, which does not reap.
func (d *darwinTree) waitExited() {
	kq, err := unix.Kqueue()
	for err != nil { // out of descriptors: returning would end the command
		time.Sleep(100 * time.Millisecond)
		kq, err = unix.Kqueue()
	}
	defer unix.Close(kq)
	ev := unix.Kevent_t{Ident: uint64(d.pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	for {
		_, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil)
		if err == nil {
			break
		}
		if errors.Is(err, unix.ESRCH) {
			return // it has exited already
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, nil, out, nil)
		if n > 0 || (err != nil && !errors.Is(err, unix.EINTR)) {
			return
		}
	}
}

func (d *darwinTree) signal(term bool) error {
	sig := unix.SIGKILL
	if term {
		sig = unix.SIGTERM
	}
	if err := unix.Kill(-d.pid, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", d.pid, err)
	}
	return nil
}

func (d *darwinTree) killRest() { _ = unix.Kill(-d.pid, unix.SIGKILL) }

func (d *darwinTree) status(cmd *exec.Cmd) (int, string) {
	st := cmd.ProcessState
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return st.ExitCode(), ""
}

func (d *darwinTree) release() {}
