package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"foya/backend/fspath"
)

// HelperArg is the first argument that makes the program run [HelperMain]:
// confinement is applied in a re-executed copy of the current binary right
// before the shell starts.
const HelperArg = "__sandbox"

// DefaultTailBytes is the output kept when [Command.TailBytes] is zero.
const DefaultTailBytes = 64 << 10

// MaxTailBytes bounds [Command.TailBytes].
const MaxTailBytes = 256 << 20

// killGrace is the time between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// pipeGrace bounds the wait for output after the shell and its process group
// have ended (a process that left the group may still hold the pipe).
const pipeGrace = time.Second

// ErrUnavailable is returned by [Start] and [Run] for a restricted command
// when nothing on this machine can confine it; the wrapped message gives the
// reason. Callers then ask the user before running the command unrestricted.
var ErrUnavailable = errors.New("sandbox unavailable")

// Policy says what a command's processes may reach.
type Policy struct {
	// Restricted false means no sandbox at all (Full Access, or an approved
	// escalation); the other fields are then ignored.
	Restricted bool
	// Writable lists the absolute directories the process may write: the
	// workspace, the session's temp folder, folders the user granted.
	// Pathname UNIX sockets are reachable only below them: the usual
	// socket folders (/tmp, /var/tmp, /run, $XDG_RUNTIME_DIR) are hidden,
	// see the package documentation.
	Writable []string
	// ReadOnly lists absolute directories under Writable that stay
	// read-only (such as workspace/.foya). One that does not exist yet is
	// created empty while the command runs, so that the command cannot
	// create it with its own content, and removed once no command relies
	// on it (see holdReadOnly).
	ReadOnly []string
	// ReadOnlyIfExists lists more absolute directories or files under
	// Writable that stay read-only, but only if they exist when the command
	// starts: a missing one is not created (a .git folder, whose empty
	// stand-in would confuse git).
	ReadOnlyIfExists []string
	// Hidden lists absolute folders or files the command may not read
	// (credential stores, Foya's database and data folder): a folder looks
	// empty, a file empty, and neither can be written, even inside
	// Writable. Paths that do not exist are ignored, as is a folder that
	// holds a Writable one (hiding it would hide the workspace).
	Hidden []string
	// Network allows the network even when Restricted.
	Network bool
	// Loopback, when set and Network is not, is the network namespace the
	// command shares with the other commands naming it (a session's), so
	// that they reach each other's local servers; nil gives the command a
	// loopback of its own. Only the "landlock+netns" mechanism shares.
	Loopback *Loopback
}

// Command is one shell command to run.
type Command struct {
	// Script runs as `bash -c Script` (sh when there is no bash). Scripts of
	// more than 100 KiB are passed through a file descriptor instead.
	Script string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env is the environment; nil inherits the current one.
	Env    []string
	Policy Policy
	// Timeout ends the command's tree after this long; zero means none.
	Timeout time.Duration
	// TailBytes is how many bytes of combined stdout and stderr are kept
	// (a ring buffer); zero means DefaultTailBytes.
	TailBytes int
	// OnOutput, if set, is called at most every 100ms with the current tail
	// while the command runs, and once more when its output has ended if
	// anything changed since. Calls come from one goroutine, one at a time; a
	// slow callback delays the next call, never the command.
	OnOutput func(tail []byte)
}

// Result is how a command ended.
type Result struct {
	// ExitCode is the shell's exit status, or -1 if it was killed by a signal.
	ExitCode int
	// Signal names the signal that killed it ("SIGKILL"), empty otherwise.
	Signal   string
	Duration time.Duration
	// Output is the kept tail of the combined output. When bytes were
	// dropped it never starts inside a UTF-8 sequence; otherwise it holds
	// exactly what was printed, valid UTF-8 or not.
	Output []byte
	// TotalBytes and TotalLines count everything the command printed (a last
	// line without a newline counts as a line).
	TotalBytes, TotalLines int64
	// DroppedBytes and DroppedLines count exactly what Output leaves out:
	// DroppedBytes = TotalBytes - len(Output), and DroppedLines the lines that
	// ended before Output starts (a line cut in two counts as kept).
	DroppedBytes, DroppedLines int64
	// TimedOut is set when Timeout ended the command, Cancelled when the
	// context or Process.Kill did.
	TimedOut, Cancelled bool
	// Sandbox names the mechanism that confined the command ("none" when it
	// was not restricted); see the package documentation.
	Sandbox string
	// Denied is a best-effort hint that the sandbox blocked something: the
	// output reports a write refused on a path outside Writable (or inside
	// ReadOnly) that the user could otherwise write, a read-only file system,
	// a read of a Hidden path, a connection to another program's socket,
	// or a network failure while the network was cut. It is
	// len(Denials) > 0.
	Denied bool
	// Denials say what was refused, each in words (see Denial), at most
	// eight, in the order the output reports them.
	Denials []Denial
}

