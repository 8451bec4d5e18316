//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"foya/backend/fspath"
	"foya/backend/testwait"
)

// TestDenialsInWords runs a command that the sandbox refuses each kind of
// thing, in every mechanism, and checks what the result says: the kind, the
// path or host, and a sentence. Without the sandbox the same commands
// report nothing.
//
// spec: A2
func TestDenialsInWords(t *testing.T) {
	cases := []struct {
		name, script string
		kind         DenialKind
		path         func(b *box) string
		host         string // "" for none; "*" for any (a mechanism may refuse the socket before a host is named)
		text         string
		node         bool
		landlockText string // the text under Landlock alone, when another: it covers no socket folder
	}{
		{name: "write outside", script: `echo x > "$OUT/f"`, kind: DeniedWrite,
			path: func(b *box) string { return filepath.Join(b.out, "f") }, text: "refused: outside the workspace"},
		{name: "write in a covered socket folder", script: `echo x > "$TMPOUT/f"`, kind: DeniedWrite, landlockText: "refused: outside the workspace",
			path: func(b *box) string { return filepath.Join(b.tmpOut, "f") }, text: "looks empty to commands"},
		{name: "write into .foya", script: `echo x > "$WS/.foya/new"`, kind: DeniedWrite,
			path: func(b *box) string { return filepath.Join(b.foya, "new") }, text: "stays read-only in the sandbox"},
		{name: "network", script: `exec 3<>/dev/tcp/127.0.0.1/9`, kind: DeniedNetwork, host: "127.0.0.1:9",
			text: "refused: the network is off for commands"},
		{name: "hidden path", script: `cat "$OUT/secret/key"`, kind: DeniedHidden,
			path: func(b *box) string { return filepath.Join(b.out, "secret", "key") }, text: "refused: the sandbox hides it"},
		{name: "socket", script: `node -e 'require("net").connect(process.argv[1]).on("connect", () => process.exit(0)).on("error", e => { console.error(e.message); process.exit(1) })' "$OUT/daemon.sock"`,
			kind: DeniedSocket, path: func(b *box) string { return filepath.Join(b.out, "daemon.sock") },
			text: "refused: other programs' sockets are out of reach", node: true},
	}
	for _, m := range append([]mode{plainMode}, restrictedModes(t)...) {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if c.node && !haveCommand("node") {
						testwait.Missing(t, "node (Debian package nodejs)", "a client that names the socket it could not reach")
					}
					text := c.text
					if c.landlockText != "" && m == llMode {
						text = c.landlockText
					}
					b := newBox(t)
					b.tmpOut = t.TempDir() // in /tmp, which the namespaced mechanisms cover
					if err := os.Mkdir(filepath.Join(b.out, "secret"), 0o700); err != nil {
						t.Fatal(err)
					}
					writeFile(t, filepath.Join(b.out, "secret", "key"), "KEY\n")
					listenUnix(t, filepath.Join(b.out, "daemon.sock"))
					pol := b.policy(m.restricted)
					pol.Hidden = []string{filepath.Join(b.out, "secret")}
					dir := b.ws
					if m == llMode {
						dir = filepath.Join(b.ws, "sub") // the folders on the way to .foya take no new entries
						os.Mkdir(dir, 0o755)
					}
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					res, err := Run(ctx, Command{Script: c.script, Dir: dir, Env: b.env("TMPOUT=" + b.tmpOut), Policy: pol})
					if err != nil {
						t.Fatal(err)
					}
					if !m.restricted {
						if len(res.Denials) > 0 {
							t.Errorf("without the sandbox: Denials = %+v; want none\n%s", res.Denials, res.Output)
						}
						return
					}
					if len(res.Denials) == 0 || !res.Denied {
						t.Fatalf("%s under %s: no denial (Denied %v)\n%s", c.name, m.name, res.Denied, res.Output)
					}
					d := res.Denials[0]
					t.Logf("%s: %s", m.name, d.Text)
					if d.Kind != c.kind {
						t.Errorf("%s under %s: kind %q; want %q\n%s", c.name, m.name, d.Kind, c.kind, res.Output)
					}
					if c.path != nil && d.Path != fspath.ResolveExisting(c.path(b)) {
						t.Errorf("%s under %s: path %q; want %q", c.name, m.name, d.Path, c.path(b))
					}
					if c.host == "" && d.Host != "" || c.host != "" && c.host != "*" && d.Host != c.host {
						t.Errorf("%s under %s: host %q; want %q", c.name, m.name, d.Host, c.host)
					}
					if !strings.Contains(d.Text, text) {
						t.Errorf("%s under %s: text %q; want it to say %q", c.name, m.name, d.Text, text)
					}
				})
			}
		})
	}
}

