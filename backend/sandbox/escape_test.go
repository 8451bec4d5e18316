//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"foya/backend/sandbox/sandboxtest"
	"foya/backend/testwait"
)

// nets are the test's own network end points, to see whether a command
// reached them.
type nets struct {
	*sandboxtest.Net
	dnsName string
}

func newNets(t *testing.T, dnsName string) *nets {
	return &nets{Net: sandboxtest.Listen(t), dnsName: dnsName}
}

func (n *nets) env() []string {
	return []string{
		"TCP_PORT=" + strconv.Itoa(n.TCPPort()),
		"UDP_PORT=" + strconv.Itoa(n.UDPPort()),
		"DNS_NAME=" + n.dnsName,
	}
}

// escape is one attempt to reach beyond the policy.
type escape struct {
	name   string
	setup  func(t *testing.T, b *box)
	script string
	// metadata marks a change of metadata only (mode, times), which Landlock
	// without namespaces cannot block (documented).
	metadata bool
	// quiet marks an attempt whose failure prints nothing that says why,
	// so Result.Denied cannot be expected.
	quiet bool
	// happened looks at the real file system or end point: did it work?
	happened func(b *box, n *nets, res Result) bool
}

func outsideFile(t *testing.T, b *box) { writeFile(t, filepath.Join(b.out, "existing"), "original\n") }

func outsideUnchanged(b *box, _ *nets, _ Result) bool {
	return readFile(filepath.Join(b.out, "existing")) != "original\n"
}

func created(rel ...string) func(b *box, _ *nets, _ Result) bool {
	return func(b *box, _ *nets, _ Result) bool {
		return exists(filepath.Join(append([]string{b.root}, rel...)...))
	}
}

func foyaState(t *testing.T, b *box) { writeFile(t, filepath.Join(b.foya, "state"), "kept\n") }

var oldTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