// Capability says what can confine commands on this machine.
type Capability struct {
	// Mechanism is what restricted commands will use (see the package
	// documentation); empty when nothing can confine them.
	Mechanism string
	// Landlock is the kernel's Landlock ABI version, 0 without Landlock.
	Landlock int
	// NetNS is true when unprivileged user and network namespaces work.
	NetNS bool
	// Bubblewrap is true when bwrap is installed and works.
	Bubblewrap bool
	// Reason explains an empty Mechanism, or the limits of the chosen one.
	Reason string
	// Weaker names, when not empty, what the chosen mechanism does not
	// guarantee that the others do, in words a user reads; callers ask
	// before each command there, so the person decides knowing it.
	Weaker string
}

// WeakerLandlock is Capability.Weaker for "landlock+seccomp": Landlock does
// not cover file attributes, and without a PID namespace processes that
// leave the command's group are not followed.
const WeakerLandlock = "chmod, chown and touch -d can still change files outside the workspace " +
	"(Landlock does not cover file attributes)"

// Run runs cmd to its end. The error is only for a command that could not
// start (bad input, no shell, no sandbox); a command that fails, times out or
// is cancelled is a Result.
func Run(ctx context.Context, cmd Command) (Result, error) {
	p, err := Start(ctx, cmd)
	if err != nil {
		return Result{}, err
	}
	<-p.Done()
	res, _ := p.Result()
	return res, nil
}

// Start starts cmd and returns at once. Cancelling ctx ends the command's
// whole tree, as do its Timeout and Process.Kill; background commands pass a
// context that lives as long as they may.
func Start(ctx context.Context, cmd Command) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start command: %w", err)
	}
	spec, err := prepare(cmd)
	if err != nil {
		return nil, err
	}
	p, err := start(ctx, spec)
	if err != nil {
		spec.release()
	}
	return p, err
}

// release drops the command's holds on its read-only folders.
func (sp *spec) release() {
	for _, r := range sp.held {
		r()
	}
	sp.held = nil
}

// spec is a validated Command with resolved paths.
type spec struct {
	Command
	shell    string   // absolute path of bash or sh
	writable []string // canonical
	readOnly []string // canonical directories and files, each inside some writable
	// held releases the holds on the Policy.ReadOnly folders (see
	// holdReadOnly), once the command is done or did not start.
	held   []func()
	hidden []hiddenPath
	// masks are the folders that keep other programs' UNIX sockets (see
	// socketFolders), hidden under an empty file system where there is a
	// mount namespace; the writable folders inside them stay visible.
	masks []string
	// sockets are the pathname UNIX sockets other programs listen on
	// outside masks and writable (see listeningSockets), each covered by an
	// empty file where there is a mount namespace.
	sockets []string
	// joined is set when the command's helper was started in its
	// Policy.Loopback's namespaces, below nsenter and unshare.
	joined bool
}

// hiddenPath is a canonical Policy.Hidden entry that exists.
type hiddenPath struct {
	Path string
	Dir  bool
}

const bigScript = 100 << 10