// TestHostIn pins the end points read from the network errors of common
// programs.
func TestHostIn(t *testing.T) {
	cases := []struct{ line, want string }{
		{"curl: (6) Could not resolve host: registry.example", "registry.example"},
		{"curl: (7) Failed to connect to 10.1.2.3 port 8080 after 0 ms: Couldn't connect to server", "10.1.2.3:8080"},
		{"fatal: unable to access 'https://git.example/x/y.git/': Could not resolve host: git.example", "git.example:443"},
		{"npm error request to https://registry.example/left-pad failed, reason: getaddrinfo EAI_AGAIN registry.example", "registry.example:443"},
		{"WARNING: Retrying ... NewConnectionError('<...>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/x/ HTTPSConnectionPool(host='pypi.example', port=443)", "pypi.example:443"},
		{`go: example.com/m@v1.0.0: Get "https://proxy.example/example.com/m/@v/v1.0.0.info": dial tcp: lookup proxy.example on 127.0.0.53:53: no such host`, "proxy.example:443"},
		{"dial tcp 192.0.2.1:5432: connect: network is unreachable", "192.0.2.1:5432"},
		{"bash: /dev/tcp/127.0.0.1/9: Connection refused", "127.0.0.1:9"},
		{"ssh: Could not resolve hostname git.example: Temporary failure in name resolution", "git.example"},
		{"Error: connect ECONNREFUSED 127.0.0.1:3000", "127.0.0.1:3000"},
		{"dial tcp [::1]:8080: connect: connection refused", "[::1]:8080"},
		{"bash: connect: Network is unreachable", ""},
	}
	for _, c := range cases {
		if got := hostIn(c.line); got != c.want {
			t.Errorf("hostIn(%q) = %q; want %q", c.line, got, c.want)
		}
	}
}

// TestDenialSentences pins the words of each kind.
func TestDenialSentences(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	cases := []struct {
		d    Denial
		want string
	}{
		{Denial{Kind: DeniedWrite, Path: filepath.Join(home, ".npm", "_cacache")}, "write to ~/.npm/_cacache refused: outside the workspace"},
		{Denial{Kind: DeniedNetwork, Host: "registry.example:443"}, "connection to registry.example:443 refused: the network is off for commands"},
		{Denial{Kind: DeniedNetwork}, "network connection refused: the network is off for commands"},
		{Denial{Kind: DeniedNetwork, Host: "[::1]:8080"}, "connection to [::1]:8080 refused: the network is off for commands " +
			"(the loopback reaches only servers this command or the session's background commands started; allowing the network reaches the others)"},
		{Denial{Kind: DeniedNetwork, Host: "localhost:3000"}, "connection to localhost:3000 refused: the network is off for commands " +
			"(the loopback reaches only servers this command or the session's background commands started; allowing the network reaches the others)"},
		{Denial{Kind: DeniedNetwork, Host: "127.0.0.1"}, "connection to 127.0.0.1 refused: the network is off for commands " +
			"(the loopback reaches only servers this command or the session's background commands started; allowing the network reaches the others)"},
		{Denial{Kind: DeniedOther}, "a write refused: the file system is read-only outside the workspace"},
	}
	for _, c := range cases {
		if got := describe(c.d); got != c.want {
			t.Errorf("describe(%+v) = %q; want %q", c.d, got, c.want)
		}
	}
}

// TestDenialCrowdedFolder: under Landlock alone, a new entry next to a
// read-only folder is refused (documented), and the denial says why and
// what to do, not that the file itself is read-only.
func TestDenialCrowdedFolder(t *testing.T) {
	if Probe().Landlock == 0 {
		testwait.Missing(t, "Landlock", "the folders on the way to a read-only one under Landlock alone")
	}
	llMode.use(t)
	b := newBox(t)
	res := b.run(t, llMode, `echo x > new-file`)
	if len(res.Denials) != 1 || !res.Denials[0].Protected || !strings.Contains(res.Denials[0].Text, "write in a subfolder") {
		t.Errorf("a new file next to .foya under Landlock alone: denials %+v\n%s", res.Denials, res.Output)
	}
}
