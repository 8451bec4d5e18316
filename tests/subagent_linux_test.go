//go:build linux

package tests

import (
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
)

// TestSubAgentCancel: cancelling the parent run
// while its sub-agent's command runs cancels the child too. Both runs end
// cancelled, the child's call and the task call end cancelled, and no
// process of the child's command outlives the cancel.
//
// spec: X1
func TestSubAgentCancel(t *testing.T) {
	m := sleepMarker()
	args, _ := json.Marshal(map[string]any{"command": treeCommand(m)})
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("run the long command"), pt.Calls(call("b1", "bash", string(args))))
	h.srv.Route(pt.FirstUser("delegate the wait"),
		pt.Calls(call("t1", "task", taskArgs(t, "long command", "run the long command"))))
	sess := h.session("full_access")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan kernel.Run)
	go func() { done <- h.runIn(ctx, sess.ID, "delegate the wait") }()
	pids := waitProcesses(t, m, 3)
	killPIDs(t, pids)
	cancel()
	run := <-done
	if run.Status != kernel.RunCancelled {
		t.Fatalf("the parent run is %s; want cancelled", run.Status)
	}
	awaitPIDsGone(t, pids, "the parent's cancel")

	bg := context.Background()
	runs, _ := h.k.Runs(bg, sess.ID)
	if len(runs) != 2 {
		t.Fatalf("%d runs; want the parent and its child", len(runs))
	}
	for _, r := range runs {
		if r.Status != kernel.RunCancelled {
			t.Errorf("run %s (parent call %q) is %s; want cancelled", r.ID, r.ParentCallID, r.Status)
		}
		calls, _ := h.k.Calls(bg, r.ID)
		for _, c := range calls {
			if c.State != kernel.CallCancelled {
				t.Errorf("call %s (%s) is %s; want cancelled", c.ID, c.Name, c.State)
			}
		}
	}
	evs, _ := h.k.Events(bg, sess.ID, 0)
	kids := childEvents(evs, "t1")
	if len(kids) == 0 || kids[len(kids)-1].Type != event.TypeRunEnd || field(kids[len(kids)-1], "status") != "cancelled" {
		t.Errorf("the child's events end %v; want run.end cancelled", types(kids))
	}
}

// TestSubAgentInterruptedByCrash: a foya
// exec killed with SIGKILL while its sub-agent's call runs leaves both runs
// interrupted after a restart, like any run (the child's run.end under the
// task call), nothing is run again, and the session goes on with the task
// call's "interrupted, not replayed" result and none of the child's
// messages.
//
// spec: X2
func TestSubAgentInterruptedByCrash(t *testing.T) {
	srv := pt.New(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "foya.db")
	markFile := filepath.Join(dir, "marks")
	srv.Route(pt.FirstUser("mark the file"), pt.Calls(call("m1", "mark", `{"file":`+quote(markFile)+`}`)))
	srv.Route(pt.FirstUser("delegate marking"),
		pt.Calls(call("t1", "task", taskArgs(t, "marker", "mark the file"))), pt.Say("I see it was interrupted."))
	self, _ := os.Executable()
	cmd := exec.Command(self, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir, "--json", "delegate marking")
	cmd.Env = append(os.Environ(), "FOYA_TEST_CHILD=exec")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(markFile); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the sub-agent never ran its tool")
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	h := &harness{t: t, dir: dir, db: db, srv: srv}
	h.open([]kernelTool{marker{}})
	ctx := context.Background()
	list, _ := h.k.Sessions(ctx)
	runs, _ := h.k.Runs(ctx, list[0].ID)
	if len(runs) != 2 {
		t.Fatalf("%d runs after the restart; want the parent and its child", len(runs))
	}
	for _, r := range runs {
		if r.Status != kernel.RunInterrupted {
			t.Errorf("run %s (parent call %q) is %s; want interrupted", r.ID, r.ParentCallID, r.Status)
		}
		calls, _ := h.k.Calls(ctx, r.ID)
		if len(calls) != 1 || calls[0].State != kernel.CallInterrupted {
			t.Errorf("run %s's calls after the restart: %+v; want one interrupted", r.ID, calls)
		}
	}
	evs, _ := h.k.Events(ctx, list[0].ID, 0)
	kids := childEvents(evs, "t1")
	if len(kids) == 0 || kids[len(kids)-1].Type != event.TypeRunEnd || field(kids[len(kids)-1], "status") != "interrupted" {
		t.Errorf("the child's events end %v; want run.end interrupted under the task call", types(kids))
	}

	run := h.runIn(ctx, list[0].ID, "delegate marking again? no: what happened?")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("continued run %s: %s", run.Status, run.Error)
	}
	if b, _ := os.ReadFile(markFile); string(b) != "ran\n" {
		t.Fatalf("the tool ran %d times; want once", strings.Count(string(b), "ran"))
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	tm := toolMessages(last)
	if len(tm) != 1 || tm[0].ToolCallID != "t1" || !strings.Contains(tm[0].Content, "interrupted, not replayed") {
		t.Fatalf("the model was told %+v; want the task call's interrupted result only", tm)
	}
}
