package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// probe records the RunContext of each call, by session.
type probe struct {
	mu   *sync.Mutex
	seen map[string]tools.RunContext
	gate chan struct{}
}

func (p probe) Spec() tools.Spec { return tools.Spec{Name: "probe", Description: "Probes."} }
func (p probe) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	p.mu.Lock()
	p.seen[rc.SessionID] = *rc
	p.mu.Unlock()
	<-p.gate // both sessions are inside a call at once
	return tools.Text("probed " + rc.Workdir), nil
}

// spec: C1, C2, T1, T2 — each call gets its own run context (session, run,
// workdir, mode, model, exposed tools, activator); two sessions run at the
// same time without sharing any "current session".
func TestRunContextPerSessionConcurrently(t *testing.T) {
	var mu sync.Mutex
	p := probe{mu: &mu, seen: map[string]tools.RunContext{}, gate: make(chan struct{})}
	h := newHarness(t, []tools.Tool{p},
		pt.Calls(call("a", "probe", `{}`)), pt.Calls(call("b", "probe", `{}`)), pt.Say("one"), pt.Say("two"))
	dirA, dirB := filepath.Join(h.dir, "a"), filepath.Join(h.dir, "b")
	os.Mkdir(dirA, 0o755)
	os.Mkdir(dirB, 0o755)
	ctx := context.Background()
	sa, _ := h.k.CreateSession(ctx, kernel.NewSession{Workdir: dirA, ApprovalMode: "manual", Model: "ma"})
	sb, _ := h.k.CreateSession(ctx, kernel.NewSession{Workdir: dirB, ApprovalMode: "full-access", Model: "mb"})
	var wg sync.WaitGroup
	runs := make([]kernel.Run, 2)
	for i, s := range []kernel.Session{sa, sb} {
		wg.Go(func() { runs[i] = h.runIn(ctx, s.ID, "probe") })
	}
	testwait.Until(t, "both sessions to be inside a call", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(p.seen) == 2
	})
	close(p.gate)
	wg.Wait()
	for i, s := range []kernel.Session{sa, sb} {
		rc := p.seen[s.ID]
		if rc.RunID != runs[i].ID || rc.Workdir != s.Workdir || rc.ApprovalMode != s.ApprovalMode || rc.Model != s.Model ||
			rc.ProjectID == "" || rc.Activator == nil || !slices.Contains(rc.Exposed, "probe") || !slices.IsSorted(rc.Exposed) {
			t.Errorf("session %d saw run context %+v", i, rc)
		}
		if runs[i].Status != kernel.RunCompleted {
			t.Errorf("run %d: %s %s", i, runs[i].Status, runs[i].Error)
		}
	}
	// One run per session at a time.
	if _, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sa.ID, Prompt: "x", Model: nil}); err == nil {
		t.Error("a run without a model started")
	}
}
