package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"foya/backend/fspath"
)

// The helper's file descriptors, set up by the parent.
const (
	specFD   = 3 // a memfd holding the helperSpec as JSON
	statusFD = 4 // a pipe: helperMsg lines to the parent
)

// Helper modes.
const (
	modeNS       = "ns"       // in new user, mount, PID (and network) namespaces
	modeLandlock = "landlock" // no namespaces: Landlock and seccomp only
	modePlain    = "plain"    // no confinement: the helper only reaps (see runReaper)
	// modeLoopback: in new user and network namespaces, the helper brings
	// the loopback up, says so, and waits for the end of its stdin (see
	// makeLoopback).
	modeLoopback = "loopback"
)

// helperSpec is what the parent asks of the helper.
type helperSpec struct {
	Mode      string
	Network   bool
	Writable  []string
	ReadOnly  []string // directories and files
	Hidden    []hiddenPath
	Masks     []string
	Sockets   []string
	Shell     string
	Script    string
	Dir       string
	Env       []string
	ProcLimit int
	// DryRun confines and reports, then exits without running a shell
	// (Probe uses it).
	DryRun bool
	// Parent is the runner's process ID. A reaping helper whose parent is
	// another one by the time it handles killTreeSignal was orphaned
	// before: see runReaper.
	Parent int
}

// helperMsg is one line the helper writes on its status pipe: first Ready
// or Error, then (when the helper stays as PID 1) how the shell ended.
type helperMsg struct {
	Ready  bool   `json:"ready,omitempty"`
	Error  string `json:"error,omitempty"`
	Exit   *int   `json:"exit,omitempty"`
	Signal string `json:"signal,omitempty"`
}

// HelperMain is the entry point of the sandbox helper, to be called by the
// program when os.Args[1] == HelperArg, with the arguments after it; its
// result is the exit code. The parent passes the policy on inherited file
// descriptors; run by hand, HelperMain only prints an error.
// outputPipeSize is the size the helper asks for the output pipe.
const outputPipeSize = 1 << 20

func HelperMain(args []string) int {
	// Capabilities, no_new_privs and seccomp are per thread: everything
	// is set up on this one, which is never unlocked, and the shell is
	// started from it.
	runtime.LockOSThread()
	if _, err := unix.FcntlInt(statusFD, unix.F_GETFD, 0); err != nil {
		fmt.Fprintf(os.Stderr, "%s is internal: it is started by the sandbox runner, not by hand\n", HelperArg)
		return 2
	}
	unix.CloseOnExec(specFD)
	unix.CloseOnExec(statusFD)
	closeInheritedOnExec()
	// A larger pipe for the command's output (the runner reads the other
	// end) cuts the context switches of a big output several times; where
	// the kernel refuses (a per-user pipe limit), the default stays.
	unix.FcntlInt(1, unix.F_SETPIPE_SZ, outputPipeSize)
	status := os.NewFile(statusFD, "status")
	report := func(m helperMsg) {
		b, _ := json.Marshal(m)
		status.Write(append(b, '\n'))
	}
	fail := func(err error) int {
		report(helperMsg{Error: err.Error()})
		return 125
	}
	hs, err := readHelperSpec()
	if err != nil {
		return fail(err)
	}
	scriptFD := -1
	if !hs.DryRun && len(hs.Script) > bigScript {
		if scriptFD, err = scriptMemfd(hs.Script); err != nil {
			return fail(err)
		}
	}
	var confine func(*helperSpec) error
	switch hs.Mode {
	case modeNS:
		confine = confineNS
	case modeLandlock:
		confine = confineLandlock
	case modePlain:
		confine = func(*helperSpec) error { return nil }
	case modeLoopback:
		confine = func(*helperSpec) error { return loopbackUp() }
	default:
		return fail(fmt.Errorf("unknown sandbox mode %q", hs.Mode))
	}
	if err := confine(hs); err != nil {
		return fail(err)
	}
	report(helperMsg{Ready: true})
	if hs.DryRun {
		return 0
	}
	if hs.Mode == modeLoopback {
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	}
	argv := []string{hs.Shell, "-c", hs.Script}
	if scriptFD >= 0 {
		argv = []string{hs.Shell, "/dev/fd/" + strconv.Itoa(scriptFD)}
	}
	if hs.Mode != modeNS {
		// No PID namespace holds the tree together: the helper stays as
		// the command's subreaper instead.
		return runReaper(hs, argv, scriptFD, report)
	}
	return runInit(hs, argv, scriptFD, report)
}

