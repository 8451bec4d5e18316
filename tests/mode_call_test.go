//go:build linux

package tests

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
)

// spec: A2, C1 — the mode is read once per call, and the
// tool and the gateway use the same one. A switch in the middle of a turn
// applies to the next command as a whole: Full Access to Auto runs it in
// the sandbox without asking (before, bash still planned with the turn's
// starting mode and asked to leave the sandbox); Auto to Full Access runs
// it without a sandbox (before, it stayed sandboxed). Each command writes
// a file in the workspace and one outside it; nobody is asked, and a
// request would be denied.
func TestModeSwitchMidTurnAppliesToTheNextCommand(t *testing.T) {
	needSandbox(t)
	for _, c := range []struct {
		from, to                  string
		firstEscapes, nextEscapes bool
	}{
		{"full_access", "auto", true, false},
		{"auto", "full_access", false, true},
	} {
		t.Run(c.from+"→"+c.to, func(t *testing.T) {
			b := newEscBox(t, "")
			bash := func(id, cmd string) pt.Call {
				args, _ := json.Marshal(map[string]any{"command": b.expand(cmd)})
				return call(id, "bash", string(args))
			}
			hold := make(chan struct{})
			h := newHarness(t, nil,
				pt.Calls(bash("first", "echo 1 > first; echo 1 > OUT/first")),
				pt.Turn{Calls: []pt.Call{bash("next", "echo 2 > next; echo 2 > OUT/next")}, Hold: hold},
				pt.Say("ok"))
			ans := &answerer{}
			ans.watch(h.k, func(kernel.Approval) kernel.Answer {
				return kernel.Answer{Choice: kernel.Deny, Message: "no one should ask"}
			})
			ctx := context.Background()
			sess, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: b.ws, ApprovalMode: c.from, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan kernel.Run)
			go func() { done <- h.runIn(ctx, sess.ID, "go") }()
			// The second request means the first command has ended; its
			// answer is held until the mode has switched.
			testwait.Until(t, "the model's second request", func() bool { return len(h.srv.Requests()) >= 2 })
			if err := h.k.SetMode(ctx, sess.ID, c.to); err != nil {
				t.Fatal(err)
			}
			close(hold)
			run := testwait.Receive(t, done, "the run to end")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			ans.mu.Lock()
			asked := ans.asked
			ans.mu.Unlock()
			if len(asked) != 0 {
				t.Errorf("asked about %v; want no question in %s or %s", asked, c.from, c.to)
			}
			calls, _ := h.k.Calls(ctx, run.ID)
			for i, name := range []string{"first", "next"} {
				if !pathExists(filepath.Join(b.ws, name)) {
					t.Errorf("the %s command did not run: %+v", name, calls[i].Result)
				}
			}
			if got := pathExists(filepath.Join(b.out, "first")); got != c.firstEscapes {
				t.Errorf("in %s the first command wrote outside the workspace: %v; want %v", c.from, got, c.firstEscapes)
			}
			if got := pathExists(filepath.Join(b.out, "next")); got != c.nextEscapes {
				t.Errorf("after the switch to %s the next command wrote outside the workspace: %v; want %v", c.to, got, c.nextEscapes)
			}
		})
	}
}
