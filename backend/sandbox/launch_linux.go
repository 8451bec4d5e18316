package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procLimit is the number of tasks (processes and threads) a namespaced
// command may have at once; a variable so that tests can bound a fork bomb
// more tightly.
var procLimit = 4096

// forceMode, when set by a test, replaces the mechanism Probe found:
// modeNS, modeLandlock, "bwrap", or "bwrap+userns" (bwrap in a user and PID
// namespace of the runner's own even for root, as it runs for other users).
var forceMode string

// helperParent returns the PID a helper must find as its parent; a
// variable so that a test can name another one.
var helperParent = os.Getpid

// bwrapListed, when set by a test, is called with the spec between the
// listing of the paths bwrap covers and each launch of bwrap.
var bwrapListed func(sp *spec)

// handshakeTimeout bounds the wait for the helper's first word.
const handshakeTimeout = 30 * time.Second

func start(ctx context.Context, sp *spec) (*Process, error) {
	if !sp.Policy.Restricted {
		return startPlain(ctx, sp)
	}
	mode := forceMode
	if mode == "" {
		c := Probe()
		switch c.Mechanism {
		case "landlock+netns":
			mode = modeNS
		case "landlock+seccomp":
			mode = modeLandlock
		case "bubblewrap":
			mode = "bwrap"
		default:
			return nil, fmt.Errorf("%w: %s", ErrUnavailable, c.Reason)
		}
	}
	switch mode {
	case "bwrap":
		return startBwrap(ctx, sp, bwrapOwnNS())
	case "bwrap+userns":
		return startBwrap(ctx, sp, syscall.CLONE_NEWUSER|syscall.CLONE_NEWPID)
	}
	return startHelper(ctx, sp, mode)
}

// startPlain runs the shell without any restriction, below the helper as
// its subreaper (see runReaper): Full Access means no sandbox, not
// processes that outlive their call.
func startPlain(ctx context.Context, sp *spec) (*Process, error) {
	return startHelper(ctx, sp, modePlain)
}

// startBwrap confines with bubblewrap: the same read-only mount tree as the
// namespaced helper, built by bwrap, which runs in the given new namespaces
// (see bwrapOwnNS).
//
// bwrap covers each listed socket (and hidden path) by its path, and makes
// a missing one in the read-only tree, which fails: when a program removed
// its socket between the listing and bwrap's setup, the setup fails and the
// command does not run. The launch is then tried again with a fresh listing,
// as the helper skips such a path: a path that exists at setup stays
// covered.
func startBwrap(ctx context.Context, sp *spec, cloneflags uintptr) (*Process, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("%w: bubblewrap: %v", ErrUnavailable, err)
	}
	for attempt := 1; ; attempt++ {
		if bwrapListed != nil {
			bwrapListed(sp)
		}
		p, err := launchBwrap(ctx, sp, bwrap, cloneflags)
		var se *setupError
		if err == nil || !errors.As(err, &se) || attempt == bwrapAttempts || !coveredVanished(sp) {
			return p, err
		}
		sp.sockets = otherSockets(sp.masks, sp.writable)
		sp.hidden = slices.DeleteFunc(sp.hidden, func(h hiddenPath) bool { return !lexists(h.Path) })
	}
}

// bwrapAttempts bounds the launches of one command under bubblewrap whose
// setup failed because a covered path vanished meanwhile.
const bwrapAttempts = 3

// coveredVanished reports whether a socket or hidden path that bwrap was to
// cover no longer exists.
func coveredVanished(sp *spec) bool {
	for _, s := range sp.sockets {
		if !lexists(s) {
			return true
		}
	}
	return slices.ContainsFunc(sp.hidden, func(h hiddenPath) bool { return !lexists(h.Path) })
}

func lexists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// bwrapReady is the first program bwrap runs in the sandbox, once it is set
// up: it says so on descriptor %d (a helper's status line), closes it, and
// executes the shell with the command's arguments. It runs as sh, which
// reads no start-up file, so that nothing runs twice.
const bwrapReady = `printf '{"ready":true}\n' >&%[1]d && exec %[1]d>&- && exec "$0" "$@"`