// closeInheritedOnExec marks every descriptor above the standard three
// close-on-exec, so that the command gets only what the helper (or bwrap's
// runner) hands it. A
// descriptor Foya inherited or a library opened without close-on-exec (a
// connection to the session bus, to a display, to an agent) would otherwise
// reach every command, whatever the sandbox hides or refuses.
// close_range(2) does it in one call since Linux 5.11; before
// that, each open descriptor is marked.
func closeInheritedOnExec() {
	const closeRangeCloexec = 1 << 2 // CLOSE_RANGE_CLOEXEC
	if unix.CloseRange(3, ^uint(0), closeRangeCloexec) == nil {
		return
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

func readHelperSpec() (*helperSpec, error) {
	f := os.NewFile(specFD, "spec")
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
	if err != nil {
		return nil, fmt.Errorf("read sandbox spec: %w", err)
	}
	var hs helperSpec
	if err := json.Unmarshal(b, &hs); err != nil {
		return nil, fmt.Errorf("decode sandbox spec: %w", err)
	}
	return &hs, nil
}

// scriptMemfd puts a script too long for one argument into an in-memory
// file the shell can read through /dev/fd.
func scriptMemfd(script string) (int, error) {
	fd, err := unix.MemfdCreate("foya-script", unix.MFD_ALLOW_SEALING)
	if err != nil {
		return -1, fmt.Errorf("script memfd: %w", err)
	}
	for b := []byte(script); len(b) > 0; {
		n, err := unix.Write(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1, fmt.Errorf("write script: %w", err)
		}
		b = b[n:]
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		return -1, fmt.Errorf("seal script: %w", err)
	}
	return fd, nil
}

// startShell starts the shell as the helper's child, with the script as
// descriptor 3 when it came by memfd. When it cannot start, it reports exit
// code 127 and returns it with a nil process.
func startShell(hs *helperSpec, argv []string, scriptFD int, report func(helperMsg)) (*os.Process, int) {
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	if scriptFD >= 0 {
		unix.CloseOnExec(scriptFD) // the shell gets it as descriptor 3 only
		files = append(files, os.NewFile(uintptr(scriptFD), "script"))
		argv[1] = "/dev/fd/3"
	}
	shell, err := os.StartProcess(hs.Shell, argv, &os.ProcAttr{
		Dir:   hs.Dir,
		Env:   hs.Env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: start %s: %v\n", hs.Shell, err)
		code := 127
		report(helperMsg{Exit: &code})
		return nil, code
	}
	return shell, 0
}

// runInit starts the shell and stays as PID 1 of the command's PID
// namespace: it forwards termination signals to every process of the
// namespace, reaps orphans, and reports how the shell ended. When it exits,
// the kernel kills whatever is left in the namespace.
func runInit(hs *helperSpec, argv []string, scriptFD int, report func(helperMsg)) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT)
	shell, code := startShell(hs, argv, scriptFD, report)
	if shell == nil {
		return code
	}
	go func() {
		for sig := range sigs {
			unix.Kill(-1, sig.(syscall.Signal)) // every process of the namespace but us
		}
	}()
	if os.Getuid() == 0 && ownProc && !pidMaxSet {
		go watchProcesses(hs.ProcLimit)
	}
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: wait: %v\n", err)
			return 125
		}
		if pid != shell.Pid {
			continue // an orphan reparented to us
		}
		if ws.Signaled() {
			report(helperMsg{Signal: unix.SignalName(ws.Signal())})
			return 128 + int(ws.Signal())
		}
		code := ws.ExitStatus()
		report(helperMsg{Exit: &code})
		return code
	}
}

// In the helper: ownProc is true when /proc is the procfs of the command's
// own PID namespace, pidMaxSet when that namespace's pid_max bounds it.
var ownProc, pidMaxSet bool

// limitPIDs bounds the tasks of the command's PID namespace by its pid_max
// (per namespace since Linux 6.14; the kernel's minimum is 301). Unlike
// RLIMIT_NPROC it binds root too.
func limitPIDs(limit int) bool {
	for _, v := range []int{limit + 1, 301} {
		if os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.Itoa(v)), 0) == nil {
			return true
		}
	}
	return false
}

