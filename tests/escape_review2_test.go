//go:build linux

package tests

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"foya/backend/testwait"
)

// The second outside review: forms of the escape classes (docs/security.md,
// "The review's classes and the tests that pin them") that the first
// review did not name. Most hold and guard against regressions; the
// inherited descriptor was a hole (a socket Foya holds open without
// close-on-exec reached every command, whatever the sandbox hid).

// leakedSocket gives the test process a connected unix socket whose other
// end is inherited by every program it starts (no close-on-exec, as a
// library or a launcher may leave one), and a check that something was
// written to it.
func leakedSocket(t *testing.T, b *escBox) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(fds[0])
	unix.SetNonblock(fds[0], true)
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	leaks.Store(b, fds[0])
}

func leakedReached(b *escBox, _ string) bool {
	v, ok := leaks.Load(b)
	if !ok {
		return false
	}
	n, _ := unix.Read(v.(int), make([]byte, 64))
	return n > 0
}

// writeEverySocketFD writes to every inherited descriptor above 2 that is a
// socket, found through /proc/self/fd and through /dev/fd.
const writeEverySocketFD = `for f in /proc/self/fd/* /dev/fd/*; do n=${f##*/}
[ "$n" -gt 2 ] && [ -S "$f" ] && { echo hello >&"$n"; echo hello > "$f"; } 2>/dev/null; done; echo tried`

// leaks holds, per attempt's box, the test's end of its leaked socket.
var leaks sync.Map // *escBox → int

const connectAbstract = `python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("\0" + sys.argv[1]); s.sendall(b"hello"); print("connected")' `

// listenAbstract starts a listener on an abstract unix socket.
func listenAbstract(t *testing.T, b *escBox) {
	name := fmt.Sprintf("@foya-esc-%d-%p", os.Getpid(), b)
	l, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	countAccepts(b, l)
	escWrite(t, filepath.Join(b.out, "where"), name[1:])
}

func inRun(t *testing.T, b *escBox) {
	dir, err := os.MkdirTemp("/run", "foya-esc-")
	if err != nil {
		testwait.Missing(t, "a writable /run ("+err.Error()+")", "a socket in /run")
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	listenFor(t, b, filepath.Join(dir, "system_bus_socket"))
}

var review2Attempts = []escapeAttempt{
	// Class 2: unix sockets and descriptors.
	{name: "an inherited socket descriptor", setup: leakedSocket, command: writeEverySocketFD, happened: leakedReached, everyMode: true},
	{name: "unix socket in /run (the system bus)", setup: inRun, command: connectTo + `"$(cat OUT/where)"`, happened: socketReached},
	{
		name: "unix socket in /run through a workspace symlink",
		setup: func(t *testing.T, b *escBox) {
			inRun(t, b)
			os.Symlink(escRead(filepath.Join(b.out, "where")), filepath.Join(b.ws, "bus"))
		},
		command: connectTo + `bus`, happened: socketReached,
	},
	{
		name:    "unix socket through the parent's /proc root",
		setup:   func(t *testing.T, b *escBox) { listenFor(t, b, filepath.Join(b.out, "cwd.sock")) },
		command: connectTo + `/proc/$PPID/root/OUT/cwd.sock`, happened: socketReached,
	},
	{name: "an abstract unix socket", setup: listenAbstract, command: connectAbstract + `"$(cat OUT/where)"`, happened: socketReached},
}

// review2DeleteAttempts: spellings of a permanent delete the first review
// did not name.
var review2DeleteAttempts = []escapeAttempt{
	del("find -exec /bin/rm {} +", `find . -name victim -exec /bin/rm {} +`),
	del("xargs -0 rm", `printf 'victim\0' | xargs -0 rm`),
	del("command -p rm", `command -p rm victim`),
	del("nice -n 5 rm", `nice -n 5 rm victim`),
	del("env -i rm", `env -i PATH=/usr/bin:/bin rm victim`),
	del("rm --", `rm -- victim`),
	del("/usr/bin/env rm", `/usr/bin/env rm victim`),
	asked("r=/bin/rm; $r", `r=/bin/rm; $r victim`),
	del(`"rm"`, `"rm" victim`),
	del(`\unlink`, `\unlink victim`),
	del("a here-document to sh", "sh <<'EOF'\nrm victim\nEOF"),
	del("perl unlink glob", `perl -e 'unlink glob "vic*"'`),
	del("python3 shutil.rmtree", `mkdir d && mv victim d/ && python3 -c "import shutil; shutil.rmtree('d')"`),
	del("node fs.rmSync", `node -e 'require("fs").rmSync("victim")'`),
	{name: "git clean -fdx behind cd", setup: gitInit, command: "cd . && git clean -fdx", happened: victimGone, permanentDelete: true},
	{name: "git -C . clean -f", setup: gitInit, command: `git -C . clean -f`, happened: victimGone, permanentDelete: true},
	del("shred -u behind a wrapper", `nice shred -u victim`),
	del("setpriv rm", `setpriv --reuid=0 rm victim`),
	del("sg root -c rm", `sg root -c 'rm victim'`),
}

// review2ProcessAttempts: other ways to outlive a call.
var review2ProcessAttempts = []escapeAttempt{
	daemonAttempt("a disowned job outlives its call", `sh -c 'touch ready; exec SLEEP' > /dev/null 2>&1 & disown`),
	daemonAttempt("a setsid -f daemon outlives its call", `setsid -f sh -c 'touch ready; exec SLEEP' > /dev/null 2>&1`),
	daemonAttempt("a process that leaves its group and ignores every catchable signal",
		`python3 -c '
import os, signal, sys
if os.fork(): sys.exit(0)
os.setsid()
if os.fork(): sys.exit(0)
for s in range(1, signal.NSIG):
    try: signal.signal(s, signal.SIG_IGN)
    except (OSError, ValueError): pass
open("ready", "w").close()
os.execvp("sleep", ["sleep", sys.argv[1]])' "$(echo SLEEP | cut -d" " -f2)" > /dev/null 2>&1 &`),
	daemonAttempt("forks that race the reaper",
		`for i in 1 2 3 4 5 6 7 8; do ( setsid sh -c '( touch ready; exec SLEEP ) &' & ) ; done > /dev/null 2>&1`),
}
