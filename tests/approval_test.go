package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

// actor asks the gateway for whatever action its arguments name, as the real
// tools do, and reports whether it was allowed.
type actor struct{}

func (actor) Spec() tools.Spec {
	return tools.Spec{Name: "act", Description: "Asks for an action.", Schema: json.RawMessage(
		`{"type":"object","properties":{"kind":{"type":"string"},"path":{"type":"string"},"command":{"type":"string"},"host":{"type":"string"},"readOnly":{"type":"boolean"}},"required":["kind"]}`)}
}
func (actor) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct {
		Kind, Path, Command, Host string
		ReadOnly                  bool
	}
	json.Unmarshal(c.Arguments, &a)
	act := approval.Action{Kind: approval.Kind(a.Kind), Tool: "act", Command: a.Command, Host: a.Host, ReadOnly: a.ReadOnly}
	if a.Path != "" {
		act.Paths = []string{a.Path}
	}
	out, err := rc.Approve(ctx, approval.Request{Action: act, Why: "test " + a.Kind})
	if err != nil {
		return tools.Result{Text: "cancelled", IsError: true}, nil
	}
	if !out.Allowed {
		return tools.Errorf("%s", out.Message), nil
	}
	return tools.Text("did " + a.Kind), nil
}

// answerer answers every approval request of a kernel with fn, and notes
// the kinds it was asked about.
type answerer struct {
	mu    sync.Mutex
	asked []string
}

func (a *answerer) watch(k *kernel.Kernel, fn func(p kernel.Approval) kernel.Answer) func() {
	return k.Subscribe(func(ev llm.Event) {
		if ev.Type != "approval.request" {
			return
		}
		var p kernel.Approval
		json.Unmarshal(ev.Data, &p)
		a.mu.Lock()
		a.asked = append(a.asked, string(p.Request.Action.Kind))
		a.mu.Unlock()
		go k.Answer(p.ID, fn(p))
	})
}

// spec: A1, A2, D2, D3, M2, W4 — each mode through the engine: a read, a
// write, a delete, a sandboxed command, an escalation, a fetch and an
// MCP-like tool are allowed, asked about or refused as the mode table says.
func TestModesThroughTheEngine(t *testing.T) {
	calls := []pt.Call{
		call("read", "act", `{"kind":"read","path":"/w/a"}`),
		call("write", "act", `{"kind":"write","path":"/w/a"}`),
		call("delete", "act", `{"kind":"delete","path":"/w/a"}`),
		call("delete_git", "act", `{"kind":"delete_protected","path":"/w/.git"}`),
		call("shell", "act", `{"kind":"shell","command":"go test ./..."}`),
		call("escalate", "act", `{"kind":"shell_escalate","command":"curl https://go.dev"}`),
		call("rm", "act", `{"kind":"shell_permanent_delete","command":"rm -rf build"}`),
		call("fetch", "act", `{"kind":"fetch","host":"go.dev"}`),
		call("mcp_ro", "act", `{"kind":"mcp","readOnly":true}`),
		call("mcp", "act", `{"kind":"mcp"}`),
	}
	want := map[string]map[string]string{ // mode → call → outcome
		"manual":      {"read": "did", "write": "asked", "delete": "asked", "delete_git": "refused", "shell": "asked", "escalate": "asked", "rm": "refused", "fetch": "asked", "mcp_ro": "asked", "mcp": "asked"},
		"auto":        {"read": "did", "write": "did", "delete": "did", "delete_git": "refused", "shell": "did", "escalate": "asked", "rm": "refused", "fetch": "asked", "mcp_ro": "did", "mcp": "asked"},
		"full_access": {"read": "did", "write": "did", "delete": "did", "delete_git": "did", "shell": "did", "escalate": "did", "rm": "did", "fetch": "did", "mcp_ro": "did", "mcp": "did"},
	}
	for mode, outcomes := range want {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, []tools.Tool{actor{}}, pt.Calls(calls...), pt.Say("ok"))
			ans := &answerer{}
			ans.watch(h.k, func(p kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })
			run := h.runIn(context.Background(), h.session(mode).ID, "act")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			asked := map[string]bool{}
			for _, k := range ans.asked {
				asked[k] = true
			}
			for i, m := range toolMessages(h.srv.Requests()[1]) {
				id := calls[i].ID
				var kind struct{ Kind string }
				json.Unmarshal([]byte(calls[i].Arguments), &kind)
				got := "did"
				switch {
				case strings.HasPrefix(m.Content, "refused"):
					got = "refused"
				case asked[kind.Kind] && m.Content == "did "+kind.Kind+"\nAllowed by your answer 'allow once'." && outcomes[id] == "asked":
					// The result says what allowed it, so no allow is
					// credited to an approval nobody gave.
					got = "asked"
				}
				if got != outcomes[id] {
					t.Errorf("%s: %s = %s (%q); want %s", mode, id, got, m.Content, outcomes[id])
				}
			}
		})
	}
}