// watchProcesses is the last resort against a fork bomb of the host's root
// user on kernels without a per-namespace pid_max: the kernel exempts root
// from RLIMIT_NPROC, even inside a user namespace. Every 50ms it counts the
// processes of the namespace, and past the limit it ends them all. It is
// best effort: a bomb that starves the helper of CPU can outrun it.
func watchProcesses(limit int) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		f, err := os.Open("/proc")
		if err != nil {
			return
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		n := 0
		for _, name := range names {
			if name[0] >= '0' && name[0] <= '9' {
				n++
			}
		}
		if n > limit {
			fmt.Fprintf(os.Stderr, "sandbox: more than %d processes (a fork bomb?): the command was ended\n", limit)
			unix.Kill(-1, unix.SIGKILL)
		}
	}
}

// confineNS builds the command's view of the system inside the namespaces
// the parent created: a read-only mount tree with writable bind mounts for
// Writable and read-only ones for ReadOnly, the socket folders (Masks) and
// the Hidden paths under empty file systems, the loopback up in a private
// network namespace, a process limit, no capabilities, and Landlock on top.
func confineNS(hs *helperSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if !hs.Network {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	// Copies of the trees the command must see writable or read-only are
	// taken before the socket folders are hidden (the workspace may well
	// be inside /tmp), then put back in place, parents first.
	grafts := append(append([]string{}, hs.Writable...), hs.ReadOnly...)
	slices.SortStableFunc(grafts, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	fds := make([]int, len(grafts))
	for i, p := range grafts {
		fd, err := unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("bind mount %s: %w", p, err)
		}
		fds[i] = fd
	}
	for _, m := range hs.Masks {
		if err := unix.Mount("tmpfs", m, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
			return fmt.Errorf("hide the sockets of %s: %w", m, err)
		}
	}
	for i, p := range grafts {
		if err := mountPoint(p); err != nil {
			return fmt.Errorf("bind mount %s: %w", p, err)
		}
		if err := unix.MoveMount(fds[i], "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("bind mount %s: %w", p, err)
		}
		unix.Close(fds[i])
	}
	// Hidden paths are mounted over last: they may be inside Writable.
	// Other programs' sockets get an empty file each.
	var hidden []string
	all := slices.Clone(hs.Hidden)
	for _, p := range hs.Sockets {
		all = append(all, hiddenPath{Path: p})
	}
	for _, h := range all {
		var err error
		if h.Dir {
			err = unix.Mount("tmpfs", h.Path, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0700,size=4k")
		} else {
			err = unix.Mount("/dev/null", h.Path, "", unix.MS_BIND, "")
		}
		if errors.Is(err, unix.ENOENT) {
			continue // inside a hidden socket folder: hidden already
		}
		if err != nil {
			return fmt.Errorf("hide %s: %w", h.Path, err)
		}
		hidden = append(hidden, h.Path)
	}
	// A procfs of our own PID namespace: the command sees its own processes
	// only. Best effort: without it, it sees the host's (read-only).
	ownProc = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "") == nil
	if ownProc {
		pidMaxSet = limitPIDs(hs.ProcLimit)
	}
	// A private /dev/shm, so that shared memory works without writing a
	// folder other processes see.
	shm := false
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		shm = unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=25%") == nil
	}
	if err := setReadOnly("/", true); err != nil {
		return fmt.Errorf("make the file system read-only: %w", err)
	}
	for _, dir := range hs.Writable {
		if err := setReadOnly(dir, false); err != nil {
			return fmt.Errorf("make %s writable: %w", dir, err)
		}
	}
	if shm {
		if err := setReadOnly("/dev/shm", false); err != nil {
			return fmt.Errorf("make /dev/shm writable: %w", err)
		}
	}
	for _, p := range append(slices.Clone(hs.ReadOnly), hidden...) {
		if err := setReadOnly(p, true); err != nil {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: uint64(hs.ProcLimit), Max: uint64(hs.ProcLimit)}); err != nil {
		return fmt.Errorf("limit processes: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	rules := []landlock.Rule{landlock.RWDirs(hs.Writable...).WithRefer().WithResolveUnix()}
	if shm {
		rules = append(rules, landlock.RWDirs("/dev/shm"))
	}
	return restrictLandlock(true, []landlock.Rule{landlock.RODirs("/")}, rules)
}

// mountPoint makes sure p exists to be mounted on: a writable folder inside
// a hidden socket folder is made again in the empty file system there.
func mountPoint(p string) error {
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	return os.MkdirAll(p, 0o755)
}

// confineLandlock confines without namespaces: Landlock for files (with the
// ReadOnly and Hidden paths carved out), seccomp for the network and for
// UNIX sockets, and a best-effort process limit.
func confineLandlock(hs *helperSpec) error {
	var hidden []string
	for _, h := range hs.Hidden {
		hidden = append(hidden, h.Path)
	}
	reads := []landlock.Rule{landlock.RODirs("/")}
	if len(hidden) > 0 {
		c, err := carve([]string{"/"}, hidden)
		if err != nil {
			return err
		}
		reads = c.rules(llReadDir, llReadFile)
		if len(c.ways) > 0 {
			// Listing the folders on the way to a hidden path shows its
			// name, never its content.
			reads = append(reads, landlock.PathAccess(llsys.AccessFSReadDir, c.ways...))
		}
	}
	c, err := carve(hs.Writable, append(slices.Clone(hs.ReadOnly), hidden...))
	if err != nil {
		return err
	}
	writes := c.rules(llWriteDir, llWriteFile)
	if n := userTasks(); n >= 0 {
		limit := uint64(n + hs.ProcLimit)
		var cur unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NPROC, &cur) == nil && cur.Max < limit {
			limit = cur.Max
		}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: limit, Max: limit}); err != nil {
			return fmt.Errorf("limit processes: %w", err)
		}
	}
	abi := landlockABI()
	if err := restrictLandlock(hs.Network, reads, writes); err != nil {
		return err
	}
	// Root keeps its capabilities without a user namespace: with
	// CAP_SYS_PTRACE a command read Foya's /proc environ (the secrets the
	// filter keeps from its own environment), with CAP_DAC_OVERRIDE files
	// of other users. The shell gets none (a helper that is not root has
	// none to drop).
	if os.Geteuid() == 0 {
		if err := dropCapabilities(); err != nil {
			return err
		}
	}
	// From ABI 9 Landlock itself refuses connecting to a socket outside
	// Writable; before, no UNIX socket may be made at all (socketpair, a
	// system call of its own, still works).
	denyUnix := abi < abiResolveUnix
	if !hs.Network || denyUnix {
		return denySockets(hs.Network, denyUnix)
	}
	return nil
}

