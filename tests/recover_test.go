package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// spec: X2 — a foya exec killed while the third of four serial calls runs:
// after the restart the two calls that had completed keep their results
// (state done, their own text, fed back to the model as it was), the
// running one and the one still waiting are interrupted, not replayed, and
// nothing of the four runs again when the session goes on. (Recovery was
// tried with one unfinished call only before, so overwriting completed
// calls as interrupted passed every test.)
func TestRecoveryKeepsCompletedResults(t *testing.T) {
	srv := pt.New(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	markFile := filepath.Join(dir, "marks")
	srv.Append(pt.Calls(
		call("w1", "write", jsonArgs(map[string]string{"path": "a.txt", "content": "first\n"})),
		call("w2", "write", jsonArgs(map[string]string{"path": "b.txt", "content": "second\n"})),
		call("m1", "mark", `{"file":`+quote(markFile)+`}`),
		call("w3", "write", jsonArgs(map[string]string{"path": "c.txt", "content": "never\n"})),
	))
	self, _ := os.Executable()
	cmd := exec.Command(self, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir,
		"--approval", "auto", "--json", "write, mark, write")
	cmd.Env = append(os.Environ(), "FOYA_TEST_CHILD=exec")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testwait.Until(t, "the child to run the mark tool", func() bool {
		b, _ := os.ReadFile(markFile)
		return len(b) > 0
	})
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	h := &harness{t: t, dir: dir, db: db, srv: srv}
	h.open([]kernelTool{marker{}})
	ctx := context.Background()
	list, _ := h.k.Sessions(ctx)
	if len(list) != 1 {
		t.Fatalf("%d sessions after the restart; want 1", len(list))
	}
	runs, _ := h.k.Runs(ctx, list[0].ID)
	if len(runs) != 1 || runs[0].Status != kernel.RunInterrupted {
		t.Fatalf("runs after restart = %+v; want one interrupted", runs)
	}
	calls, err := h.k.Calls(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id    string
		state kernel.CallState
		text  string
	}{
		{"w1", kernel.CallDone, "Created a.txt"},
		{"w2", kernel.CallDone, "Created b.txt"},
		{"m1", kernel.CallInterrupted, "interrupted, not replayed: Foya stopped while this call was running"},
		{"w3", kernel.CallInterrupted, "interrupted, not replayed: Foya stopped while this call was waiting to run"},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d calls after restart; want %d: %+v", len(calls), len(want), calls)
	}
	for i, w := range want {
		c := calls[i]
		if c.ID != w.id || c.State != w.state || c.Result == nil || !strings.Contains(c.Result.Text, w.text) {
			t.Errorf("call %d after restart = %s %s %+v; want %s %s with %q", i, c.ID, c.State, c.Result, w.id, w.state, w.text)
		}
	}
	for _, f := range []struct{ name, content string }{{"a.txt", "first\n"}, {"b.txt", "second\n"}} {
		if got := readFile(t, filepath.Join(dir, f.name)); got != f.content {
			t.Errorf("%s = %q; want %q", f.name, got, f.content)
		}
	}

	// Going on runs nothing again: the model reads the two results as they
	// were and the two interruptions, in the model's order.
	srv.Append(pt.Say("I see where it stopped."))
	if run := h.runIn(ctx, list[0].ID, "what happened?"); run.Status != kernel.RunCompleted {
		t.Fatalf("continued run %s: %s", run.Status, run.Error)
	}
	reqs := srv.Requests()
	tm := toolMessages(reqs[len(reqs)-1])
	if len(tm) != len(want) {
		t.Fatalf("the model was told %d results; want %d: %+v", len(tm), len(want), tm)
	}
	for i, w := range want {
		if tm[i].ToolCallID != w.id || !strings.Contains(tm[i].Content, w.text) {
			t.Errorf("result %d fed back = %s %q; want %s with %q", i, tm[i].ToolCallID, tm[i].Content, w.id, w.text)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt exists (%v): the waiting call ran", err)
	}
	if b, _ := os.ReadFile(markFile); string(b) != "ran\n" {
		t.Errorf("the mark tool ran %d times; want once", strings.Count(string(b), "ran"))
	}
}
