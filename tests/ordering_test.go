package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/provider"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// seqCheck subscribes to a kernel and checks, as events arrive, that each
// session's seq goes 1, 2, 3, ... with no gap and no repeat.
type seqCheck struct {
	mu   sync.Mutex
	last map[string]int64
	got  map[string][]llm.Event
	errs []string
}

func newSeqCheck(k *kernel.Kernel) *seqCheck {
	c := &seqCheck{last: map[string]int64{}, got: map[string][]llm.Event{}}
	k.Subscribe(func(ev llm.Event) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if want := c.last[ev.SessionID] + 1; ev.Seq != want && len(c.errs) < 10 {
			c.errs = append(c.errs, fmt.Sprintf("session %s: received seq %d (%s) after %d", ev.SessionID, ev.Seq, ev.Type, want-1))
		}
		c.last[ev.SessionID] = max(c.last[ev.SessionID], ev.Seq)
		c.got[ev.SessionID] = append(c.got[ev.SessionID], ev)
	})
	return c
}

// check compares what was received with what is stored: the stored seqs
// are 1..n, and the received events are the stored ones, in order (the
// stored list may be longer: an outside change noticed a moment ago).
func (c *seqCheck) check(t *testing.T, k *kernel.Kernel, sessionID string) []llm.Event {
	t.Helper()
	c.mu.Lock()
	got := append([]llm.Event(nil), c.got[sessionID]...)
	for _, e := range c.errs {
		t.Error(e)
	}
	c.mu.Unlock()
	stored, err := k.Events(context.Background(), sessionID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range stored {
		if ev.Seq != int64(i+1) {
			t.Fatalf("session %s: stored event %d has seq %d; want %d (a gap or a repeat)", sessionID, i, ev.Seq, i+1)
		}
	}
	if len(got) > len(stored) {
		t.Fatalf("session %s: received %d events, %d stored", sessionID, len(got), len(stored))
	}
	for i, ev := range got {
		if ev.Seq != stored[i].Seq || ev.Type != stored[i].Type || string(ev.Data) != string(stored[i].Data) {
			t.Fatalf("session %s: received event %d is %d %s; stored is %d %s", sessionID, i, ev.Seq, ev.Type, stored[i].Seq, stored[i].Type)
		}
	}
	return stored
}

// A revert asked for while a run is going is refused as busy, with a
// message saying what to do; a deletion too; a mode switch is taken and
// ordered among the run's events; once the run ended the revert goes
// through. Every event on record and as received: seq 1, 2, 3, ...
//
// spec: C2, W4
func TestRevertDuringRunIsRefused(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, []tools.Tool{actor{}},
		pt.Calls(call("w", "write", `{"path":"a.txt","content":"one\n"}`)), pt.Say("wrote"),
		pt.Calls(call("x", "act", `{"kind":"write","path":"/w/a"}`)), pt.Say("acted"))
	seqs := newSeqCheck(h.k)
	ctx := context.Background()
	sess := h.session("auto")
	h.runIn(ctx, sess.ID, "write")
	changes, err := h.k.Changes(ctx, sess.ID)
	if err != nil || len(changes) != 1 {
		t.Fatalf("changes %v %v", changes, err)
	}
	if err := h.k.SetMode(ctx, sess.ID, "manual"); err != nil {
		t.Fatal(err)
	}
	asked := make(chan string, 1)
	h.k.Subscribe(func(ev llm.Event) {
		if ev.Type == "approval.request" {
			var p kernel.Approval
			json.Unmarshal(ev.Data, &p)
			asked <- p.ID
		}
	})
	done := make(chan kernel.Run)
	go func() { done <- h.runIn(ctx, sess.ID, "act") }()
	id := testwait.Receive(t, asked, "the approval request") // the run waits for the answer

	_, err = h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{changes[0].ID}})
	if kernel.Code(err) != kernel.CodeBusy || !strings.Contains(err.Error(), "run going") || !strings.Contains(err.Error(), "cancel") {
		t.Errorf("revert during a run: %v; want busy, saying a run is going and what to do", err)
	}
	if err := h.k.DeleteSession(ctx, sess.ID); kernel.Code(err) != kernel.CodeBusy {
		t.Errorf("delete during a run: %v; want busy", err)
	}
	if err := h.k.SetMode(ctx, sess.ID, "auto"); err != nil {
		t.Errorf("mode switch during a run: %v", err)
	}
	for _, bad := range []kernel.Answer{{Choice: "maybe"}, {Choice: kernel.AllowSession}, {Choice: kernel.AllowSession, Scope: &kernel.Grant{Kind: "fetch", Host: "example.com"}}} {
		if err := h.k.Answer(id, bad); kernel.Code(err) != kernel.CodeInvalid {
			t.Errorf("answer %+v: %v; want an invalid request", bad, err)
		}
	}
	if err := h.k.Answer(id, kernel.Answer{Choice: kernel.AllowOnce}); err != nil {
		t.Fatal(err)
	}
	if run := testwait.Receive(t, done, "the run to end"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "a.txt")); err != nil {
		t.Fatal("the refused revert changed the file")
	}
	res, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{changes[0].ID}})
	if err != nil || len(res.Reverted) != 1 {
		t.Fatalf("revert after the run: %v %+v", err, res)
	}
	stored := seqs.check(t, h.k, sess.ID)
	var types []string
	for _, ev := range stored {
		if ev.Type == event.TypeSessionMode || ev.Type == event.TypeFileReverted || strings.HasPrefix(ev.Type, "approval.") {
			types = append(types, ev.Type)
		}
	}
	if want := "session.mode approval.request session.mode approval.answer file.reverted"; strings.Join(types, " ") != want {
		t.Errorf("events %s; want %s in this order", strings.Join(types, " "), want)
	}
}