var escapes = []escape{
	{name: "write absolute path outside", script: `echo x > "$OUT/new"`, happened: created("out", "new")},
	{name: "append to outside file", setup: outsideFile, script: `echo x >> "$OUT/existing"`, happened: outsideUnchanged},
	{name: "dot-dot out of the workspace", script: `echo x > ../out/dotdot`, happened: created("out", "dotdot")},
	{
		name: "symlink in workspace to outside dir",
		setup: func(t *testing.T, b *box) {
			if err := os.Symlink(b.out, filepath.Join(b.ws, "link")); err != nil {
				t.Fatal(err)
			}
		},
		script: `echo x > link/via-symlink`, happened: created("out", "via-symlink"),
	},
	{
		name: "symlink in workspace to outside file",
		setup: func(t *testing.T, b *box) {
			outsideFile(t, b)
			if err := os.Symlink(filepath.Join(b.out, "existing"), filepath.Join(b.ws, "flink")); err != nil {
				t.Fatal(err)
			}
		},
		script: `echo x >> flink`, happened: outsideUnchanged,
	},
	{name: "hard link to outside file", setup: outsideFile, script: `ln "$OUT/existing" hl && echo x >> hl`, happened: outsideUnchanged},
	{name: "through /proc/self/root", script: `echo x > "/proc/self/root$OUT/via-proc"`, happened: created("out", "via-proc")},
	{
		name: "rename outside file into place",
		setup: func(t *testing.T, b *box) {
			writeFile(t, filepath.Join(b.out, "a"), "A\n")
			writeFile(t, filepath.Join(b.out, "b"), "B\n")
		},
		script:   `mv -f "$OUT/a" "$OUT/b"`,
		happened: func(b *box, _ *nets, _ Result) bool { return readFile(filepath.Join(b.out, "b")) == "A\n" },
	},
	{name: "move workspace file outside", script: `echo x > f && mv f "$OUT/moved"`, happened: created("out", "moved")},
	{
		name: "chmod outside file", setup: outsideFile, metadata: true, script: `chmod 0777 "$OUT/existing"`,
		happened: func(b *box, _ *nets, _ Result) bool {
			fi, err := os.Stat(filepath.Join(b.out, "existing"))
			return err == nil && fi.Mode().Perm() == 0o777
		},
	},
	{name: "touch new outside file", script: `touch "$OUT/touched"`, happened: created("out", "touched")},
	{
		name: "touch existing outside file",
		setup: func(t *testing.T, b *box) {
			outsideFile(t, b)
			if err := os.Chtimes(filepath.Join(b.out, "existing"), oldTime, oldTime); err != nil {
				t.Fatal(err)
			}
		},
		metadata: true, script: `touch "$OUT/existing"`,
		happened: func(b *box, _ *nets, _ Result) bool {
			fi, err := os.Stat(filepath.Join(b.out, "existing"))
			return err == nil && !fi.ModTime().Equal(oldTime)
		},
	},
	{name: "cp to outside", script: `echo x > src && cp src "$OUT/copied"`, happened: created("out", "copied")},
	{name: "tee to outside", script: `echo x | tee "$OUT/teed"`, happened: created("out", "teed")},
	{name: "dd to outside", script: `dd if=/dev/zero of="$OUT/dd" bs=1 count=1`, happened: created("out", "dd")},
	{name: "mkdir outside", script: `mkdir "$OUT/newdir"`, happened: created("out", "newdir")},
	{
		name: "delete outside file", setup: outsideFile, script: `rm -f "$OUT/existing"`,
		happened: func(b *box, _ *nets, _ Result) bool { return !exists(filepath.Join(b.out, "existing")) },
	},
	{
		name: "git config --global in an outside home", script: `HOME="$OUT" git config --global foya.test 1`,
		happened: created("out", ".gitconfig"),
	},
	{
		// Writing works, in a private /dev/shm: nothing to deny.
		name: "write the shared /dev/shm", quiet: true,
		script:   `echo x > "/dev/shm/$SHM_NAME"`,
		happened: func(b *box, _ *nets, _ Result) bool { return exists("/dev/shm/" + b.shm) },
	},
	{name: "create in .foya", script: `echo x > .foya/new`, happened: created("ws", ".foya", "new")},
	{
		name: "append to .foya file", setup: foyaState, script: `echo x >> .foya/state`,
		happened: func(b *box, _ *nets, _ Result) bool { return readFile(filepath.Join(b.foya, "state")) != "kept\n" },
	},
	{name: "rename into .foya", script: `echo x > f && mv f .foya/f`, happened: created("ws", ".foya", "f")},
	{
		name: "delete from .foya", setup: foyaState, script: `rm -f .foya/state`,
		happened: func(b *box, _ *nets, _ Result) bool { return !exists(filepath.Join(b.foya, "state")) },
	},
	{
		name: "rename .foya away", setup: foyaState, script: `mv .foya foya-moved`,
		happened: func(b *box, _ *nets, _ Result) bool { return !exists(filepath.Join(b.foya, "state")) },
	},
	{
		name: "chmod .foya file", setup: foyaState, metadata: true, script: `chmod 0777 .foya/state`,
		happened: func(b *box, _ *nets, _ Result) bool {
			fi, err := os.Stat(filepath.Join(b.foya, "state"))
			return err == nil && fi.Mode().Perm() == 0o777
		},
	},
	{
		name: "TCP connect to a host listener", script: `exec 3<>"/dev/tcp/127.0.0.1/$TCP_PORT" && echo connected`,
		happened: func(_ *box, n *nets, _ Result) bool { return n.TCPReached() },
	},
	{
		name: "UDP send to a host socket", quiet: true, script: `echo hello > "/dev/udp/127.0.0.1/$UDP_PORT"`,
		happened: func(_ *box, n *nets, _ Result) bool { return n.UDPReached() },
	},
	{
		name: "DNS lookup", quiet: true, script: `getent hosts "$DNS_NAME"`,
		happened: func(_ *box, _ *nets, res Result) bool { return res.ExitCode == 0 && len(res.Output) > 0 },
	},
}

