package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// joinTools finds util-linux's nsenter and unshare, which start a command's
// helper in a Loopback's namespaces: a Go program cannot join a user
// namespace itself (setns refuses a process with more than one thread).
var joinTools = sync.OnceValues(func() ([2]string, error) {
	var tools [2]string
	for i, name := range []string{"nsenter", "unshare"} {
		p, err := exec.LookPath(name)
		if err != nil {
			return tools, fmt.Errorf("a shared loopback needs util-linux's %s: %w", name, err)
		}
		tools[i] = p
	}
	return tools, nil
})

// Descriptors of a Loopback's namespaces in a joining launcher.
const (
	joinUserFD = 5
	joinNetFD  = 6
)

// makeLoopback makes a user namespace (the runner's user mapped to itself,
// as for a command's own) with a network namespace whose loopback is up: a
// helper in mode modeLoopback makes them and waits; once the runner holds
// their descriptors it lets the helper end. A trial launch through
// nsenter and unshare checks that commands can join them.
func makeLoopback() (user, net *os.File, err error) {
	tools, err := joinTools()
	if err != nil {
		return nil, nil, err
	}
	cmd, status, err := helperCmd(&helperSpec{Mode: modeLoopback, Env: []string{}, Parent: helperParent()})
	if err != nil {
		return nil, nil, err
	}
	defer status.Close()
	attr := cmd.SysProcAttr
	attr.Pdeathsig = syscall.SIGKILL
	attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	holdR, holdW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("shared loopback: %w", err)
	}
	defer holdW.Close() // the helper ends when it reads the end of it
	cmd.Stdin = holdR
	err = onStarterThread(cmd.Start)
	holdR.Close()
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("shared loopback: start the helper: %w", err)
	}
	defer func() {
		holdW.Close()
		_ = cmd.Wait()
	}()
	if err := handshake(context.Background(), readStatus(status)); err != nil {
		_ = cmd.Process.Kill()
		if errors.Is(err, errNoWord) {
			err = errors.New("the helper ended without a word")
		}
		return nil, nil, fmt.Errorf("shared loopback: %w", err)
	}
	// The helper is not reaped before these are open: its PID names it.
	dir := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/"
	if user, err = os.Open(dir + "user"); err != nil {
		return nil, nil, fmt.Errorf("shared loopback: %w", err)
	}
	if net, err = os.Open(dir + "net"); err != nil {
		user.Close()
		return nil, nil, fmt.Errorf("shared loopback: %w", err)
	}
	// A trial: nsenter and unshare join them and make the namespaces a
	// command gets (nsenter --version stands for the helper).
	try := exec.Command(tools[0], joinArgs(tools, tools[0], "--version")[1:]...)
	try.Env = []string{}
	try.ExtraFiles = []*os.File{nil, nil, user, net}
	if out, err := try.CombinedOutput(); err != nil {
		user.Close()
		net.Close()
		return nil, nil, fmt.Errorf("shared loopback: nsenter cannot join it: %v: %s", err, out)
	}
	return user, net, nil
}

// joinArgs is the command line that runs exe with args in a Loopback's
// user and network namespaces (descriptors joinUserFD and joinNetFD), in
// new mount, PID and IPC namespaces, with exe as PID 1: nsenter joins
// them, unshare makes the others, forks exe and waits for it, killing it if
// unshare dies (so that the parent-death signal the runner arms still ends
// the command).
func joinArgs(tools [2]string, exe string, args ...string) []string {
	return append([]string{tools[0],
		"--user=/proc/self/fd/" + strconv.Itoa(joinUserFD), "--net=/proc/self/fd/" + strconv.Itoa(joinNetFD),
		"--preserve-credentials", "--",
		tools[1], "--mount", "--pid", "--ipc", "--fork", "--kill-child", "--propagation=unchanged", "--",
		exe}, args...)
}

// dupFile is a close-on-exec copy of f.
func dupFile(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("shared loopback: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// joinLoopback rewrites a helper's command of mode modeNS to start in l's
// namespaces; false (cmd untouched) when l cannot be used.
func joinLoopback(l *Loopback, cmd *exec.Cmd) bool {
	user, net, err := l.files() // copies: the launch closes its extra files
	if err != nil {
		return false
	}
	tools, _ := joinTools()
	args := joinArgs(tools, cmd.Path, cmd.Args[1:]...)
	cmd.Path, cmd.Args = args[0], args
	for len(cmd.ExtraFiles) < joinUserFD-3 {
		cmd.ExtraFiles = append(cmd.ExtraFiles, nil)
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles[:joinUserFD-3], user, net)
	attr := cmd.SysProcAttr
	attr.Cloneflags = 0
	attr.UidMappings, attr.GidMappings = nil, nil
	return true
}
