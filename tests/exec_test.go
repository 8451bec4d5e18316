package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

type execResult struct {
	code   int
	stdout string
	stderr string
}

func runFoya(t *testing.T, bin string, env []string, args ...string) execResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return execResult{code, out.String(), errb.String()}
}

// The contract of the README: foya exec --json against any OpenAI-compatible
// server prints the run's events, each with sessionId, runId and seq.
func TestExecJSONPrintsEveryEvent(t *testing.T) {
	bin := foyaBinary(t)
	srv := pt.New(t,
		pt.Turn{Text: "Looking for tools.", Calls: []pt.Call{call("c1", "tool_search", `{"query":"anything"}`)}},
		pt.Say("hello to you"))
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	res := runFoya(t, bin, nil, "exec", "--base-url", srv.URL, "--api-key", "x", "--model", "m", "--db", db,
		"--workdir", dir, "--json", "hello")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	seen := map[string]bool{}
	var last int64
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	for sc.Scan() {
		var ev llm.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		if ev.SessionID == "" || ev.RunID == "" || ev.Seq != last+1 {
			t.Fatalf("event %s: session %q run %q seq %d after %d", ev.Type, ev.SessionID, ev.RunID, ev.Seq, last)
		}
		last = ev.Seq
		seen[ev.Type] = true
	}
	for _, typ := range []string{"run.start", "step.start", "text.delta", "tool.begin", "tool.update", "tool.end", "step.end", "run.end"} {
		if !seen[typ] {
			t.Errorf("no %s event in:\n%s", typ, res.stdout)
		}
	}
	// The session is stored and listed.
	res = runFoya(t, bin, nil, "sessions", "--db", db, "--json")
	var list []kernel.Session
	if err := json.Unmarshal([]byte(res.stdout), &list); err != nil || len(list) != 1 || list[0].Title != "hello" {
		t.Fatalf("sessions --json = %s (%v)", res.stdout, err)
	}
	res = runFoya(t, bin, nil, "show", "--db", db, list[0].ID)
	if res.code != 0 || !strings.Contains(res.stdout, "hello to you") || !strings.Contains(res.stdout, "tool_search") {
		t.Fatalf("show = %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, "--version")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "foya ") {
		t.Fatalf("--version = %d %q", res.code, res.stdout)
	}
}

// Bad input: usage errors exit 2; a model server that is down, refuses the
// key, or cuts the stream gives a run.end error and exit 1 with history kept.
func TestExecBadInput(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	base := []string{"exec", "--db", db, "--workdir", dir, "--api-key", "x"}

	usage := map[string][]string{
		"no prompt":    {"--model", "m"},
		"no model":     {"hi"},
		"bad mode":     {"--model", "m", "--approval", "yolo", "hi"},
		"empty prompt": {"--model", "m", "  "},
		"two prompts":  {"--model", "m", "a", "b"},
		"bad header":   {"--model", "m", "--header", "nope", "hi"},
		"no session":   {"--model", "m", "--session", "ses_nope", "hi"},
		"unknown flag": {"--frobnicate", "hi"},
		"bad base url": {"--model", "m", "--base-url", "ftp://x", "hi"},
	}
	for name, args := range usage {
		res := runFoya(t, bin, []string{"FOYA_MODEL="}, append(slices.Clone(base), args...)...)
		if res.code != 2 || res.stderr == "" {
			t.Errorf("%s: exit %d, stderr %q; want 2 and a message", name, res.code, res.stderr)
		}
	}

	// A port nobody listens on.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/v1"
	l.Close()
	srv401 := pt.New(t, pt.Turn{Status: 401, ErrorMessage: "invalid api key"})
	srvCut := pt.New(t, pt.Turn{Calls: []pt.Call{call("c", "tool_search", `{"query":"something long enough"}`)}, CutAfter: 2})
	for name, c := range map[string]struct{ url, want string }{
		"unreachable": {dead, "connect"},
		"401":         {srv401.URL, "invalid api key"},
		"cut":         {srvCut.URL, "model"},
	} {
		res := runFoya(t, bin, nil, append(slices.Clone(base), "--model", "m", "--base-url", c.url, "--json", "hi")...)
		if res.code != 1 {
			t.Errorf("%s: exit %d; want 1\n%s", name, res.code, res.stderr)
			continue
		}
		lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
		var end llm.Event
		json.Unmarshal([]byte(lines[len(lines)-1]), &end)
		if end.Type != event.TypeRunEnd || field(end, "status") != "failed" || !strings.Contains(strings.ToLower(field(end, "error").(string)), c.want) {
			t.Errorf("%s: last event %s %s; want run.end failed mentioning %q", name, end.Type, end.Data, c.want)
		}
	}
	// The history is intact: three failed runs, each with its prompt.
	res := runFoya(t, bin, nil, "sessions", "--db", db, "--json")
	var list []kernel.Session
	json.Unmarshal([]byte(res.stdout), &list)
	if len(list) != 3 {
		t.Fatalf("%d sessions after three failed runs; want 3", len(list))
	}

	// A database that is not one.
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, bytes.Repeat([]byte("not a database "), 400), 0o600)
	res = runFoya(t, bin, nil, "sessions", "--db", junk)
	if res.code != 1 || !strings.Contains(res.stderr, junk) {
		t.Fatalf("junk db: exit %d %q; want 1 naming the file", res.code, res.stderr)
	}
}