// launchBwrap starts the command under bwrap once, and waits until bwrap has
// set up the sandbox (bwrapReady), so that a setup failure is an error and
// never the command's own result.
func launchBwrap(ctx context.Context, sp *spec, bwrap string, cloneflags uintptr) (*Process, error) {
	args := []string{bwrap, "--die-with-parent", "--unshare-user-try", "--unshare-pid", "--unshare-ipc",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"}
	if !sp.Policy.Network {
		args = append(args, "--unshare-net")
	}
	args = append(args, bwrapMounts(sp)...)
	if sp.Dir != "" {
		args = append(args, "--chdir", sp.Dir)
	}
	cmd := exec.Command(bwrap)
	var script []string
	if len(sp.Script) > bigScript {
		fd, err := scriptMemfd(sp.Script)
		if err != nil {
			return nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(fd), "script"))
		script = []string{fmt.Sprintf("/dev/fd/%d", 2+len(cmd.ExtraFiles))}
	} else {
		script = []string{"-c", sp.Script}
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		for _, f := range cmd.ExtraFiles {
			f.Close()
		}
		return nil, fmt.Errorf("sandbox status pipe: %w", err)
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, statusW)
	sh, err := exec.LookPath("sh")
	if err != nil {
		sh = sp.shell
	}
	args = append(args, "--", sh, "-c", fmt.Sprintf(bwrapReady, 2+len(cmd.ExtraFiles)), sp.shell)
	cmd.Args = append(args, script...)
	cmd.SysProcAttr = bwrapAttr(cloneflags)
	// bwrap starts the shell itself, with every descriptor it got: mark
	// the runner's inherited ones close-on-exec first, as the helper does
	// for its shell (the script's and the status descriptors are placed by
	// ExtraFiles).
	closeInheritedOnExec()
	return launch(ctx, sp, cmd, "bubblewrap", statusR)
}

// setupError is a sandbox that bwrap could not set up: the command did not
// run.
type setupError struct {
	out string // what bwrap said
}

func (e *setupError) Error() string {
	return fmt.Sprintf("%v: bubblewrap could not set up the sandbox, the command did not run: %s", ErrUnavailable, e.out)
}

func (e *setupError) Unwrap() error { return ErrUnavailable }

// bwrapMounts are bwrap's arguments for the policy's folders: the socket
// folders under empty read-only file systems, the writable folders bound
// again (inside a hidden socket folder too), the read-only ones, and the
// hidden paths over them. bwrap applies them in this order.
func bwrapMounts(sp *spec) []string {
	var args []string
	for _, m := range sp.masks {
		args = append(args, "--tmpfs", m)
	}
	for _, w := range sp.writable {
		args = append(args, "--bind", w, w)
	}
	for _, m := range sp.masks {
		args = append(args, "--remount-ro", m)
	}
	for _, ro := range sp.readOnly {
		args = append(args, "--ro-bind", ro, ro)
	}
	for _, h := range sp.hidden {
		if h.Dir {
			args = append(args, "--tmpfs", h.Path, "--remount-ro", h.Path)
		} else {
			args = append(args, "--ro-bind", "/dev/null", h.Path)
		}
	}
	for _, s := range sp.sockets {
		args = append(args, "--ro-bind-try", "/dev/null", s)
	}
	return args
}

// bwrapOwnNS returns the clone flags of the new namespaces bwrap runs in,
// as their PID 1, found once: a PID namespace of the runner's own (in a
// user namespace too unless the runner is root and needs none), or 0 where
// bwrap cannot run so.
//
// bwrap's --die-with-parent alone does not hold: bwrap's init arms
// PR_SET_PDEATHSIG only at the end of the sandbox's setup, and its setup
// waits forever for a word from the outer bwrap, so when the runner dies
// while bwrap sets up (the outer bwrap dies with it), the sandbox lives on,
// reparented to the host's init. As PID 1 of a namespace whose parent-death
// signal Go arms before it executes bwrap, the outer bwrap takes everything
// below it with it when it dies, whatever state the setup is in.
var bwrapOwnNS = sync.OnceValue(func() uintptr {
	flags := []uintptr{syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID}
	if os.Geteuid() == 0 {
		// Root needs no user namespace: bwrap then runs as it would
		// without ours.
		flags = []uintptr{syscall.CLONE_NEWPID, syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID}
	}
	for _, f := range flags {
		attr := bwrapAttr(f)
		attr.Pdeathsig = 0 // not started from the starter thread
		if tryBwrap(attr) == nil {
			return f
		}
	}
	return 0
})

