package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// bashCall is a scripted bash call of cmd.
func bashCall(id, cmd string, more ...any) pt.Call {
	a := map[string]any{"command": cmd}
	for i := 0; i+1 < len(more); i += 2 {
		a[more[i].(string)] = more[i+1]
	}
	args, _ := json.Marshal(a)
	return call(id, "bash", string(args))
}

// callResults returns the results of a run's calls by ID.
func callResults(t *testing.T, h *harness, run kernel.Run) map[string]*kernel.ToolResult {
	t.Helper()
	calls, err := h.k.Calls(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*kernel.ToolResult{}
	for _, c := range calls {
		if c.Result == nil {
			t.Fatalf("call %s has no result", c.ID)
		}
		out[c.ID] = c.Result
	}
	return out
}

// endDenials returns the denials the tool.end event of call id carried.
func endDenials(t *testing.T, h *harness, id string) []event.Denial {
	t.Helper()
	for _, ev := range h.eventList() {
		if ev.Type != event.TypeToolEnd {
			continue
		}
		var d event.ToolEndData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.ID == id {
			return d.Denials
		}
	}
	t.Fatalf("no tool.end for %s", id)
	return nil
}

// TestSandboxDenialsExplainedThenAllowed: each kind of refusal (a write
// outside the workspace, a network connection, a hidden credential, another
// program's socket) is said in words to the model (the result's text) and
// on the card (tool.end's denials), with what the user may allow; the
// write and the network, allowed for the session, then work for the same
// commands, the files still confined elsewhere; revoked, they are refused
// again. What may not be allowed is refused with the reason.
//
// spec: A1, A2
func TestSandboxDenialsExplainedThenAllowed(t *testing.T) {
	needSandbox(t)
	b := newEscBox(t, "")
	fakeHome(t, b)
	home := os.Getenv("HOME")
	// The socket is in a folder of its own: a folder holding one is never
	// made writable (see bad input below).
	sockets := filepath.Join(filepath.Dir(b.out), "sockets")
	if err := os.Mkdir(sockets, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(sockets, "daemon.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	cache := filepath.Join(b.out, "cache")
	write := fmt.Sprintf(`mkdir -p %q && echo x > %q/entry && echo wrote`, cache, cache)
	connect := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, b.TCPPort())
	elsewhere := fmt.Sprintf(`echo x > %q`, filepath.Join(filepath.Dir(b.out), "elsewhere"))
	turn := func(prefix string) pt.Turn {
		return pt.Calls(bashCall(prefix+"write", write), bashCall(prefix+"connect", connect), bashCall(prefix+"elsewhere", elsewhere))
	}
	node := ""
	if _, err := exec.LookPath("node"); err == nil {
		node = `node -e 'require("net").connect(process.argv[1]).on("connect", () => process.exit(0)).on("error", e => { console.error(e.message); process.exit(1) })' ` + sock
	}
	first := []pt.Call{bashCall("write", write), bashCall("connect", connect), bashCall("hidden", `cat ~/.ssh/id_rsa`)}
	if node != "" {
		first = append(first, bashCall("socket", node))
	}
	h := newHarness(t, nil, pt.Calls(first...), pt.Say("ok"), turn("2"), pt.Say("ok"), turn("3"), pt.Say("ok"))
	ctx := context.Background()
	sess := h.k
	s, err := sess.CreateSession(ctx, kernel.NewSession{Workdir: b.ws, ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}

	// 1. Refused, in words.
	res := callResults(t, h, h.runIn(ctx, s.ID, "go"))
	want := []struct {
		id, kind, allow, text string
	}{
		{"write", event.DenialWrite, event.DenialWrite, "write to " + cache + " refused: outside the workspace"},
		{"connect", event.DenialNetwork, event.DenialNetwork, "refused: the network is off for commands"},
		{"hidden", event.DenialHidden, "", "read of ~/.ssh/id_rsa refused: the sandbox hides it"},
		{"socket", event.DenialSocket, "", "connection to the socket " + sock + " refused"},
	}
	for _, w := range want {
		if w.id == "socket" && node == "" {
			testwait.Missing(t, "node (Debian package nodejs)", "a client that names the socket it could not reach")
			continue
		}
		ds := endDenials(t, h, w.id)
		if len(ds) == 0 {
			t.Errorf("%s: no denial on the card\n%s", w.id, res[w.id].Text)
			continue
		}
		d := ds[0]
		if d.Kind != w.kind || d.Allow != w.allow || !strings.Contains(d.Text, strings.Replace(w.text, home, "~", 1)) {
			t.Errorf("%s: denial %+v; want kind %s, allow %q, text with %q", w.id, d, w.kind, w.allow, w.text)
		}
		if !strings.Contains(res[w.id].Text, d.Text) {
			t.Errorf("%s: the model is not told %q:\n%s", w.id, d.Text, res[w.id].Text)
		}
		if len(res[w.id].Denials) == 0 {
			t.Errorf("%s: the stored result has no denials", w.id)
		}
	}
	offered := endDenials(t, h, "write")[0].Folder

	// 2. Bad input: refused with the reason, nothing stored.
	bad := []struct {
		a    kernel.SandboxAllow
		want string
	}{
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: "/"}, "whole file system"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: home}, "home folder"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: filepath.Join(home, ".ssh")}, "credentials"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: filepath.Dir(h.db)}, "Foya's own data"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: h.k.Info().DataDir}, "Foya's own data"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: "/etc"}, "system folder"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: "/tmp"}, "keep their sockets"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: sockets}, "another program's socket"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: "relative"}, "not an absolute path"},
		{kernel.SandboxAllow{Kind: kernel.SandboxWrite}, "empty folder"},
		{kernel.SandboxAllow{Kind: "everything"}, "unknown sandbox grant kind"},
		{kernel.SandboxAllow{Kind: kernel.SandboxNetwork, Folder: b.out}, "names no folder"},
	}
	for _, c := range bad {
		_, err := h.k.AllowSandbox(ctx, s.ID, c.a)
		if !errors.Is(err, kernel.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AllowSandbox(%+v) = %v; want invalid, saying %q", c.a, err, c.want)
		}
	}
	if _, err := h.k.AllowSandbox(ctx, "ses_missing", kernel.SandboxAllow{Kind: kernel.SandboxNetwork}); !kernel.IsNotFound(err) {
		t.Errorf("AllowSandbox of a missing session = %v; want not found", err)
	}
	if gs, err := h.k.SandboxGrants(ctx, s.ID); err != nil || len(gs) != 0 {
		t.Fatalf("after bad input: grants %+v, %v; want none", gs, err)
	}

	// 3. Allowed for the session: the folder the card offered, the network.
	wg, err := h.k.AllowSandbox(ctx, s.ID, kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: offered})
	if err != nil {
		t.Fatal(err)
	}
	ng, err := h.k.AllowSandbox(ctx, s.ID, kernel.SandboxAllow{Kind: kernel.SandboxNetwork})
	if err != nil {
		t.Fatal(err)
	}
	if gs, _ := h.k.SandboxGrants(ctx, s.ID); len(gs) != 2 || gs[0].Text == "" || gs[1].Text == "" {
		t.Fatalf("grants %+v; want the two, said in words", gs)
	}
	res = callResults(t, h, h.runIn(ctx, s.ID, "again"))
	if !strings.Contains(res["2write"].Text, "wrote") || len(res["2write"].Denials) != 0 || escRead(filepath.Join(cache, "entry")) != "x\n" {
		t.Errorf("allowed write: %+v", res["2write"])
	}
	if !strings.Contains(res["2connect"].Text, "connected") || !b.TCPReached() {
		t.Errorf("allowed network: %+v", res["2connect"])
	}
	if len(res["2elsewhere"].Denials) == 0 || pathExists(filepath.Join(filepath.Dir(b.out), "elsewhere")) {
		t.Errorf("a folder next to the allowed one became writable: %+v", res["2elsewhere"])
	}

	// 4. Revoked: refused again.
	for _, id := range []int64{wg.ID, ng.ID} {
		if err := h.k.RevokeSandbox(ctx, s.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.k.RevokeSandbox(ctx, s.ID, wg.ID); !kernel.IsNotFound(err) {
		t.Errorf("revoking a grant twice = %v; want not found", err)
	}
	os.Remove(filepath.Join(cache, "entry"))
	res = callResults(t, h, h.runIn(ctx, s.ID, "after revoke"))
	if len(res["3write"].Denials) == 0 || pathExists(filepath.Join(cache, "entry")) {
		t.Errorf("revoked write still allowed: %+v", res["3write"])
	}
	if len(res["3connect"].Denials) == 0 {
		t.Errorf("revoked network still allowed: %+v", res["3connect"])
	}
}

// TestSandboxAllowOnce: a grant for the next command holds for that one
// command only.
//
// spec: A2
func TestSandboxAllowOnce(t *testing.T) {
	needSandbox(t)
	b := newEscBox(t, "")
	write := fmt.Sprintf(`echo x > %q && echo wrote`, filepath.Join(b.out, "once"))
	h := newHarness(t, nil, pt.Calls(bashCall("w1", write)), pt.Say("ok"), pt.Calls(bashCall("w2", write)), pt.Say("ok"))
	ctx := context.Background()
	s, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: b.ws, ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.k.AllowSandbox(ctx, s.ID, kernel.SandboxAllow{Kind: kernel.SandboxWrite, Folder: b.out, Once: true}); err != nil {
		t.Fatal(err)
	}
	res := callResults(t, h, h.runIn(ctx, s.ID, "once"))
	if !strings.Contains(res["w1"].Text, "wrote") {
		t.Errorf("allowed once: %s", res["w1"].Text)
	}
	if gs, _ := h.k.SandboxGrants(ctx, s.ID); len(gs) != 0 {
		t.Errorf("after the one command: grants %+v; want none", gs)
	}
	os.Remove(filepath.Join(b.out, "once"))
	res = callResults(t, h, h.runIn(ctx, s.ID, "twice"))
	if len(res["w2"].Denials) == 0 || pathExists(filepath.Join(b.out, "once")) {
		t.Errorf("the second command wrote too: %s", res["w2"].Text)
	}
}

// TestSandboxDeveloperTools: git reads a repository in the sandbox, and a
// commit (which writes .git, read-only in the sandbox) is refused in words
// that say why, with nothing to allow; the package managers' caches are in
// the session's cache folder; a server on the loopback is reached by a
// client of the same command, and, with the network allowed for the
// session, by a later command of the session.
//
// spec: A2
func TestSandboxDeveloperTools(t *testing.T) {
	needSandbox(t)
	b := newEscBox(t, "")
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "T"}} {
		if out, err := exec.Command("git", append([]string{"-C", b.ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	escWrite(t, filepath.Join(b.ws, "f.txt"), "one\n")
	if out, err := exec.Command("sh", "-c", "cd "+b.ws+" && git add f.txt && git commit -qm first").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	escWrite(t, filepath.Join(b.ws, "f.txt"), "two\n")
	port := freePort(t)
	server := fmt.Sprintf(`python3 -m http.server %d --bind 127.0.0.1`, port)
	get := fmt.Sprintf(`for i in $(seq 100); do curl -fsS http://127.0.0.1:%d/f.txt && exit 0; sleep 0.1; done; exit 1`, port)
	h := newHarness(t, nil,
		pt.Calls(
			bashCall("status", `git status --short && git log --oneline | wc -l && git diff --stat`),
			bashCall("commit", `git commit -qam second`),
			bashCall("caches", `echo "$npm_config_cache $XDG_CACHE_HOME" && mkdir -p "$npm_config_cache" "$XDG_CACHE_HOME/pip" && echo cached`),
			bashCall("same", server+` & `+get+`; s=$?; kill %1; exit $s`),
		), pt.Say("ok"),
		pt.Calls(bashCall("serve", server, "run_in_background", true), bashCall("later", get)), pt.Say("ok"))
	ctx := context.Background()
	s, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: b.ws, ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	res := callResults(t, h, h.runIn(ctx, s.ID, "tools"))
	if r := res["status"]; !strings.Contains(r.Text, "M f.txt") || !strings.Contains(r.Text, "1 file changed") || len(r.Denials) != 0 {
		t.Errorf("git status, log and diff: %s (denials %+v)", r.Text, r.Denials)
	}
	if ds := res["commit"].Denials; len(ds) == 0 || ds[0].Allow != "" || !strings.Contains(ds[0].Text, "stays read-only in the sandbox") ||
		!strings.Contains(ds[0].Path, filepath.Join(b.ws, ".git")) {
		t.Errorf("git commit: denials %+v; want .git said read-only, nothing to allow\n%s", ds, res["commit"].Text)
	}
	if r := res["caches"]; !strings.Contains(r.Text, "cached") || len(r.Denials) != 0 || strings.Contains(r.Text, os.Getenv("HOME")+"/.npm") {
		t.Errorf("package caches: %s", r.Text)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		testwait.Missing(t, "python3 (Debian package python3)", "a dev server on the loopback")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		testwait.Missing(t, "curl (Debian package curl)", "a dev server on the loopback")
	}
	if r := res["same"]; !strings.Contains(r.Text, "two") {
		t.Errorf("a server and its client in one command: %s", r.Text)
	}
	if _, err := h.k.AllowSandbox(ctx, s.ID, kernel.SandboxAllow{Kind: kernel.SandboxNetwork}); err != nil {
		t.Fatal(err)
	}
	res = callResults(t, h, h.runIn(ctx, s.ID, "serve"))
	if r := res["later"]; !strings.Contains(r.Text, "two") {
		t.Errorf("a later command reaching the session's background server: %s", r.Text)
	}
	for _, bg := range h.k.BackgroundCommands(s.ID) {
		h.k.KillBackground(s.ID, bg.ID)
	}
}

// freePort returns a TCP port of the loopback nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
