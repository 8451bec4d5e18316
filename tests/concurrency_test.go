package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/provider"
	pt "foya/backend/provider/providertest"
)

// Twenty sessions run at once through one kernel, each a turn of 100 tool
// calls in batches of ten: six parallel-safe calls (read, glob, grep, ls;
// more than run at once), a write or an edit, bash (every third batch) or
// glob, then a read and an ls that see the write; half of the sessions in
// Auto (bash sandboxed), half in Full Access, each with its own scripted
// model. No event crosses sessions, each session's seq has no gap
// and no repeat as subscribers received it and as stored, and every result
// reaches its own session: each session's files, commands and results
// carry its tag, and no other tag appears in what its model was sent or
// what its calls stored. Run with -race.
//
// spec: C2, P2, P4
func TestTwentySessionsAtOnce(t *testing.T) {
	privateTrash(t)
	const sessions, steps, perStep = 20, 10, 10
	tag := func(s int) string { return fmt.Sprintf("[s%02d]", s) }
	anyTag := regexp.MustCompile(`\[s\d\d\]`)
	script := func(s int) []pt.Turn {
		var turns []pt.Turn
		last := "f00.txt" // the file written last; the workspace starts with it
		for k := range steps {
			id := func(j int) string { return fmt.Sprintf("s%02dk%02dc%d", s, k, j) }
			read := func(j int) pt.Call { return call(id(j), "read", jsonArgs(map[string]any{"path": last})) }
			grep := func(j int) pt.Call {
				return call(id(j), "grep", jsonArgs(map[string]any{"pattern": `\[s\d\d\] step`}))
			}
			calls := []pt.Call{ // six parallel-safe calls: more than run at once
				read(0), call(id(1), "glob", jsonArgs(map[string]any{"pattern": "*.txt"})), grep(2),
				call(id(3), "ls", jsonArgs(map[string]any{"path": "."})), read(4), grep(5),
			}
			if k%2 == 0 {
				last = fmt.Sprintf("f%02d.txt", k+1)
				calls = append(calls, call(id(6), "write", jsonArgs(map[string]any{"path": last, "content": fmt.Sprintf("%s step %d\n", tag(s), k)})))
			} else {
				calls = append(calls, call(id(6), "edit", jsonArgs(map[string]any{"path": last, "old_string": fmt.Sprintf("step %d\n", k-1), "new_string": fmt.Sprintf("step %d edited\n", k-1)})))
			}
			if k%3 == 2 {
				calls = append(calls, call(id(7), "bash", jsonArgs(map[string]any{"command": fmt.Sprintf("echo '%s' %s", tag(s), id(7))})))
			} else {
				calls = append(calls, call(id(7), "glob", jsonArgs(map[string]any{"pattern": "f*"})))
			}
			calls = append(calls, read(8), call(id(9), "ls", jsonArgs(map[string]any{"path": "."})))
			turns = append(turns, pt.Calls(calls...))
		}
		return append(turns, pt.Say(tag(s)+" done"))
	}
	h := newHarness(t, nil)
	seqs := newSeqCheck(h.k)
	ctx := context.Background()

	type sess struct {
		id  string
		srv *pt.Server
		run kernel.Run
	}
	all := make([]*sess, sessions)
	bySession := map[string]int{}
	for s := range all {
		srv := pt.New(t, script(s)...)
		mode := []string{"auto", "full_access"}[s%2]
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f00.txt"), []byte(tag(s)+" step -1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ks, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: dir, ApprovalMode: mode, Model: "m", Title: tag(s)})
		if err != nil {
			t.Fatal(err)
		}
		all[s] = &sess{id: ks.ID, srv: srv}
		bySession[ks.ID] = s
	}
	var wg sync.WaitGroup
	for _, x := range all {
		wg.Go(func() {
			model, err := provider.New(provider.Config{BaseURL: x.srv.URL, APIKey: "x", Model: "m", MaxRetries: -1})
			if err != nil {
				t.Error(err)
				return
			}
			run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: x.id, Prompt: "work", Model: model, MaxSteps: steps + 1})
			if err != nil {
				t.Errorf("session %s: %v", x.id, err)
			}
			x.run = run
		})
	}
	wg.Wait()

	for s, x := range all {
		if x.run.Status != kernel.RunCompleted {
			t.Fatalf("session %d: run %s: %s", s, x.run.Status, x.run.Error)
		}
		// seq: no gap, no repeat, received as stored.
		stored := seqs.check(t, h.k, x.id)
		for _, ev := range stored {
			if ev.SessionID != x.id || ev.RunID != "" && ev.RunID != x.run.ID {
				t.Errorf("session %d: stored event %d (%s) of session %s, run %s", s, ev.Seq, ev.Type, ev.SessionID, ev.RunID)
			}
			if ev.Type == event.TypeToolBegin || ev.Type == event.TypeToolEnd {
				if id, _ := field(ev, "id").(string); !strings.HasPrefix(id, fmt.Sprintf("s%02dk", s)) {
					t.Errorf("session %d: event %d %s is of call %q", s, ev.Seq, ev.Type, id)
				}
			}
			if tags := anyTag.FindAllString(string(ev.Data), -1); len(tags) > 0 {
				for _, tg := range tags {
					if tg != tag(s) {
						t.Errorf("session %d: event %d (%s) carries %s", s, ev.Seq, ev.Type, tg)
					}
				}
			}
		}
		// Every call ran, once, and its stored result is its session's.
		calls, err := h.k.Calls(ctx, x.run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != steps*perStep {
			t.Errorf("session %d: %d calls stored; want %d", s, len(calls), steps*perStep)
		}
		for _, c := range calls {
			if c.State != kernel.CallDone || c.Result == nil || c.Result.IsError {
				t.Errorf("session %d: call %s (%s) %s: %+v", s, c.ID, c.Name, c.State, c.Result)
				continue
			}
			own := c.Name == "read" || c.Name == "bash" || c.Name == "grep"
			if own && !strings.Contains(c.Result.Text, tag(s)) {
				t.Errorf("session %d: call %s (%s) result %q lacks the session's tag", s, c.ID, c.Name, c.Result.Text)
			}
			for _, tg := range anyTag.FindAllString(c.Result.Text, -1) {
				if tg != tag(s) {
					t.Errorf("session %d: call %s (%s) result carries %s: %q", s, c.ID, c.Name, tg, c.Result.Text)
				}
			}
		}
		// What the model was sent: the results of its own calls, in order.
		reqs := x.srv.Requests()
		if len(reqs) != steps+1 {
			t.Fatalf("session %d: %d model requests; want %d", s, len(reqs), steps+1)
		}
		tm := toolMessages(reqs[steps])
		if len(tm) != steps*perStep {
			t.Errorf("session %d: the last request has %d tool messages; want %d", s, len(tm), steps*perStep)
		}
		for i, m := range tm {
			if want := fmt.Sprintf("s%02dk%02dc%d", s, i/perStep, i%perStep); m.ToolCallID != want {
				t.Errorf("session %d: tool message %d answers %s; want %s", s, i, m.ToolCallID, want)
			}
			for _, tg := range anyTag.FindAllString(m.Content, -1) {
				if tg != tag(s) {
					t.Errorf("session %d: the model got %s in the result of %s", s, tg, m.ToolCallID)
				}
			}
		}
	}
	// Everything subscribers received belongs to one of these sessions.
	for _, ev := range h.eventList() {
		if _, ok := bySession[ev.SessionID]; !ok {
			t.Errorf("an event of session %q (%s) that no run here made", ev.SessionID, ev.Type)
		}
	}
	var n int
	seqs.mu.Lock()
	for _, x := range all {
		n += len(seqs.got[x.id])
	}
	seqs.mu.Unlock()
	t.Logf("%d sessions, %d calls, %d events received", sessions, sessions*steps*perStep, n)
}
