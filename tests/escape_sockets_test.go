//go:build linux

package tests

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// socketHits counts, per attempt's box, the connections its listener took.
var socketHits sync.Map // *escBox → *atomic.Int32

// listenFor starts a listener on the pathname socket path for b's attempt
// and writes the path to OUT/where, from which the command reads it.
func listenFor(t *testing.T, b *escBox, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	countAccepts(b, l)
	escWrite(t, filepath.Join(b.out, "where"), path)
}

// countAccepts counts the connections l takes, as b's attempt's hits.
func countAccepts(b *escBox, l net.Listener) {
	hits := &atomic.Int32{}
	socketHits.Store(b, hits)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Read(make([]byte, 5))
			c.Close()
		}
	}()
}

func socketReached(b *escBox, _ string) bool {
	v, ok := socketHits.Load(b)
	return ok && v.(*atomic.Int32).Load() > 0
}

const connectTo = `python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1]); s.sendall(b"hello"); print("connected")' `

// socketAttempts: a sandboxed command connects to no
// pathname UNIX socket outside the workspace and the session's temp
// folder: not in /tmp (X11, ssh-agent), not in $XDG_RUNTIME_DIR (the session
// bus, Wayland), not in a daemon's folder elsewhere, whichever way it names
// the path.
var socketAttempts = []escapeAttempt{
	{
		name:    "unix socket in /tmp",
		setup:   func(t *testing.T, b *escBox) { listenFor(t, b, filepath.Join(t.TempDir(), "agent.sock")) },
		command: connectTo + `"$(cat OUT/where)"`, happened: socketReached,
	},
	{
		name: "unix socket in XDG_RUNTIME_DIR",
		setup: func(t *testing.T, b *escBox) {
			dir := filepath.Join(b.out, "runtime")
			os.Mkdir(dir, 0o700)
			t.Setenv("XDG_RUNTIME_DIR", dir)
			listenFor(t, b, filepath.Join(dir, "bus"))
		},
		command: connectTo + `"$(cat OUT/where)"`, happened: socketReached,
	},
	{
		name:    "unix socket in a daemon's folder",
		setup:   func(t *testing.T, b *escBox) { listenFor(t, b, filepath.Join(b.out, "daemon.sock")) },
		command: connectTo + `OUT/daemon.sock`, happened: socketReached,
	},
	{
		name: "unix socket through a symlink in the workspace",
		setup: func(t *testing.T, b *escBox) {
			listenFor(t, b, filepath.Join(t.TempDir(), "x.sock"))
			os.Symlink(escRead(filepath.Join(b.out, "where")), filepath.Join(b.ws, "link.sock"))
		},
		command: connectTo + `link.sock`, happened: socketReached,
	},
	{
		name:    "unix socket through /proc/self/root",
		setup:   func(t *testing.T, b *escBox) { listenFor(t, b, filepath.Join(b.out, "p.sock")) },
		command: connectTo + `/proc/self/root/OUT/p.sock`, happened: socketReached,
	},
	{
		name:     "unix socket in /tmp with perl",
		setup:    func(t *testing.T, b *escBox) { listenFor(t, b, filepath.Join(t.TempDir(), "nc.sock")) },
		command:  `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!\n"; print $s "hello"' "$(cat OUT/where)"`,
		happened: socketReached,
	},
}