// TestEscapes runs every attempt with the sandbox, where each must fail and
// leave no trace, and without it, where each must work (so that the
// attempts are real).
//
// spec: A1
// spec: A2
func TestEscapes(t *testing.T) {
	if len(escapes) < 20 {
		t.Fatalf("the escape suite has %d cases; want at least 20", len(escapes))
	}
	dnsName := sandboxtest.ResolvableName()
	modes := append([]mode{plainMode}, restrictedModes(t)...)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			for i, e := range escapes {
				t.Run(e.name, func(t *testing.T) {
					if strings.Contains(e.script, "DNS_NAME") && dnsName == "" {
						testwait.Missing(t, "DNS (no host name of GOPROXY resolves)", "the DNS lookup attempt")
					}
					if m == llMode && e.metadata {
						t.Skip("Landlock without namespaces cannot block metadata changes (documented limit)")
					}
					b := newBox(t)
					n := newNets(t, dnsName)
					if e.setup != nil {
						e.setup(t, b)
					}
					b.shm = fmt.Sprintf("foya-sandbox-test-%d-%d", os.Getpid(), i)
					t.Cleanup(func() { os.Remove("/dev/shm/" + b.shm) })
					res := b.run(t, m, e.script, append(n.env(), "SHM_NAME="+b.shm)...)
					did := e.happened(b, n, res)
					switch {
					case m.restricted && did:
						t.Errorf("%s under %s: the escape worked; want it blocked\nresult %+v\n%s", e.name, m.name, res, res.Output)
					case !m.restricted && !did:
						t.Errorf("%s without sandbox: nothing happened; want it to work (the case is not a real attempt)\nresult %+v\n%s", e.name, res, res.Output)
					case m.restricted && !e.quiet && !res.Denied:
						t.Errorf("%s under %s: Denied = false; want true\n%s", e.name, m.name, res.Output)
					case !m.restricted && res.Denied:
						t.Errorf("%s without sandbox: Denied = true; want false", e.name)
					}
				})
			}
		})
	}
}

// TestWorkspaceWorks checks that the sandbox leaves the workspace and the
// session folder fully usable, git included.
//
// spec: A2
func TestWorkspaceWorks(t *testing.T) {
	cases := []struct {
		name, script, want string
	}{
		{"write, rename, delete", `mkdir -p a/b && echo x > a/b/f && mv a/b/f a/g && cp a/g h && rm -r a && chmod 600 h && cat h`, "x\n"},
		{"git init and commit", `git init -q && git config user.email t@example.com && git config user.name T &&
			echo hello > f && git add f && git commit -qm first && git mv f g && git commit -qm second &&
			git log --format=%s | tr '\n' ' '`, "second first "},
		{"temp file in the session folder", `f=$(mktemp) && echo temp > "$f" && case "$f" in "$SESS"/*) cat "$f";; *) echo "elsewhere: $f";; esac`, "temp\n"},
		{"devices", `echo x > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c`, "4\n4\n"},
		{"read outside", `cat "$OUT/readme"`, "readable\n"},
		{"read .foya", `cat "$WS/.foya/state"`, "kept\n"},
		{"stdout and stderr through /dev", `echo out > /dev/stdout; echo err > /dev/stderr`, "out\nerr\n"},
		{"shared memory", `echo shm > /dev/shm/foya-private && cat /dev/shm/foya-private && rm /dev/shm/foya-private`, "shm\n"},
	}
	for _, m := range restrictedModes(t) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if m == llMode && c.name == "shared memory" {
						t.Skip("without namespaces /dev/shm is the host's, so it stays read-only")
					}
					b := newBox(t)
					writeFile(t, filepath.Join(b.out, "readme"), "readable\n")
					writeFile(t, filepath.Join(b.foya, "state"), "kept\n")
					dir := b.ws
					if m == llMode {
						// Without namespaces, the folders on the way to
						// .foya take no new entries (documented); work
						// one level down, as in a project's subfolder.
						dir = filepath.Join(b.ws, "sub")
						if err := os.Mkdir(dir, 0o755); err != nil {
							t.Fatal(err)
						}
					}
					res := b.runIn(t, m, dir, c.script)
					if res.ExitCode != 0 || string(res.Output) != c.want {
						t.Errorf("%s: exit %d, output %q; want exit 0, output %q", c.name, res.ExitCode, res.Output, c.want)
					}
					if res.Denied {
						t.Errorf("%s: Denied = true; want false", c.name)
					}
				})
			}
		})
	}
}