// bwrapAttr is how bwrap is started: in its own session, killed when the
// runner's starting thread ends, in the given new namespaces (CLONE_NEWUSER,
// CLONE_NEWPID) with the runner's user and group mapped to themselves.
func bwrapAttr(cloneflags uintptr) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: cloneflags}
	if cloneflags&syscall.CLONE_NEWUSER != 0 {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	return attr
}

// startHelper re-executes the current binary as the helper, which confines
// itself and then runs the shell.
func startHelper(ctx context.Context, sp *spec, mode string) (*Process, error) {
	hs := &helperSpec{
		Mode:      mode,
		Network:   sp.Policy.Network,
		Writable:  sp.writable,
		ReadOnly:  sp.readOnly,
		Hidden:    sp.hidden,
		Masks:     sp.masks,
		Sockets:   sp.sockets,
		Shell:     sp.shell,
		Script:    sp.Script,
		Dir:       sp.Dir,
		Env:       sp.Env,
		ProcLimit: procLimit,
		Parent:    helperParent(),
	}
	cmd, status, err := helperCmd(hs)
	if err != nil {
		return nil, err
	}
	if mode == modeNS && !sp.Policy.Network && sp.Policy.Loopback != nil {
		sp.joined = joinLoopback(sp.Policy.Loopback, cmd)
	}
	name := map[string]string{modeNS: "landlock+netns", modeLandlock: "landlock+seccomp", modePlain: "none"}[mode]
	if sp.Policy.Network && mode != modePlain {
		name = map[string]string{modeNS: "landlock+userns", modeLandlock: "landlock"}[mode]
	}
	return launch(ctx, sp, cmd, name, status)
}

// helperCmd prepares the helper's command: the spec in a memfd on
// descriptor 3, a status pipe on 4, namespaces per mode. The returned status
// reader belongs to the caller.
func helperCmd(hs *helperSpec) (*exec.Cmd, *os.File, error) {
	exe, err := helperExe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox helper: %w", err)
	}
	b, err := json.Marshal(hs)
	if err != nil {
		return nil, nil, fmt.Errorf("encode sandbox spec: %w", err)
	}
	specFile, err := memFile("foya-sandbox-spec", b)
	if err != nil {
		return nil, nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		specFile.Close()
		return nil, nil, fmt.Errorf("sandbox status pipe: %w", err)
	}
	cmd := exec.Command(exe, HelperArg)
	cmd.Dir = "/"
	// The helper gets the shell's environment, never the runner's own:
	// the command can read its helper's /proc/PID/environ.
	cmd.Env = append([]string{}, hs.Env...)
	cmd.ExtraFiles = []*os.File{specFile, statusW}
	// Without a PID namespace the helper is the command's subreaper: it
	// must live on when the runner dies, to kill the tree (runReaper).
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: killTreeSignal}
	if hs.Mode == modeNS {
		attr.Pdeathsig = syscall.SIGKILL
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
		if !hs.Network {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	return cmd, statusR, nil
}

// memFile returns a sealed in-memory file holding b, read from offset 0.
func memFile(name string, b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("memfd: %w", err)
	}
	return f, nil
}