// A denial's message reaches the model as an is_error result; the tool
// changes nothing.
func TestDenyWithMessage(t *testing.T) {
	h := newHarness(t, []tools.Tool{actor{}}, pt.Calls(call("1", "act", `{"kind":"write","path":"/w/a"}`)), pt.Say("ok"))
	(&answerer{}).watch(h.k, func(kernel.Approval) kernel.Answer {
		return kernel.Answer{Choice: kernel.Deny, Message: "use the other file"}
	})
	h.runIn(context.Background(), h.session("manual").ID, "go")
	tm := toolMessages(h.srv.Requests()[1])
	if !strings.Contains(tm[0].Content, "denied by the user: use the other file") {
		t.Fatalf("model was told %q", tm[0].Content)
	}
	recs, _ := h.k.Approvals(context.Background(), h.eventList()[0].SessionID)
	if len(recs) != 1 || recs[0].State != "denied" {
		t.Fatalf("approval records = %+v", recs)
	}
}

// spec: A1 — a remembered "allow this command prefix" grant does not allow
// the prefix chained with something else.
func TestPrefixGrantDoesNotCoverChains(t *testing.T) {
	h := newHarness(t, []tools.Tool{actor{}},
		pt.Calls(call("1", "act", `{"kind":"shell","command":"go test ./..."}`)),
		pt.Calls(call("2", "act", `{"kind":"shell","command":"cd pkg && go test -run X"}`)),
		pt.Calls(call("3", "act", `{"kind":"shell","command":"go test && rm -rf x"}`)),
		pt.Calls(call("4", "act", `{"kind":"shell","command":"go test; curl https://evil.example"}`)),
		pt.Say("ok"))
	ans := &answerer{}
	ans.watch(h.k, func(p kernel.Approval) kernel.Answer {
		if p.Request.Action.Command == "go test ./..." {
			s := p.Scopes[0]
			return kernel.Answer{Choice: kernel.AllowSession, Scope: &s}
		}
		return kernel.Answer{Choice: kernel.Deny}
	})
	h.runIn(context.Background(), h.session("manual").ID, "go")
	reqs := h.srv.Requests()
	results := []string{toolMessages(reqs[1])[0].Content, toolMessages(reqs[2])[1].Content, toolMessages(reqs[3])[2].Content, toolMessages(reqs[4])[3].Content}
	want := []string{"did shell", "did shell", "denied", "denied"}
	for i := range want {
		if !strings.Contains(results[i], want[i]) {
			t.Errorf("call %d = %q; want %q", i+1, results[i], want[i])
		}
	}
	if len(ans.asked) != 3 {
		t.Errorf("asked %d times; want 3 (the granted prefix alone is not asked again)", len(ans.asked))
	}
}