// TestLoopbackInsideNetns checks that a command whose network is cut can
// still serve and reach its own local servers (test suites do), while the
// host's loopback stays out of reach.
//
// spec: A2
func TestLoopbackInsideNetns(t *testing.T) {
	if !Probe().NetNS {
		testwait.Missing(t, lackUserNS(), "loopback inside the network namespace")
	}
	if !haveCommand("python3") {
		testwait.Missing(t, "python3 (Debian package python3)", "loopback inside the network namespace")
	}
	nsMode.use(t)
	b := newBox(t)
	script := `python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
c.sendall(b"pong"); print(a.recv(4).decode())'`
	res := b.run(t, nsMode, script)
	if res.ExitCode != 0 || string(res.Output) != "pong\n" {
		t.Errorf("local server in the sandbox: exit %d, output %q; want 0, %q", res.ExitCode, res.Output, "pong\n")
	}
}

// TestSeccompRefusesSockets checks the network cut of the mechanism without
// namespaces at the system call: an AF_INET socket is refused with EACCES,
// and so is an AF_UNIX one before Landlock ABI 9 (nothing else keeps it
// from other programs' sockets: the Docker daemon, the session bus,
// ssh-agent); socketpair works.
//
// spec: A2
func TestSeccompRefusesSockets(t *testing.T) {
	if Probe().Landlock == 0 {
		testwait.Missing(t, "Landlock", "the seccomp socket filter")
	}
	if !haveCommand("python3") {
		testwait.Missing(t, "python3 (Debian package python3)", "the seccomp socket filter")
	}
	llMode.use(t)
	b := newBox(t)
	script := `python3 -c '
import socket
for fam, kind in ((socket.AF_INET, socket.SOCK_STREAM), (socket.AF_INET6, socket.SOCK_DGRAM), (socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        socket.socket(fam, kind).close(); print(fam.name, "ok")
    except OSError as e:
        print(fam.name, e.strerror)
a, b = socket.socketpair(); print("socketpair ok")'`
	res := b.run(t, llMode, script)
	want := "AF_INET Permission denied\nAF_INET6 Permission denied\nAF_UNIX Permission denied\nsocketpair ok\n"
	if landlockABI() >= abiResolveUnix {
		want = "AF_INET Permission denied\nAF_INET6 Permission denied\nAF_UNIX ok\nsocketpair ok\n"
	}
	if string(res.Output) != want {
		t.Errorf("sockets under %s: %q; want %q", llMode.name, res.Output, want)
	}
}

// TestNoCapabilities checks that even root gets no capability in the
// namespaced sandbox, so that it cannot undo its mounts.
//
// spec: A2
func TestNoCapabilities(t *testing.T) {
	if !Probe().NetNS {
		testwait.Missing(t, lackUserNS(), "capabilities in the namespaced sandbox")
	}
	nsMode.use(t)
	b := newBox(t)
	res := b.run(t, nsMode, `grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status | tr -s '\t' ' '; mount -o remount,rw / 2>/dev/null && echo remounted; umount .foya 2>/dev/null && echo unmounted; echo end`)
	want := "CapEff: 0000000000000000\nCapBnd: 0000000000000000\nNoNewPrivs: 1\nend\n"
	if string(res.Output) != want {
		t.Errorf("capabilities in the sandbox: %q; want %q", res.Output, want)
	}
}