// launch starts cmd with the common plumbing (combined output into the ring,
// stdin at end of file), waits for the helper's handshake when there is a
// status pipe, and hands the process to its supervisor.
func launch(ctx context.Context, sp *spec, cmd *exec.Cmd, name string, status *os.File) (*Process, error) {
	p := newProcess(sp, name)
	cmd.Stdout = p.out
	cmd.Stderr = p.out
	cmd.WaitDelay = pipeGrace
	if cmd.Env == nil {
		cmd.Env = sp.Env
	}
	if cmd.Dir == "" {
		cmd.Dir = sp.Dir
	}
	closeExtra := func() {
		for _, f := range cmd.ExtraFiles {
			f.Close()
		}
	}
	started := time.Now()
	err := onStarterThread(cmd.Start)
	closeExtra()
	if err != nil {
		if status != nil {
			status.Close()
		}
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p.pid = cmd.Process.Pid
	// A joined helper is PID 1 below unshare, which waits for it: once
	// unshare has exited, so has every process of the namespace.
	t := &groupTree{pid: p.pid, pidNS: cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWPID != 0 || sp.joined,
		reaper: cmd.SysProcAttr.Pdeathsig == killTreeSignal}
	if status != nil {
		msgs := readStatus(status)
		if err := handshake(ctx, msgs); err != nil {
			_ = t.signal(false)
			_ = cmd.Wait()
			if errors.Is(err, errNoWord) {
				err = noWord(name, cmd, p.out)
			}
			return nil, err
		}
		t.msgs = msgs
	}
	go p.supervise(ctx, cmd, t, sp, started)
	return p, nil
}

// readStatus decodes the helper's status lines until the pipe closes.
func readStatus(f *os.File) <-chan helperMsg {
	ch := make(chan helperMsg, 4)
	go func() {
		defer close(ch)
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var m helperMsg
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				ch <- m
			}
		}
	}()
	return ch
}

// errNoWord is handshake's error when the status pipe closed before a word.
var errNoWord = errors.New("no word on the status pipe")

// noWord is the error of a launch whose helper (or bwrap) exited without a
// word, with what it printed.
func noWord(name string, cmd *exec.Cmd, out *ring) error {
	said, _, _ := out.since(0)
	msg := strings.TrimSpace(string(said))
	if msg == "" {
		msg = fmt.Sprintf("it ended with %v", cmd.ProcessState)
	}
	if name == "bubblewrap" {
		return &setupError{out: msg}
	}
	return fmt.Errorf("%w: the sandbox helper exited without a word (%s); the program must call sandbox.HelperMain when its first argument is %s", ErrUnavailable, msg, HelperArg)
}

// handshake waits for the helper to say that the command is confined.
func handshake(ctx context.Context, msgs <-chan helperMsg) error {
	tm := time.NewTimer(handshakeTimeout)
	defer tm.Stop()
	select {
	case m, ok := <-msgs:
		switch {
		case !ok:
			return errNoWord
		case m.Error != "":
			return fmt.Errorf("%w: %s", ErrUnavailable, m.Error)
		case !m.Ready:
			return fmt.Errorf("%w: the sandbox helper answered out of turn", ErrUnavailable)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("start command: %w", ctx.Err())
	case <-tm.C:
		return fmt.Errorf("%w: the sandbox helper did not answer within %v", ErrUnavailable, handshakeTimeout)
	}
}

// groupTree is a command in its own session and process group; with a
// status channel, the leader is the helper that reports how the shell ended.
type groupTree struct {
	pid  int
	msgs <-chan helperMsg
	// pidNS is true when the leader is PID 1 of a PID namespace holding the
	// whole tree: once it has exited, every process of the tree is dead.
	pidNS bool
	// reaper is true when the leader is a helper that reaps and kills the
	// tree itself (runReaper): it is signalled alone, and asked to kill
	// with killTreeSignal; SIGKILL, which would leave its orphans to the
	// host, is the last resort when it does not end.
	reaper    bool
	hardKills int
	// reaped is true when a reaping helper exited on its own: it does so
	// only once it has no child left, so nothing of the tree is alive.
	reaped bool
}

// cldExited is CLD_EXITED of siginfo's si_code: the child called exit.
const cldExited = 1

func (g *groupTree) waitExited() {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, g.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			g.reaped = err == nil && g.reaper && info.Code == cldExited
			return
		}
	}
}

func (g *groupTree) signal(term bool) error {
	sig := unix.SIGKILL
	if term {
		sig = unix.SIGTERM
	}
	target := -g.pid
	if g.reaper && (term || g.hardKills == 0) {
		target = g.pid // it forwards to every descendant
		if !term {
			sig = killTreeSignal
		}
	}
	if !term {
		g.hardKills++
	}
	if err := unix.Kill(target, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", g.pid, err)
	}
	return nil
}

