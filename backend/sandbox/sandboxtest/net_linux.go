package sandboxtest

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Net is a TCP listener and a UDP socket on 127.0.0.1 that a test owns.
type Net struct {
	TCP *net.TCPListener
	UDP *net.UDPConn
}

// Listen opens both end points; the test's cleanup closes them.
func Listen(t testing.TB) *Net {
	t.Helper()
	lc := net.ListenConfig{}
	lc.SetMultipathTCP(false)
	l, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	u, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return &Net{TCP: l.(*net.TCPListener), UDP: u}
}

// TCPPort and UDPPort are the end points' ports.
func (n *Net) TCPPort() int { return n.TCP.Addr().(*net.TCPAddr).Port }
func (n *Net) UDPPort() int { return n.UDP.LocalAddr().(*net.UDPAddr).Port }

// TCPReached reports whether a connection waits in the listener's queue:
// the kernel queues it before connect(2) returns to the command, so one
// look after the command ended is enough, and nothing waits for time.
func (n *Net) TCPReached() bool {
	raw, err := n.TCP.SyscallConn()
	if err != nil {
		return false
	}
	got := false
	raw.Control(func(fd uintptr) {
		nfd, _, err := unix.Accept4(int(fd), unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
		if err == nil {
			got = true
			unix.Close(nfd)
		}
	})
	return got
}

// UDPReached reports whether a datagram waits in the socket (loopback
// delivery is synchronous too).
func (n *Net) UDPReached() bool {
	raw, err := n.UDP.SyscallConn()
	if err != nil {
		return false
	}
	got := false
	raw.Control(func(fd uintptr) {
		buf := make([]byte, 64)
		_, _, err := unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
		got = err == nil
	})
	return got
}

// ResolvableName returns a host name this machine resolves through DNS
// (the configured Go module proxy's), or "" if there is none.
func ResolvableName() string {
	proxy := os.Getenv("GOPROXY")
	if proxy == "" {
		if out, err := exec.Command("go", "env", "GOPROXY").Output(); err == nil {
			proxy = strings.TrimSpace(string(out))
		}
	}
	for _, p := range strings.FieldsFunc(proxy, func(r rune) bool { return r == ',' || r == '|' }) {
		u, err := url.Parse(p)
		if err != nil || u.Hostname() == "" || net.ParseIP(u.Hostname()) != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		addrs, err := net.DefaultResolver.LookupHost(ctx, u.Hostname())
		cancel()
		if err == nil && len(addrs) > 0 {
			return u.Hostname()
		}
	}
	return ""
}
