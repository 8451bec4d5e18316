//go:build linux

package sandbox

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"foya/backend/sandbox/sandboxtest"
	"foya/backend/testwait"
)

// unixListener listens on a pathname socket at path and counts the
// connections it accepts, until the test ends.
type unixListener struct {
	path    string
	count   atomic.Int32
	settled chan struct{} // a probe of reached was accepted
}

// probeMark is what reached sends to mark the end of the connections to count.
const probeMark = "probe"

func listenUnix(t *testing.T, path string) *unixListener {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	u := &unixListener{path: path, settled: make(chan struct{}, 1)}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b := make([]byte, len(probeMark))
			n, _ := io.ReadFull(c, b)
			c.Close()
			if string(b[:n]) == probeMark {
				u.settled <- struct{}{}
				continue
			}
			u.count.Add(1)
		}
	}()
	t.Cleanup(func() { l.Close() })
	return u
}

// reached reports whether a command connected to the socket. A command's
// connect returns once the connection is queued, before the listener
// accepts it, so reached connects itself and waits until its own
// connection is accepted: the queue is first in, first out, so every
// connection made before it has been counted by then.
func (u *unixListener) reached(t *testing.T) bool {
	t.Helper()
	c, err := net.Dial("unix", u.path)
	if err != nil {
		t.Fatalf("probe the listener on %s: %v", u.path, err)
	}
	_, err = c.Write([]byte(probeMark))
	c.Close()
	if err != nil {
		t.Fatalf("probe the listener on %s: %v", u.path, err)
	}
	testwait.Receive(t, u.settled, "the listener to accept its probe on "+u.path)
	return u.count.Load() > 0
}

// connectScript connects to the pathname socket $1 and says what happened.
const connectScript = `python3 -c '
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1]); s.sendall(b"hello"); print("connected")
except OSError as e:
    print("refused:", e.strerror)' `

// TestUnixSocketsOutsideUnreachable: a confined command
// reaches no pathname UNIX socket outside the workspace and the session's
// temp folder, in every mechanism: not one in /tmp (X11, ssh-agent), nor in
// $XDG_RUNTIME_DIR (the session bus, Wayland, gpg-agent), nor in /run (the
// Docker daemon), nor one in a folder of its own elsewhere; without the
// sandbox each is reached.
//
// spec: A1, A2
func TestUnixSocketsOutsideUnreachable(t *testing.T) {
	if !haveCommand("python3") {
		testwait.Missing(t, "python3 (Debian package python3)", "UNIX sockets outside the workspace")
	}
	modes := append([]mode{plainMode}, restrictedModes(t)...)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			runtimeDir := sandboxtest.Dir(t) // outside /tmp: hidden as XDG_RUNTIME_DIR only
			places := map[string]string{
				"/tmp":            filepath.Join(t.TempDir(), "agent.sock"),
				"XDG_RUNTIME_DIR": filepath.Join(runtimeDir, "bus"),
				// A daemon's own folder, none of the usual ones.
				"elsewhere": filepath.Join(sandboxtest.Dir(t), "daemon.sock"),
			}
			if err := os.MkdirAll("/run", 0o755); err == nil {
				if dir, err := os.MkdirTemp("/run", "foya-test-"); err == nil {
					t.Cleanup(func() { os.RemoveAll(dir) })
					places["/run"] = filepath.Join(dir, "docker.sock")
				}
			}
			for where, path := range places {
				t.Run(where, func(t *testing.T) {
					u := listenUnix(t, path)
					b := newBox(t)
					res := b.run(t, m, connectScript+path, "XDG_RUNTIME_DIR="+runtimeDir)
					reached := u.reached(t)
					switch {
					case m.restricted && reached:
						t.Errorf("%s under %s: a socket in %s was reached; want it out of reach\n%s", where, m.name, where, res.Output)
					case !m.restricted && !reached:
						t.Errorf("%s without sandbox: not reached (%s); the case is not a real attempt", where, res.Output)
					}
				})
			}
		})
	}
}