// killRest kills what is left of the group once the leader has exited (it
// is not reaped yet, so the group ID cannot have been reused), and waits
// until those processes are dead, at most a few seconds.
func (g *groupTree) killRest() {
	_ = unix.Kill(-g.pid, unix.SIGKILL)
	if g.pidNS {
		return // the kernel ended the namespace before the leader exited
	}
	if g.reaped {
		// The helper ended every descendant and reaped it before it
		// exited; one killed from outside (signalled) is checked below.
		return
	}
	var fds []unix.PollFd
	defer func() {
		for _, f := range fds {
			unix.Close(int(f.Fd))
		}
	}()
	scanProc(func(pid int, st procState) {
		if pid == g.pid || st.pgrp != g.pid || st.state == 'Z' {
			return
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			return
		}
		if again, ok := readProcState(pid, make([]byte, 512)); !ok || again.pgrp != g.pid { // reused meanwhile
			unix.Close(fd)
			return
		}
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	})
	deadline := time.Now().Add(5 * time.Second)
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if n <= 0 {
			continue
		}
		alive := fds[:0]
		for _, f := range fds {
			if f.Revents == 0 {
				alive = append(alive, f)
			} else {
				unix.Close(int(f.Fd))
			}
		}
		fds = alive
	}
}

// procState is what the runner reads of a process in /proc/pid/stat.
type procState struct {
	state   byte
	ppid    int
	pgrp    int
	threads int
}

// scanProc calls f for every process /proc lists, reading each stat file
// into one reused buffer: it runs after every command, so it must be cheap.
func scanProc(f func(pid int, st procState)) {
	d, err := os.Open("/proc")
	if err != nil {
		return
	}
	defer d.Close()
	buf := make([]byte, 512)
	for {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			pid, err := strconv.Atoi(name)
			if err != nil {
				continue
			}
			if st, ok := readProcState(pid, buf); ok {
				f(pid, st)
			}
		}
		if err != nil {
			return
		}
	}
}

// readProcState parses /proc/pid/stat: "pid (comm) state ppid pgrp ...".
func readProcState(pid int, buf []byte) (procState, bool) {
	path := strconv.AppendInt([]byte("/proc/"), int64(pid), 10)
	path = append(path, "/stat"...)
	fd, err := unix.Open(string(path), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return procState{}, false
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 {
		return procState{}, false
	}
	b := buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procState{}, false
	}
	var st procState
	field := 0 // 0 is the state, field 3 of proc(5)
	for _, w := range bytes.Fields(b[i+1:]) {
		switch field {
		case 0:
			st.state = w[0]
		case 1:
			st.ppid, _ = strconv.Atoi(string(w))
		case 2:
			st.pgrp, _ = strconv.Atoi(string(w))
		case 17:
			st.threads, _ = strconv.Atoi(string(w))
			return st, true
		}
		field++
	}
	return st, false
}

func (g *groupTree) status(cmd *exec.Cmd) (int, string) {
	code, sig := waitStatus(cmd.ProcessState)
	if g.msgs == nil {
		return code, sig
	}
	// The helper's own status is the shell's unless the helper itself was
	// killed; its last word says how the shell ended.
	for m := range g.msgs {
		if m.Exit != nil {
			code, sig = *m.Exit, ""
		} else if m.Signal != "" {
			code, sig = -1, m.Signal
		}
	}
	return code, sig
}

func (g *groupTree) release() {}

func waitStatus(st *os.ProcessState) (int, string) {
	if st == nil {
		return -1, ""
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return st.ExitCode(), ""
}

// starter runs functions on one goroutine locked to its OS thread for the
// life of the program; every command is started from it. The kernel sends
// PR_SET_PDEATHSIG when the thread that forked a child ends, not the
// process, and Go may end other threads.
var (
	starterOnce sync.Once
	starter     = make(chan func())
)

func onStarterThread(f func() error) error {
	starterOnce.Do(func() {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must live on
			for fn := range starter {
				fn()
			}
		}()
	})
	done := make(chan error, 1)
	starter <- func() { done <- f() }
	return <-done
}
