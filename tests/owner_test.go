package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// gate is a tool that blocks until the test opens it, then succeeds: a run
// that stays running while the test does something else.
type gate struct {
	started chan struct{}
	open    chan struct{}
}

func newGate() gate { return gate{started: make(chan struct{}, 8), open: make(chan struct{})} }

func (gate) Spec() tools.Spec {
	return tools.Spec{Name: "gate", Description: "Waits.", Schema: json.RawMessage(`{"type":"object"}`)}
}
func (g gate) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	g.started <- struct{}{}
	select {
	case <-g.open:
		return tools.Text("passed"), nil
	case <-ctx.Done():
		return tools.Errorf("gate: %v", ctx.Err()), nil
	}
}

// Run ownership: a second Foya on the same database, started
// in another PID namespace (as a sandboxed command would be, where this
// process's PID means nothing) or in this process, must not take a running
// run for one whose process is gone. The run stays running, completes, and
// each call has exactly one result.
//
// spec: X2
func TestSecondFoyaDoesNotInterruptALiveRun(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		testwait.Missing(t, "unshare (Debian package util-linux)", "a second foya in another PID namespace")
	}
	bin := foyaBinary(t)
	g := newGate()
	h := newHarness(t, []tools.Tool{g}, pt.Calls(call("g1", "gate", `{}`)), pt.Say("through the gate"))
	sess := h.session("auto")
	done := make(chan kernel.Run, 1)
	go func() { done <- h.runIn(context.Background(), sess.ID, "go through") }()
	select {
	case <-g.started:
	case r := <-done:
		t.Fatalf("the run ended before its call ran: %s %s", r.Status, r.Error)
	case <-time.After(testwait.Limit):
		t.Fatalf("the call did not start within %v", testwait.Limit)
	}

	// Another Foya in a new PID namespace with its own /proc: there, this
	// process has another PID, or none.
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "--user", "--map-root-user", bin, "sessions", "--db", h.db)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("foya sessions in a PID namespace: %v\n%s", err, out.String())
	}
	// And another kernel in this process.
	k2, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db})
	if err != nil {
		t.Fatal(err)
	}
	if err := k2.Close(); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	runs, _ := h.k.Runs(ctx, sess.ID)
	if len(runs) != 1 || runs[0].Status != kernel.RunRunning {
		t.Fatalf("runs while the first Foya lives = %+v; want one running", runs)
	}
	close(g.open)
	run := testwait.Receive(t, done, "the run to end")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s; want completed", run.Status, run.Error)
	}
	msgs, _ := h.k.Messages(ctx, sess.ID)
	results := 0
	for _, m := range msgs {
		if m.Message.Role == kernel.RoleTool {
			results++
			if m.Message.ToolCallID != "g1" || strings.Contains(m.Message.Content, "interrupted") {
				t.Errorf("tool message %s: %q", m.Message.ToolCallID, m.Message.Content)
			}
		}
	}
	if results != 1 {
		t.Fatalf("%d tool results for one call; want 1", results)
	}
	evs, _ := h.k.Events(ctx, sess.ID, 0)
	if n := countType(evs, event.TypeRunInterrupted); n != 0 {
		t.Fatalf("%d run.interrupted events for a live run; want 0", n)
	}
	if n := countType(evs, event.TypeRunEnd); n != 1 {
		t.Fatalf("%d run.end events; want 1", n)
	}
}