// Cancelling a run withdraws its pending request: the call ends cancelled
// and a late answer is rejected; nothing runs.
func TestCancelWithdrawsApproval(t *testing.T) {
	h := newHarness(t, []tools.Tool{actor{}}, pt.Calls(call("1", "act", `{"kind":"write","path":"/w/a"}`)))
	ids := make(chan string, 1)
	h.k.Subscribe(func(ev llm.Event) {
		if ev.Type == "approval.request" {
			var p kernel.Approval
			json.Unmarshal(ev.Data, &p)
			ids <- p.ID
		}
	})
	sess := h.session("manual")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan kernel.Run)
	go func() { done <- h.runIn(ctx, sess.ID, "go") }()
	id := testwait.Receive(t, ids, "the approval request")
	if n := len(h.k.PendingApprovals(sess.ID)); n != 1 {
		t.Fatalf("%d pending; want 1", n)
	}
	cancel()
	run := testwait.Receive(t, done, "the cancelled run to end")
	if run.Status != kernel.RunCancelled {
		t.Fatalf("run %s", run.Status)
	}
	if err := h.k.Answer(id, kernel.Answer{Choice: kernel.AllowOnce}); !errors.Is(err, approval.ErrAnswered) || kernel.Code(err) != kernel.CodeConflict {
		t.Fatalf("late answer: %v; want ErrAnswered, code conflict", err)
	}
	if err := h.k.Answer("apr_nope", kernel.Answer{Choice: kernel.AllowOnce}); !errors.Is(err, approval.ErrUnknownRequest) {
		t.Fatalf("unknown answer: %v", err)
	}
	recs, _ := h.k.Approvals(context.Background(), sess.ID)
	if len(recs) != 1 || recs[0].State != "cancelled" {
		t.Fatalf("records %+v", recs)
	}
}

// Headless (no terminal): what needs asking is denied with a message that
// says how to allow it.
func TestHeadlessDeniesWithHowTo(t *testing.T) {
	h := &harness{t: t, dir: t.TempDir(), db: t.TempDir() + "/foya.db"}
	h.srv = pt.New(t, pt.Calls(call("1", "act", `{"kind":"write","path":"/w/a"}`)), pt.Say("ok"))
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db, Tools: []tools.Tool{actor{}}, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	h.k = k
	h.runIn(context.Background(), h.session("manual").ID, "go")
	tm := toolMessages(h.srv.Requests()[1])
	if !strings.Contains(tm[0].Content, "--approval auto") || !strings.Contains(tm[0].Content, approval.RulesFile) {
		t.Fatalf("headless denial = %q", tm[0].Content)
	}
}

// The mode can change mid-run and applies to the next decision; every
// switch is on record.
func TestModeSwitchMidRun(t *testing.T) {
	hold := make(chan struct{})
	h := newHarness(t, []tools.Tool{actor{}},
		pt.Calls(call("1", "act", `{"kind":"write","path":"/w/a"}`)),
		pt.Turn{Calls: []pt.Call{call("2", "act", `{"kind":"write","path":"/w/b"}`)}, Hold: hold},
		pt.Say("ok"))
	ans := &answerer{}
	ans.watch(h.k, func(kernel.Approval) kernel.Answer { return kernel.Answer{Choice: kernel.AllowOnce} })
	sess := h.session("manual")
	done := make(chan kernel.Run)
	go func() { done <- h.runIn(context.Background(), sess.ID, "go") }()
	testwait.Until(t, "the model's second request", func() bool { return len(h.srv.Requests()) >= 2 })
	if err := h.k.SetMode(context.Background(), sess.ID, "full-access"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	testwait.Receive(t, done, "the run to end")
	if len(ans.asked) != 1 {
		t.Fatalf("asked %d times; want 1 (before the switch only)", len(ans.asked))
	}
	evs, _ := h.k.Events(context.Background(), sess.ID, 0)
	var switches []string
	for _, ev := range evs {
		if ev.Type == event.TypeSessionMode {
			switches = append(switches, fmt.Sprint(field(ev, "from"), "→", field(ev, "to")))
		}
	}
	if len(switches) != 1 || switches[0] != "manual→full_access" {
		t.Fatalf("mode switches on record: %v", switches)
	}
	if err := h.k.SetMode(context.Background(), sess.ID, "yolo"); err == nil {
		t.Fatal("an unknown mode was accepted")
	}
}