// TestUnixSocketsInsideWorkspace pins the other side: a
// command may use the sockets of its workspace, one the test listens on and
// one it makes itself, where a mount namespace hides the others. Without one
// (landlock+seccomp, before Landlock ABI 9) no UNIX socket can be made at
// all, which the test states; socketpair works everywhere.
//
// spec: A2
func TestUnixSocketsInsideWorkspace(t *testing.T) {
	if !haveCommand("python3") {
		testwait.Missing(t, "python3 (Debian package python3)", "UNIX sockets inside the workspace")
	}
	for _, m := range restrictedModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			b := newBox(t)
			u := listenUnix(t, filepath.Join(b.ws, "app.sock"))
			res := b.run(t, m, connectScript+filepath.Join(b.ws, "app.sock")+`
python3 -c '
import socket
a, b = socket.socketpair(); a.sendall(b"x"); print("socketpair", b.recv(1).decode())
try:
    s = socket.socket(socket.AF_UNIX); s.bind("own.sock"); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect("own.sock"); print("own socket ok")
except OSError as e:
    print("own socket:", e.strerror)'`)
			out := string(res.Output)
			noUnix := m == llMode && landlockABI() < abiResolveUnix
			want := "connected\nsocketpair x\nown socket ok\n"
			if noUnix {
				want = "refused: Permission denied\nsocketpair x\nown socket: Permission denied\n"
			}
			if out != want {
				t.Errorf("workspace sockets under %s: %q; want %q", m.name, out, want)
			}
			if reached := u.reached(t); reached == noUnix {
				t.Errorf("workspace listener under %s: reached %v; want %v", m.name, reached, !noUnix)
			}
			if strings.Contains(out, "own socket ok") && !exists(filepath.Join(b.ws, "own.sock")) {
				t.Errorf("own socket not in the workspace")
			}
		})
	}
}

// TestBwrapSocketVanished pins a race of bubblewrap: a socket another
// program listens on, listed for the command, whose program removes it and
// its folder before bwrap has set up the sandbox, does not fail the
// command (bwrap would try to create it in the read-only tree and stop
// with "Can't mkdir parents"), and a socket that stays is still out of
// reach. The hook removes the socket between the listing and the launch.
//
// spec: A1, A2
func TestBwrapSocketVanished(t *testing.T) {
	if !haveCommand("python3") {
		testwait.Missing(t, "python3 (Debian package python3)", "UNIX sockets that vanish")
	}
	var modes []mode
	for _, m := range restrictedModes(t) {
		if m.force == bwrapMode.force || m.force == bwrapUserNSMode.force {
			modes = append(modes, m)
		}
	}
	if len(modes) == 0 {
		testwait.Missing(t, "bubblewrap (Debian package bubblewrap)", "UNIX sockets that vanish under bubblewrap")
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			dir := sandboxtest.Dir(t) // outside the socket folders
			gone := filepath.Join(dir, "daemon", "app.sock")
			if err := os.Mkdir(filepath.Dir(gone), 0o755); err != nil {
				t.Fatal(err)
			}
			l, err := net.Listen("unix", gone)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			stay := filepath.Join(dir, "stay.sock")
			u := listenUnix(t, stay)
			launches := 0
			bwrapListed = func(sp *spec) {
				launches++
				if launches > 1 {
					return
				}
				if !slices.Contains(sp.sockets, gone) || !slices.Contains(sp.sockets, stay) {
					t.Errorf("sockets listed: %q; want %s and %s among them", sp.sockets, gone, stay)
				}
				l.Close() // removes the socket
				if err := os.RemoveAll(filepath.Dir(gone)); err != nil {
					t.Error(err)
				}
			}
			t.Cleanup(func() { bwrapListed = nil })
			res := newBox(t).run(t, m, connectScript+stay)
			if res.ExitCode != 0 || !strings.HasPrefix(string(res.Output), "refused:") {
				t.Errorf("command under %s: exit %d, output %q; want exit 0 and the staying socket refused", m.name, res.ExitCode, res.Output)
			}
			if u.reached(t) {
				t.Errorf("under %s the staying socket was reached; want it out of reach", m.name)
			}
			if launches != 2 {
				t.Errorf("bwrap launched %d times; want 2 (the second with a fresh listing)", launches)
			}
		})
	}
}

// TestBwrapSetupFailureIsAnError pins the other end of the retry: a setup
// that bwrap keeps failing (a covered socket vanishes before every launch)
// is tried a bounded number of times, then is an ErrUnavailable error that
// quotes bwrap, never a result of a command that did not run.
func TestBwrapSetupFailureIsAnError(t *testing.T) {
	var modes []mode
	for _, m := range restrictedModes(t) {
		if m.force == bwrapMode.force {
			modes = append(modes, m)
		}
	}
	if len(modes) == 0 {
		testwait.Missing(t, "bubblewrap (Debian package bubblewrap)", "bubblewrap setup failures")
	}
	m := modes[0]
	m.use(t)
	b := newBox(t)
	launches := 0
	bwrapListed = func(sp *spec) {
		launches++
		sp.sockets = append(sp.sockets, filepath.Join(b.out, "gone", "app.sock"))
	}
	t.Cleanup(func() { bwrapListed = nil })
	_, err := Run(t.Context(), Command{Script: "echo ran", Dir: b.ws, Env: b.env(), Policy: b.policy(true)})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bwrap:") {
		t.Errorf("Run with a socket vanishing every time: %v; want ErrUnavailable quoting bwrap", err)
	}
	if launches != bwrapAttempts {
		t.Errorf("bwrap launched %d times; want %d", launches, bwrapAttempts)
	}
}