func prepare(cmd Command) (*spec, error) {
	if strings.TrimSpace(cmd.Script) == "" {
		return nil, errors.New("empty command: the script has nothing to run")
	}
	if strings.IndexByte(cmd.Script, 0) >= 0 {
		return nil, errors.New("invalid command: the script contains a NUL byte")
	}
	if cmd.Timeout < 0 {
		return nil, fmt.Errorf("invalid timeout %v: must not be negative", cmd.Timeout)
	}
	switch {
	case cmd.TailBytes < 0:
		return nil, fmt.Errorf("invalid TailBytes %d: must not be negative", cmd.TailBytes)
	case cmd.TailBytes > MaxTailBytes:
		return nil, fmt.Errorf("invalid TailBytes %d: at most %d", cmd.TailBytes, MaxTailBytes)
	case cmd.TailBytes == 0:
		cmd.TailBytes = DefaultTailBytes
	}
	for _, kv := range cmd.Env {
		if strings.IndexByte(kv, '=') <= 0 || strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("invalid environment entry %q: want NAME=value", kv)
		}
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if cmd.Dir != "" {
		fi, err := os.Stat(cmd.Dir)
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("working directory %s: not a directory", cmd.Dir)
		}
	}
	sp := &spec{Command: cmd}
	var err error
	if sp.shell, err = findShell(); err != nil {
		return nil, err
	}
	if !cmd.Policy.Restricted {
		return sp, nil
	}
	for _, dir := range cmd.Policy.Writable {
		canon, err := canonicalDir(dir)
		if err != nil {
			return nil, fmt.Errorf("writable directory: %w", err)
		}
		sp.writable = append(sp.writable, canon)
	}
	for _, dir := range cmd.Policy.ReadOnly {
		if !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("read-only directory %q: not an absolute path", dir)
		}
		dir = filepath.Clean(dir)
		// Only a directory inside a writable one matters: elsewhere the
		// command can neither create nor change it.
		if !fspath.WithinAny(sp.writable, fspath.ResolveExisting(dir)) {
			continue
		}
		canon, release, err := holdReadOnly(dir)
		if err != nil {
			sp.release()
			return nil, err
		}
		sp.held = append(sp.held, release)
		if fspath.WithinAny(sp.writable, canon) {
			sp.readOnly = append(sp.readOnly, canon)
		}
	}
	for _, p := range cmd.Policy.ReadOnlyIfExists {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("read-only path %q: not an absolute path", p)
		}
		canon, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // missing: nothing to keep
		}
		if fspath.WithinAny(sp.writable, canon) && !slices.Contains(sp.readOnly, canon) {
			sp.readOnly = append(sp.readOnly, canon)
		}
	}
	for _, p := range cmd.Policy.Hidden {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("hidden path %q: not an absolute path", p)
		}
		canon, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		fi, err := os.Stat(canon)
		if err != nil || canon == "/" {
			continue
		}
		if fi.IsDir() && slices.ContainsFunc(sp.writable, func(w string) bool { return fspath.WithinAny([]string{canon}, w) }) {
			continue // it holds the workspace or another writable folder
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			continue // a device or socket: nothing to read
		}
		if !slices.ContainsFunc(sp.hidden, func(h hiddenPath) bool { return h.Path == canon }) {
			sp.hidden = append(sp.hidden, hiddenPath{Path: canon, Dir: fi.IsDir()})
		}
	}
	sp.masks = socketFolders(cmd.Env, sp.writable)
	sp.sockets = otherSockets(sp.masks, sp.writable)
	// A hidden path inside a hidden socket folder is hidden already.
	sp.hidden = slices.DeleteFunc(sp.hidden, func(h hiddenPath) bool {
		return fspath.WithinAny(sp.masks, h.Path) && !fspath.WithinAny(sp.writable, h.Path)
	})
	return sp, nil
}

// otherSockets lists the listening sockets outside masks and writable.
func otherSockets(masks, writable []string) []string {
	var out []string
	for _, p := range listeningSockets() {
		if !fspath.WithinAny(masks, p) && !fspath.WithinAny(writable, p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// ListeningSockets returns the pathname UNIX sockets other programs listen
// on here now (see listeningSockets): callers that widen Policy.Writable
// check that a folder holds none, as a socket below Writable is reachable.
func ListeningSockets() []string { return listeningSockets() }

// listeningSockets returns the pathname UNIX sockets bound in this network
// namespace that exist here, as /proc/net/unix lists them: wherever a
// program keeps its socket (a daemon's folder, a home folder), the sandbox
// covers it. A socket bound after the command started is not in the list.
func listeningSockets() []string {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[7], "/") {
			continue // unbound, abstract (@...) or relative
		}
		p := strings.Join(f[7:], " ")
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			out = append(out, p)
		}
	}
	return out
}

// socketFolders lists the folders where programs keep their UNIX sockets on
// Linux systems: /tmp (X11, ssh-agent, tmux), /var/tmp, /run and
// /var/run (the Docker daemon, D-Bus, systemd, and /dev/log, which links
// into /run), and $XDG_RUNTIME_DIR (the session bus, Wayland, gpg-agent,
// PipeWire; usually inside /run). Each is canonical and exists; folders
// inside another are left out, and so is a folder inside a writable one
// (the user granted it).
func socketFolders(env, writable []string) []string {
	candidates := []string{"/tmp", "/var/tmp", "/run", "/var/run", os.TempDir(), os.Getenv("XDG_RUNTIME_DIR")}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_RUNTIME_DIR="); ok {
			candidates = append(candidates, v)
		}
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			candidates = append(candidates, v)
		}
	}
	var dirs []string
	for _, c := range candidates {
		if !filepath.IsAbs(c) {
			continue
		}
		canon, err := canonicalDir(c)
		if err != nil || canon == "/" || fspath.WithinAny(writable, canon) || slices.Contains(dirs, canon) {
			continue
		}
		dirs = append(dirs, canon)
	}
	slices.Sort(dirs) // a parent sorts before its children
	var out []string
	for _, d := range dirs {
		if !fspath.WithinAny(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func findShell() (string, error) {
	for _, name := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, nil
			}
		}
	}
	return "", errors.New("no shell: neither bash nor sh is in PATH")
}

// canonicalDir returns dir with symbolic links resolved, and checks that it
// is an existing directory.
func canonicalDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%q: not an absolute path", dir)
	}
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(canon)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s: not a directory", dir)
	}
	return canon, nil
}
