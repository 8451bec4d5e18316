//go:build linux

package shell

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/fspath"
	"foya/backend/sandbox/sandboxtest"
)

// memGrants is a Granter kept in memory, with one-command grants.
type memGrants struct {
	mu      sync.Mutex
	folders []string
	network bool
	once    map[string]Grants
}

func (m *memGrants) Grants(_ context.Context, _ string) (Grants, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := Grants{Folders: slices.Clone(m.folders), Network: m.network}
	for id, o := range m.once {
		g.Folders = append(g.Folders, o.Folders...)
		g.Network = g.Network || o.Network
		g.Once = append(g.Once, id)
	}
	return g, nil
}

func (m *memGrants) Spent(_ context.Context, _ string, ids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		delete(m.once, id)
	}
	return nil
}

// TestDeniedThenAllowed: a write outside the workspace and a connection are
// refused and said in words, with what the user may allow; allowed for the
// next command, the same command works once, then is refused again;
// allowed for the session, it works every time.
func TestDeniedThenAllowed(t *testing.T) {
	needSandbox(t)
	grants := &memGrants{once: map[string]Grants{}}
	b := newBox(t, Options{Granter: grants})
	n := sandboxtest.Listen(t)
	g := &gate{mode: approval.Auto}
	rc := b.rc("ses_1", g)
	cache := filepath.Join(b.out, "cache")
	write := fmt.Sprintf(`mkdir -p %q && echo x > %q/entry && echo wrote`, cache, cache)
	connect := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, n.TCPPort())

	run := func(cmd string) ([]event.Denial, string) {
		t.Helper()
		res := b.bash(t, rc, map[string]any{"command": cmd})
		return res.Denials, res.Text
	}
	ds, text := run(write)
	if len(ds) != 1 || ds[0].Kind != event.DenialWrite || ds[0].Allow != event.DenialWrite || ds[0].Folder != b.out {
		t.Fatalf("write outside: denials %+v; want one write denial offering %s\n%s", ds, b.out, text)
	}
	if !strings.Contains(text, ds[0].Text) || !strings.Contains(ds[0].Text, "refused: outside the workspace") {
		t.Errorf("write outside: the model is not told %q:\n%s", ds[0].Text, text)
	}
	ds, text = run(connect)
	if len(ds) != 1 || ds[0].Kind != event.DenialNetwork || ds[0].Allow != event.DenialNetwork ||
		ds[0].Host != fmt.Sprintf("127.0.0.1:%d", n.TCPPort()) && ds[0].Host != "" {
		t.Fatalf("connection: denials %+v; want one network denial\n%s", ds, text)
	}

	// Once: the next command only.
	grants.mu.Lock()
	grants.once["g1"] = Grants{Folders: []string{b.out}, Network: true}
	grants.mu.Unlock()
	if ds, text := run(write + "; " + connect); len(ds) != 0 || !strings.Contains(text, "wrote") || !strings.Contains(text, "connected") {
		t.Fatalf("allowed once: denials %+v\n%s", ds, text)
	}
	if !n.TCPReached() {
		t.Error("allowed once: the listener was not reached")
	}
	if ds, _ := run(write); len(ds) != 1 {
		t.Errorf("after the one command: denials %+v; want the write refused again", ds)
	}

	// For the session.
	grants.mu.Lock()
	grants.folders = []string{b.out}
	grants.mu.Unlock()
	for i := range 2 {
		if ds, text := run(write); len(ds) != 0 || !strings.Contains(text, "wrote") {
			t.Fatalf("allowed for the session, command %d: denials %+v\n%s", i+1, ds, text)
		}
	}
	if ds, _ := run(connect); len(ds) != 1 {
		t.Errorf("the network was not allowed for the session, yet denials %+v", ds)
	}
}

// TestCheckFolder: folders a grant may not make writable are refused with
// the reason; a folder of the user's is taken, resolved.
func TestCheckFolder(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	data := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	s := New(Options{Private: []string{data}, Database: []string{db}})
	defer s.Close()
	sockDir := filepath.Join(t.TempDir(), "daemon")
	if err := os.Mkdir(sockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(sockDir, "d.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bad := []struct{ folder, why string }{
		{"", "empty"},
		{"relative/dir", "not an absolute path"},
		{"/", "whole file system"},
		{"/etc", "system folder"},
		{"/usr/local/lib", "system folder"},
		{home, "home folder"},
		{filepath.Join(home, ".."), "file system|home folder"},
		{filepath.Join(home, ".ssh"), "credentials"},
		{filepath.Join(home, ".config"), "holds"},
		{data, "Foya's own data"},
		{filepath.Join(data, "sub"), "Foya's own data"},
		{filepath.Dir(data), "holds"},
		{filepath.Dir(db), "holds"},
		{"/tmp/x\x00y", "NUL"},
		{"/tmp", "sockets"},
		{"/run", "sockets"},
		{"/var", "sockets"},
		{sockDir, "another program's socket"},
	}
	for _, c := range bad {
		if got, err := s.CheckFolder(c.folder); err == nil || !containsOne(err.Error(), strings.Split(c.why, "|")) {
			t.Errorf("CheckFolder(%q) = %q, %v; want an error saying %q", c.folder, got, err, c.why)
		}
	}
	ok := filepath.Join(t.TempDir(), "cache", "new")
	if got, err := s.CheckFolder(ok); err != nil || got != fspath.ResolveExisting(ok) {
		t.Errorf("CheckFolder(%q) = %q, %v; want it taken", ok, got, err)
	}
}

// TestSuggestFolder pins the folder offered for a refused write.
func TestSuggestFolder(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	home = fspath.ResolveExisting(home)
	cases := []struct{ p, want string }{
		{filepath.Join(home, ".npm", "_cacache", "index-v5", "x"), filepath.Join(home, ".npm")},
		{filepath.Join(home, ".cache", "pip", "http", "x"), filepath.Join(home, ".cache", "pip")},
		{filepath.Join(home, ".local", "share", "pnpm", "store"), filepath.Join(home, ".local", "share", "pnpm")},
		{filepath.Join(home, "go", "pkg", "mod", "cache"), filepath.Join(home, "go")},
		{"/nonexistent-foya/a/b", "/nonexistent-foya/a"},
	}
	for _, c := range cases {
		if got := suggestFolder(c.p); got != c.want {
			t.Errorf("suggestFolder(%q) = %q; want %q", c.p, got, c.want)
		}
	}
}

func containsOne(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// TestBackgroundDenials: a background command's refusals are told by
// bash_output once it ended, in words, with what may be allowed.
func TestBackgroundDenials(t *testing.T) {
	needSandbox(t)
	b := newBox(t, Options{Granter: &memGrants{once: map[string]Grants{}}})
	rc := b.rc("ses_1", &gate{mode: approval.Auto})
	res := b.bash(t, rc, map[string]any{"command": fmt.Sprintf("echo x > %q/f", b.out), "run_in_background": true})
	if res.IsError || len(res.Denials) != 0 {
		t.Fatalf("start: %+v", res)
	}
	b.waitOutput(t, "ses_1", "bg1", "Status: exited")
	res = b.call(t, context.Background(), rc, OutputName, map[string]any{"id": "bg1"})
	if len(res.Denials) != 1 || res.Denials[0].Allow != event.DenialWrite || res.Denials[0].Folder != b.out ||
		!strings.Contains(res.Text, res.Denials[0].Text) {
		t.Errorf("bash_output after the end: denials %+v\n%s", res.Denials, res.Text)
	}
}