// Two sessions run turn after turn while, in each, the approval mode
// flips, approvals are answered, reverts are asked for (refused while a
// run is going, made between runs) and files change outside Foya. Each
// session's seq has no gap and no repeat, in the store and as subscribers
// received it. Run with -race.
//
// spec: C2, W4
func TestOrderingUnderConcurrency(t *testing.T) {
	privateTrash(t)
	const runs = 8
	script := func(tag string) []pt.Turn {
		var turns []pt.Turn
		for i := range runs {
			turns = append(turns, pt.Calls(call(fmt.Sprintf("%s%d", tag, i), "write",
				fmt.Sprintf(`{"path":"f%d.txt","content":"%s %d\n"}`, i, tag, i))), pt.Say("done"))
		}
		return turns
	}
	h := newHarness(t, nil, script("a")...)
	seqs := newSeqCheck(h.k)
	ctx := context.Background()
	srvB := pt.New(t, script("b")...)
	modelB, err := provider.New(provider.Config{BaseURL: srvB.URL, APIKey: "x", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	sessA := h.session("manual")
	sessB, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: t.TempDir(), ApprovalMode: "manual", Model: "m", Title: "b"})
	if err != nil {
		t.Fatal(err)
	}
	(&answerer{}).watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })

	var wg sync.WaitGroup
	var busy, reverted atomic.Int32
	for _, s := range []struct {
		sess  kernel.Session
		model engine.Model
	}{{sessA, h.model()}, {sessB, modelB}} {
		var running atomic.Bool
		running.Store(true)
		// After every other run, the turns wait until a revert was tried,
		// so that some reverts land between runs; the others race them.
		between := make(chan chan struct{})
		reverterGone := make(chan struct{})
		wg.Go(func() { // the turns, one after another
			defer running.Store(false)
			for i := 0; i < runs; {
				if i%2 == 1 {
					tried := make(chan struct{})
					select {
					case between <- tried:
						<-tried
					case <-reverterGone:
					}
				}
				run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: s.sess.ID, Prompt: fmt.Sprint("turn ", i), Model: s.model})
				if kernel.Code(err) == kernel.CodeBusy { // a revert is being made: try again
					runtime.Gosched()
					continue
				}
				if err != nil || run.Status != kernel.RunCompleted {
					t.Errorf("run %d: %v %s %s", i, err, run.Status, run.Error)
					return
				}
				i++
			}
		})
		wg.Go(func() { // the approval mode flips
			for n := 0; running.Load(); n++ {
				if err := h.k.SetMode(ctx, s.sess.ID, []string{"auto", "manual"}[n%2]); err != nil {
					t.Errorf("mode switch: %v", err)
					return
				}
				runtime.Gosched()
			}
		})
		// revert tries to revert the newest change, then changes its file
		// outside Foya; it reports whether to go on.
		revert := func() bool {
			changes, err := h.k.Changes(ctx, s.sess.ID)
			if err != nil {
				t.Errorf("changes: %v", err)
				return false
			}
			if len(changes) == 0 {
				return true
			}
			last := changes[len(changes)-1]
			// Forced: the file was changed outside Foya since.
			res, err := h.k.Revert(ctx, kernel.RevertRequest{ChangeIDs: []string{last.ID}, Force: true})
			switch {
			case kernel.Code(err) == kernel.CodeBusy:
				busy.Add(1)
			case err != nil:
				t.Errorf("revert: %v", err)
				return false
			case len(res.Reverted) > 0:
				reverted.Add(1)
			}
			os.WriteFile(last.Path, []byte("changed outside\n"), 0o644)
			return true
		}
		wg.Go(func() {
			defer close(reverterGone)
			for running.Load() {
				var tried chan struct{}
				select {
				case tried = <-between:
				default:
				}
				ok := revert()
				if tried != nil {
					close(tried)
				}
				if !ok {
					return
				}
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
	t.Logf("reverts: %d made, %d refused as busy", reverted.Load(), busy.Load())
	for _, s := range []kernel.Session{sessA, sessB} {
		stored := seqs.check(t, h.k, s.ID)
		n := 0
		for _, ev := range stored {
			if ev.Type == llm.EventRunEnd {
				n++
			}
		}
		if n != runs {
			t.Errorf("session %s: %d runs ended; want %d", s.ID, n, runs)
		}
	}
}