// abiResolveUnix is the first Landlock ABI that controls connecting to
// pathname UNIX sockets.
const abiResolveUnix = 9

// restrictLandlock applies the kernel's best Landlock ABI to the calling
// thread (not in best-effort mode, so that what is reported is what holds):
// reads as the read rules say, writes on the write rules and the harmless
// devices. The network rules are handled only when there is no other way to
// cut it. The caller must have locked its OS thread for good.
func restrictLandlock(networkElsewhere bool, reads, writes []landlock.Rule) error {
	cfg, ok := landlockConfig()
	if !ok {
		return errors.New("landlock is not available in this kernel")
	}
	if networkElsewhere {
		cfg.HandledAccessNet = 0
	}
	all := append(slices.Clone(reads),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty").
			WithIoctlDev().IgnoreIfMissing(),
	)
	all = append(all, writes...)
	// Only this thread is restricted, and the shell is started from it.
	// Restricting every thread (go-landlock's Restrict, before ABI 8) would
	// give each thread a domain of its own, and Landlock's signal scoping
	// would then forbid the helper's other threads to signal the shell.
	fd, flags, err := cfg.NewRulesetFD(all...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// landlockConfig is go-landlock's configuration of the kernel's Landlock
// ABI; false without Landlock.
func landlockConfig() (landlock.Config, bool) {
	abi := landlockABI()
	if abi < 1 {
		return landlock.Config{}, false
	}
	configs := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
		landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	return configs[min(abi, len(configs))-1], true
}

// landlockABI is the Landlock ABI version the kernel offers, downgraded as
// go-landlock does for kernels missing a known fix (0 without Landlock).
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0
	}
	if v >= 6 {
		errata, err := llsys.LandlockGetErrata()
		if err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}

// Landlock rights granted by carved rules: a folder's whole hierarchy, or
// one file.
const (
	llReadDir   = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
	llReadFile  = llsys.AccessFSExecute | llsys.AccessFSReadFile
	llWriteDir  = llReadDir | llsys.AccessFSWriteFile | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeChar | llsys.AccessFSMakeDir | llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo | llsys.AccessFSMakeBlock | llsys.AccessFSMakeSym | llsys.AccessFSTruncate | llsys.AccessFSRefer | llsys.AccessFSResolveUnix
	llWriteFile = llReadFile | llsys.AccessFSWriteFile | llsys.AccessFSTruncate
)

// carved is a grant on some roots minus the paths carved out of them.
type carved struct {
	dirs, files []string // granted whole
	// ways are the folders on the way to a carved-out path: they get no
	// right of their own, only their other entries do.
	ways []string
}

// rules turns c into Landlock rules granting dirRights on c.dirs and
// fileRights on c.files (less what the kernel's ABI does not know).
func (c carved) rules(dirRights, fileRights landlock.AccessFSSet) []landlock.Rule {
	if cfg, ok := landlockConfig(); ok {
		dirRights &= cfg.HandledAccessFS
		fileRights &= cfg.HandledAccessFS
	}
	var rules []landlock.Rule
	if len(c.dirs) > 0 {
		rules = append(rules, landlock.PathAccess(dirRights, c.dirs...))
	}
	if len(c.files) > 0 {
		rules = append(rules, landlock.PathAccess(fileRights, c.files...))
	}
	return rules
}

// carve grants the roots except the paths of except inside them. Landlock
// rules only add rights to whole hierarchies, so a directory on the way to
// an excepted path gets no right itself: its other entries get theirs one
// by one. Symbolic links are skipped, so that a link cannot extend the grant
// (what they point to is granted or not on its own), and so are special
// files on the way.
func carve(roots, except []string) (carved, error) {
	var c carved
	var walk func(dir string) error
	walk = func(dir string) error {
		if fspath.WithinAny(except, dir) {
			return nil
		}
		inner := false
		for _, ex := range except {
			if fspath.WithinAny([]string{dir}, ex) && ex != dir {
				inner = true
			}
		}
		if !inner {
			c.dirs = append(c.dirs, dir)
			return nil
		}
		c.ways = append(c.ways, dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("carve %s: %w", dir, err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case e.Type().IsRegular() && !fspath.WithinAny(except, p):
				c.files = append(c.files, p)
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r); err != nil {
			return carved{}, err
		}
	}
	return c, nil
}

// setReadOnly sets or clears the read-only flag of the mount at dir and of
// every mount below it.
func setReadOnly(dir string, ro bool) error {
	attr := &unix.MountAttr{}
	if ro {
		attr.Attr_set = unix.MOUNT_ATTR_RDONLY
	} else {
		attr.Attr_clr = unix.MOUNT_ATTR_RDONLY
	}
	err := unix.MountSetattr(unix.AT_FDCWD, dir, unix.AT_RECURSIVE, attr)
	if err == nil || ro {
		return err
	}
	// A mount below dir that was read-only before us stays so; clear the
	// flag on dir's own mount only.
	return unix.MountSetattr(unix.AT_FDCWD, dir, 0, attr)
}

// loopbackUp brings up the loopback interface of the new network namespace,
// so that the command can serve and reach its own local servers.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// dropCapabilities empties this thread's capability bounding and ambient
// sets, so that even root inside the user namespace gets no capability when
// it executes the shell.
func dropCapabilities() error {
	last := unix.CAP_LAST_CAP
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}

// userTasks counts the tasks (threads) of the real user, which
// RLIMIT_NPROC counts; -1 if /proc cannot tell. A process's /proc directory
// belongs to its effective user, close enough here.
func userTasks() int {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return -1
	}
	uid := uint32(os.Getuid())
	n := 0
	scanProc(func(pid int, st procState) {
		var fi unix.Stat_t
		if unix.Stat("/proc/"+strconv.Itoa(pid), &fi) == nil && fi.Uid == uid {
			n += max(st.threads, 1)
		}
	})
	return n
}