// Run ownership, the form the review found: with the
// database inside the workspace, a sandboxed command of the running run
// itself starts a second Foya on it. Whether that Foya can open the
// database at all is the sandbox's business; it must not take the run
// for one whose process is gone, so each call gets exactly one result.
//
// spec: X2, A1
func TestSandboxedFoyaDoesNotInterruptItsOwnRun(t *testing.T) {
	bin := foyaBinary(t)
	g := newGate()
	h := &harness{t: t, dir: t.TempDir(), srv: pt.New(t)}
	h.db = filepath.Join(h.dir, "foya.db")
	h.open([]tools.Tool{g})
	q, _ := json.Marshal(map[string]string{"command": bin + " sessions --db " + h.db})
	h.srv.Append(pt.Calls(call("b1", "bash", string(q)), call("g1", "gate", `{}`)), pt.Say("done"))
	sess := h.session("auto")
	done := make(chan kernel.Run, 1)
	go func() { done <- h.runIn(context.Background(), sess.ID, "look") }()
	select {
	case <-g.started:
	case r := <-done:
		t.Fatalf("the run ended before its second call ran: %s %s", r.Status, r.Error)
	case <-time.After(testwait.Limit):
		t.Fatalf("the second call did not start within %v", testwait.Limit)
	}
	ctx := context.Background()
	runs, _ := h.k.Runs(ctx, sess.ID)
	if len(runs) != 1 || runs[0].Status != kernel.RunRunning {
		t.Fatalf("runs after the sandboxed foya = %+v; want one running", runs)
	}
	close(g.open)
	if run := testwait.Receive(t, done, "the run to end"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s; want completed", run.Status, run.Error)
	}
	msgs, _ := h.k.Messages(ctx, sess.ID)
	results := map[string]int{}
	for _, m := range msgs {
		if m.Message.Role == kernel.RoleTool {
			results[m.Message.ToolCallID]++
		}
	}
	if len(results) != 2 || results["b1"] != 1 || results["g1"] != 1 {
		t.Fatalf("tool results by call = %v; want one each for b1 and g1", results)
	}
	evs, _ := h.k.Events(ctx, sess.ID, 0)
	if n := countType(evs, event.TypeRunInterrupted); n != 0 {
		t.Fatalf("%d run.interrupted events for a live run; want 0", n)
	}
}

// Session temp folders left by a crash are removed at the
// next start, and only those: a foya exec killed with SIGKILL in the middle
// of a command leaves its session's temp folder (with a file in it); the
// next kernel removes it, while the folder of a kernel that still lives
// stays.
//
// spec: B3
func TestCrashLeftTempFolderIsRemovedAtStart(t *testing.T) {
	tmpRoot := t.TempDir()
	t.Setenv("TMPDIR", tmpRoot)
	srv := pt.New(t)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	ctx := context.Background()

	// A live kernel on the same database, with a temp folder of its own.
	h := &harness{t: t, dir: dir, db: db, srv: srv}
	h.open(nil)
	srv.Append(pt.Calls(call("b1", "bash", `{"command":"echo live > \"$TMPDIR/live.txt\""}`)), pt.Say("ok"))
	live := h.session("auto")
	if run := h.runIn(ctx, live.ID, "make a file"); run.Status != kernel.RunCompleted {
		t.Fatalf("live run %s: %s", run.Status, run.Error)
	}
	liveFile := findFile(t, tmpRoot, "live.txt")
	if liveFile == "" {
		t.Fatal("the live kernel's command left no file in its temp folder")
	}

	// A foya exec that dies in the middle of a command.
	srv.Append(pt.Calls(call("b2", "bash", `{"command":"echo crash > \"$TMPDIR/crash.txt\"; sleep 30"}`)))
	self, _ := os.Executable()
	cmd := exec.Command(self, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir, "--approval", "auto", "--json", "crash")
	cmd.Env = append(os.Environ(), "FOYA_TEST_CHILD=exec", "TMPDIR="+tmpRoot)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var crashFile string
	for deadline := time.Now().Add(30 * time.Second); crashFile == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child never ran its command")
		}
		crashFile = findFile(t, tmpRoot, "crash.txt")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	crashDir := sessionTempDir(tmpRoot, crashFile)
	if _, err := os.Stat(crashDir); err != nil {
		t.Fatalf("the killed child's temp folder: %v", err)
	}

	k3, err := kernel.Open(ctx, kernel.Options{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer k3.Close()
	if _, err := os.Stat(crashDir); !os.IsNotExist(err) {
		t.Errorf("the crashed run's temp folder %s after a restart: %v; want it gone", crashDir, err)
	}
	if _, err := os.Stat(crashDir + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the crashed run's temp folder lock after a restart: %v; want it gone", err)
	}
	if b, err := os.ReadFile(liveFile); err != nil || string(b) != "live\n" {
		t.Errorf("the live kernel's temp file after another start: %q %v; want it kept", b, err)
	}
	// The live kernel, closing, removes its own folder.
	h.k.Close()
	if _, err := os.Stat(sessionTempDir(tmpRoot, liveFile)); !os.IsNotExist(err) {
		t.Errorf("the live kernel's temp folder after its Close: %v; want it gone", err)
	}
}

// findFile returns the path of a file named name anywhere under root, or "".
func findFile(t *testing.T, root, name string) string {
	var found string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			found = p
		}
		return nil
	})
	return found
}

// sessionTempDir returns the session temp folder (root/foya-ID) holding p.
func sessionTempDir(root, p string) string {
	rel, _ := filepath.Rel(root, p)
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return filepath.Join(root, first)
}
