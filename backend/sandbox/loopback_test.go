//go:build linux

package sandbox

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"foya/backend/testwait"
)

// serveScript is a local server that prints its port, then answers every
// connection with "pong".
const serveScript = `exec python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print("port", s.getsockname()[1], flush=True)
while True:
    a, _ = s.accept(); a.sendall(b"pong"); a.close()'`

// askScript connects to the server on $PORT and prints its answer, or
// "refused".
const askScript = `python3 -c '
import os, socket
try:
    c = socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), timeout=5); print(c.recv(4).decode())
except OSError:
    print("refused")'`

// TestLoopbackShared checks that the commands naming one Loopback (a
// session's) share their network namespace, so that a server one of them
// started in the background is reachable by a later one, while commands
// naming another Loopback, or none, cannot reach it; and that closing it
// leaves no process behind.
//
// spec: A2
func TestLoopbackShared(t *testing.T) {
	if !Probe().NetNS {
		testwait.Missing(t, lackUserNS(), "a shared loopback")
	}
	if !haveCommand("python3") {
		testwait.Missing(t, "python3 (Debian package python3)", "a shared loopback")
	}
	if _, err := joinTools(); err != nil {
		testwait.Missing(t, "nsenter and unshare (Debian package util-linux)", "a shared loopback")
	}
	nsMode.use(t)
	b := newBox(t)
	mine, other := &Loopback{}, &Loopback{}
	t.Cleanup(func() { mine.Close(); other.Close() })
	policy := func(l *Loopback) Policy {
		p := b.policy(true)
		p.Loopback = l
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := func(l *Loopback, script string, env ...string) Result {
		t.Helper()
		res, err := Run(ctx, Command{Script: script, Dir: b.ws, Env: b.env(env...), Policy: policy(l)})
		if err != nil {
			t.Fatalf("Run(%q): %v", script, err)
		}
		if res.Sandbox != "landlock+netns" {
			t.Errorf("Run(%q): Sandbox = %q; want landlock+netns", script, res.Sandbox)
		}
		return res
	}

	server, err := Start(ctx, Command{Script: serveScript, Dir: b.ws, Env: b.env(), Policy: policy(mine)})
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, server, "\n")
	out, _, _ := server.Read(0)
	port, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(out), "port ")))
	if err != nil {
		t.Fatalf("the server printed %q; want its port", out)
	}
	for _, c := range []struct {
		name string
		l    *Loopback
		want string
	}{{"the same session", mine, "pong\n"}, {"another session", other, "refused\n"}, {"no session", nil, "refused\n"}} {
		res := run(c.l, askScript, "PORT="+strconv.Itoa(port))
		if string(res.Output) != c.want {
			t.Errorf("a command of %s asked the server: %q (exit %d); want %q", c.name, res.Output, res.ExitCode, c.want)
		}
	}
	// Each command still has its own mount and PID namespaces.
	ns := run(mine, `readlink /proc/self/ns/net /proc/self/ns/mnt; tr '\0' '\n' </proc/1/cmdline | sed -n 2p`)
	ns2 := run(mine, `readlink /proc/self/ns/net /proc/self/ns/mnt; tr '\0' '\n' </proc/1/cmdline | sed -n 2p`)
	l1, l2 := strings.Fields(string(ns.Output)), strings.Fields(string(ns2.Output))
	hostMnt, _ := os.Readlink("/proc/self/ns/mnt")
	hostNet, _ := os.Readlink("/proc/self/ns/net")
	if len(l1) != 3 || len(l2) != 3 || l1[0] != l2[0] || l1[0] == hostNet || l1[1] == hostMnt || l2[1] == hostMnt ||
		l1[2] != HelperArg || l2[2] != HelperArg {
		t.Errorf("two commands of one session: %q and %q; want the same network namespace (not the host's %s), "+
			"mount namespaces not the host's (%s), and PID namespaces of their own with the helper as PID 1", l1, l2, hostNet, hostMnt)
	}

	// Cancelling a command in the shared namespace ends its whole tree.
	server.Kill()
	waitDone(t, server, "Kill")
	if res, _ := server.Result(); !res.Cancelled {
		t.Errorf("the server after Kill: %+v; want cancelled", res)
	}
	if left := tasksWhere(func(_ int, _ []string, cl string) bool { return strings.Contains(cl, "print(\"port\"") }); len(left) > 0 {
		t.Errorf("the server lives on after Kill: %v", left)
	}
	// No process holds the namespaces: nothing of ours is left running.
	me := strconv.Itoa(os.Getpid())
	if left := tasksWhere(func(_ int, st []string, _ string) bool { return st[1] == me && st[0] != "Z" }); len(left) > 0 {
		t.Errorf("processes of the test left after its commands ended: %v", left)
	}
	if err := mine.Close(); err != nil {
		t.Fatal(err)
	}
	// A closed Loopback gives each command a namespace of its own again.
	res := run(mine, askScript, "PORT="+strconv.Itoa(port))
	if string(res.Output) != "refused\n" {
		t.Errorf("after Close: %q; want refused", res.Output)
	}
}