// spec: X1 — SIGINT cancels a run cleanly: exit 130, run stored as cancelled.
func TestExecInterruptCancels(t *testing.T) {
	bin := foyaBinary(t)
	hold := make(chan struct{})
	defer close(hold)
	srv := pt.New(t, pt.Turn{Text: "thinking about it for a very long time", Hold: hold})
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	cmd := exec.Command(bin, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir, "--json", "wait")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"text.delta"`) {
			break
		}
	}
	cmd.Process.Signal(os.Interrupt)
	for sc.Scan() {
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v; want 130", err)
	}
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	list, _ := k.Sessions(context.Background())
	runs, _ := k.Runs(context.Background(), list[0].ID)
	if len(runs) != 1 || runs[0].Status != kernel.RunCancelled {
		t.Fatalf("runs = %+v; want one cancelled", runs)
	}
}

// spec: X2 — a foya exec killed with SIGKILL in the middle of a tool call
// leaves its run interrupted after a restart; the call gets an explicit
// "interrupted, not replayed" result and nothing runs twice. The killed
// process's ownership lock went with it (runs are owned by a lock, not a
// PID, which differs across PID namespaces): the restart took
// it, recovered the run and removed the dead owner's lock file.
func TestKilledRunIsInterruptedNotReplayed(t *testing.T) {
	srv := pt.New(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	markFile := filepath.Join(dir, "marks")
	srv.Append(pt.Calls(call("m1", "mark", `{"file":`+quote(markFile)+`}`)))
	self, _ := os.Executable()
	cmd := exec.Command(self, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir, "--json", "mark it")
	cmd.Env = append(os.Environ(), "FOYA_TEST_CHILD=exec")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(markFile)
		if len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child never ran the tool")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	h := &harness{t: t, dir: dir, db: db, srv: srv}
	h.open([]kernelTool{marker{}})
	ctx := context.Background()
	list, _ := h.k.Sessions(ctx)
	runs, _ := h.k.Runs(ctx, list[0].ID)
	if len(runs) != 1 || runs[0].Status != kernel.RunInterrupted {
		t.Fatalf("runs after restart = %+v; want one interrupted", runs)
	}
	if locks, _ := filepath.Glob(filepath.Join(kernel.OwnersDir(db), "*.lock")); len(locks) != 1 {
		t.Fatalf("owner lock files after the restart = %q; want only the live kernel's", locks)
	}
	calls, _ := h.k.Calls(ctx, runs[0].ID)
	if len(calls) != 1 || calls[0].State != kernel.CallInterrupted || !strings.Contains(calls[0].Result.Text, "interrupted, not replayed") {
		t.Fatalf("calls after restart = %+v", calls)
	}
	// Reopening again changes nothing; continuing the session runs nothing twice.
	h.k.Close()
	h.open([]kernelTool{marker{}})
	srv.Append(pt.Say("I see it was interrupted."))
	run := h.runIn(ctx, list[0].ID, "what happened?")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("continued run %s: %s", run.Status, run.Error)
	}
	if b, _ := os.ReadFile(markFile); string(b) != "ran\n" {
		t.Fatalf("the tool ran %d times; want once", strings.Count(string(b), "ran"))
	}
	reqs := srv.Requests()
	tm := toolMessages(reqs[len(reqs)-1])
	if len(tm) != 1 || tm[0].ToolCallID != "m1" || !strings.Contains(tm[0].Content, "interrupted, not replayed") {
		t.Fatalf("the model was told %+v; want the interrupted result", tm)
	}
	evs, _ := h.k.Events(ctx, list[0].ID, 0)
	if n := countType(evs, event.TypeRunInterrupted); n != 1 {
		t.Fatalf("%d run.interrupted events; want 1", n)
	}
}

func countType(evs []llm.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
