package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// taskArgs is the JSON of a task call.
func taskArgs(t *testing.T, description, prompt string, toolNames ...string) string {
	t.Helper()
	a := map[string]any{"description": description, "prompt": prompt}
	if toolNames != nil {
		a["tools"] = toolNames
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// childEvents returns the events stored for the sub-agent started by call
// callID, in seq order.
func childEvents(evs []llm.Event, callID string) []llm.Event {
	var out []llm.Event
	for _, ev := range evs {
		if ev.ParentCallID == callID {
			out = append(out, ev)
		}
	}
	return out
}

// endOf returns the tool.end payload of a call.
func endOf(t *testing.T, evs []llm.Event, callID string) event.ToolEndData {
	t.Helper()
	for _, ev := range evs {
		if ev.Type != event.TypeToolEnd {
			continue
		}
		var d event.ToolEndData
		json.Unmarshal(ev.Data, &d)
		if d.ID == callID {
			return d
		}
	}
	t.Fatalf("no tool.end for call %s", callID)
	return event.ToolEndData{}
}

// TestSubAgentNests: a task call starts a
// child run with a history of its own; the child's events are stored in the
// session's log, in seq order among the parent's, each naming the task call
// on its envelope, between the call's running update and its end; its run
// row is linked to the parent run and call; its final answer is the call's
// result; its messages stay out of the session's history, so the parent's
// next request does not see them; the child is offered every tool but task.
//
// spec: R1, L4
func TestSubAgentNests(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("count the go files"),
		pt.Calls(call("k1", "glob", `{"pattern":"*.go"}`)),
		pt.Say("there are 2 go files"))
	h.srv.Route(pt.FirstUser("survey the tree"),
		pt.Calls(call("t1", "task", taskArgs(t, "count go files", "count the go files in the workspace"))),
		pt.Say("the sub-agent counted 2"))
	for _, f := range []string{"a.go", "b.go"} {
		writeFile(t, filepath.Join(h.dir, f), "package a\n", 0o644)
	}
	run := h.run("survey the tree")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}

	evs, err := h.k.Events(context.Background(), run.SessionID, 0)
	if err != nil {
		t.Fatal(err)
	}
	kids := childEvents(evs, "t1")
	if len(kids) == 0 || kids[0].Type != event.TypeRunStart || kids[len(kids)-1].Type != event.TypeRunEnd {
		t.Fatalf("the child's events are %v; want run.start … run.end", types(kids))
	}
	childRun := kids[0].RunID
	if childRun == run.ID {
		t.Fatal("the child's events carry the parent's run ID")
	}
	var start event.RunStartData
	json.Unmarshal(kids[0].Data, &start)
	if start.Description != "count go files" || start.Prompt != "count the go files in the workspace" || start.ParentRunID != run.ID {
		t.Errorf("the child's run.start is %+v", start)
	}
	for i, ev := range kids {
		if ev.RunID != childRun {
			t.Errorf("child event %d (%s) is of run %s; want %s", i, ev.Type, ev.RunID, childRun)
		}
		if i > 0 && ev.Seq <= kids[i-1].Seq {
			t.Errorf("child events out of seq order: %d after %d", ev.Seq, kids[i-1].Seq)
		}
	}
	// Nested: between the task call's running update and its end.
	var running, ended int64
	for _, ev := range evs {
		switch {
		case ev.Type == event.TypeToolUpdate && ev.ParentCallID == "" && field(ev, "id") == "t1" && field(ev, "status") == "running":
			running = ev.Seq
		case ev.Type == event.TypeToolEnd && ev.ParentCallID == "" && field(ev, "id") == "t1":
			ended = ev.Seq
		}
	}
	if !(running < kids[0].Seq && kids[len(kids)-1].Seq < ended) {
		t.Errorf("the child's events (seq %d-%d) are not between the call's start (%d) and end (%d)", kids[0].Seq, kids[len(kids)-1].Seq, running, ended)
	}
	// The child's own call is in its events, not the parent's.
	if d := endOf(t, kids, "k1"); d.Name != "glob" || d.IsError {
		t.Errorf("the child's glob ended %+v", d)
	}
	if got := endOf(t, evs, "t1"); got.IsError || got.Text != "there are 2 go files" {
		t.Errorf("the task call's result is %+v; want the child's answer", got)
	}
	// What the published stream got is what was stored.
	pub := h.eventList()
	if len(childEvents(pub, "t1")) != len(kids) {
		t.Errorf("%d child events published, %d stored", len(childEvents(pub, "t1")), len(kids))
	}

	runs, err := h.k.Runs(context.Background(), run.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(runs, func(r kernel.Run) bool { return r.ID == childRun })
	if i < 0 {
		t.Fatalf("no stored run %s", childRun)
	}
	if c := runs[i]; c.ParentRunID != run.ID || c.ParentCallID != "t1" || c.Status != kernel.RunCompleted || c.Steps != 2 {
		t.Errorf("the child's run row is %+v", c)
	}

	// The child's history is its own: the parent's second request has
	// the task call and its result, not the child's glob.
	var parentReqs, childReqs []pt.Request
	for _, r := range h.srv.Requests() {
		if pt.FirstUser("survey the tree")(r) {
			parentReqs = append(parentReqs, r)
		} else {
			childReqs = append(childReqs, r)
		}
	}
	if len(parentReqs) != 2 || len(childReqs) != 2 {
		t.Fatalf("%d parent and %d child requests; want 2 and 2", len(parentReqs), len(childReqs))
	}
	for _, m := range parentReqs[1].Messages {
		if m.ToolCallID == "k1" || slices.ContainsFunc(m.ToolCalls, func(c pt.Call) bool { return c.ID == "k1" }) {
			t.Error("the parent's request holds the child's call")
		}
	}
	if slices.Contains(childReqs[0].Tools, "task") || !slices.Contains(childReqs[0].Tools, "glob") {
		t.Errorf("the child was offered %v; want every tool but task", childReqs[0].Tools)
	}
	if n := len(childReqs[0].Messages); n != 2 {
		t.Errorf("the child's first request has %d messages; want the system prompt and its prompt", n)
	}
	msgs, _ := h.k.Messages(context.Background(), run.SessionID)
	for _, m := range msgs {
		if m.RunID == childRun {
			t.Errorf("the session's history holds the child's message %+v", m.Message)
		}
	}
}

func types(evs []llm.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

// TestSubAgentAllowlist: a child given
// tools ["read"] is offered read alone, and a call of another tool (write)
// gets a clear is_error result naming what it may call, and writes
// nothing; no nested task is offered by default, and a task call by a
// child that was not given task is refused the same way.
//
// spec: A1, T4
func TestSubAgentAllowlist(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("read only job"),
		pt.Calls(call("w1", "write", `{"path":"x.txt","content":"no"}`)),
		pt.Say("could not write"))
	h.srv.Route(pt.FirstUser("default job"),
		pt.Calls(call("n1", "task", taskArgs(t, "nested", "nested job"))),
		pt.Say("no nesting"))
	h.srv.Route(pt.FirstUser("delegate"),
		pt.Calls(call("t1", "task", taskArgs(t, "reader", "read only job", "read")),
			call("t2", "task", taskArgs(t, "default", "default job"))),
		pt.Say("done"))
	run := h.run("delegate")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	evs, _ := h.k.Events(context.Background(), run.SessionID, 0)
	w := endOf(t, childEvents(evs, "t1"), "w1")
	if !w.IsError || !strings.Contains(w.Text, `unknown tool "write"`) || !strings.Contains(w.Text, "available tools: read") {
		t.Errorf("the child's write ended %+v; want an is_error result naming read as what it may call", w)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "x.txt")); err == nil {
		t.Error("the child wrote x.txt")
	}
	n := endOf(t, childEvents(evs, "t2"), "n1")
	if !n.IsError || !strings.Contains(n.Text, `unknown tool "task"`) {
		t.Errorf("the child's nested task ended %+v; want it refused", n)
	}
	for _, r := range h.srv.Requests() {
		switch {
		case pt.FirstUser("read only job")(r):
			if !slices.Equal(r.Tools, []string{"read"}) {
				t.Errorf("the reader child was offered %v; want [read]", r.Tools)
			}
		case pt.FirstUser("default job")(r):
			if slices.Contains(r.Tools, "task") {
				t.Errorf("the default child was offered task: %v", r.Tools)
			}
		case pt.FirstUser("nested job")(r):
			t.Error("a nested sub-agent started")
		}
	}
}

// TestSubAgentBadInput: an empty prompt, an
// unknown tool name in tools, a tool the session does not allow, a prompt
// over the bound, a step limit out of range and arguments of the wrong
// type each get a clear is_error result, start no child and leave the run
// going; a child that reaches its step limit ends failed, and the task's
// result says so.
//
// spec: T4, K1
func TestSubAgentBadInput(t *testing.T) {
	huge := strings.Repeat("x", 100<<10+1)
	cases := []struct {
		args, want string
	}{
		{`{"description":"d","prompt":"   "}`, "prompt is empty"},
		{taskArgs(t, "d", "job", "read", "no_such_tool"), `unknown tool name(s) in tools: "no_such_tool"`},
		{taskArgs(t, "d", huge), "prompt has 102401 bytes; at most 102400"},
		{`{"description":"d","prompt":"job","max_steps":0}`, "max_steps"},
		{`{"description":"d","prompt":"job","max_steps":5000}`, "max_steps"},
		{`{"description":"d","prompt":"job","tools":"read"}`, "tools"},
		{`{"description":"","prompt":"job"}`, "description"},
		{`{"prompt":"job"}`, "description"},
	}
	var calls []pt.Call
	for i, c := range cases {
		calls = append(calls, call(fmt.Sprintf("b%d", i), "task", c.args))
	}
	steps := taskArgs(t, "loops", "loop forever")
	steps = strings.TrimSuffix(steps, "}") + `,"max_steps":2}`
	calls = append(calls, call("s1", "task", steps))
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("loop forever"),
		pt.Calls(call("l1", "glob", `{"pattern":"*"}`)), pt.Calls(call("l2", "glob", `{"pattern":"*"}`)))
	h.srv.Route(pt.FirstUser("bad tasks"), pt.Calls(calls...), pt.Say("ok"))
	run := h.run("bad tasks")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	evs, _ := h.k.Events(context.Background(), run.SessionID, 0)
	for i, c := range cases {
		d := endOf(t, evs, fmt.Sprintf("b%d", i))
		if !d.IsError || !strings.Contains(d.Text, c.want) {
			t.Errorf("task %s ended %v %q; want an error about %q", c.args[:min(len(c.args), 80)], d.IsError, d.Text, c.want)
		}
		if len(childEvents(evs, d.ID)) > 0 {
			t.Errorf("task %s started a child", c.args[:min(len(c.args), 80)])
		}
	}
	d := endOf(t, evs, "s1")
	if !d.IsError || !strings.Contains(d.Text, "failed after 2 step(s)") || !strings.Contains(d.Text, "max_steps") {
		t.Errorf("the looping sub-agent's task ended %q; want it failed at its step limit", d.Text)
	}
}

// TestSubAgentsInParallel: three
// task calls of one answer run at once (each child's tool waits until all
// three are running, which it could not if they ran one by one), within
// the parallel lane's cap, and each result goes back in the model's order
// to the call that asked.
//
// spec: P1, P3, P4, C2
func TestSubAgentsInParallel(t *testing.T) {
	gate := &rendezvous{n: 3, all: make(chan struct{})}
	h := newHarness(t, []tools.Tool{gate})
	var calls []pt.Call
	for i := range 3 {
		job := fmt.Sprintf("job number %d", i)
		h.srv.Route(pt.FirstUser(job), pt.Calls(call(fmt.Sprintf("m%d", i), "meet", `{}`)), pt.Say(fmt.Sprintf("answer %d", i)))
		calls = append(calls, call(fmt.Sprintf("t%d", i), "task", taskArgs(t, fmt.Sprintf("child %d", i), job)))
	}
	h.srv.Route(pt.FirstUser("fan out"), pt.Calls(calls...), pt.Say("gathered"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := h.runIn(ctx, h.session("auto").ID, "fan out")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if p := gate.peak.Load(); p != 3 {
		t.Errorf("at most %d children's calls ran at once; want 3", p)
	}
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1]
	if !pt.FirstUser("fan out")(last) {
		t.Fatal("the last request is not the parent's")
	}
	got := toolMessages(last)
	if len(got) != 3 {
		t.Fatalf("%d tool messages; want 3", len(got))
	}
	for i, m := range got {
		if m.ToolCallID != fmt.Sprintf("t%d", i) || m.Content != fmt.Sprintf("answer %d", i) {
			t.Errorf("tool message %d is %s: %q; want t%d: answer %d", i, m.ToolCallID, m.Content, i, i)
		}
	}
	runs, _ := h.k.Runs(context.Background(), run.SessionID)
	if len(runs) != 4 {
		t.Errorf("%d runs stored; want the parent and 3 children", len(runs))
	}
}

// rendezvous is a parallel-safe tool whose calls wait until n of them are
// running at once (or their context ends).
type rendezvous struct {
	n    int32
	cur  atomic.Int32
	peak atomic.Int32
	all  chan struct{}
	once sync.Once
}

func (*rendezvous) Spec() tools.Spec {
	return tools.Spec{Name: "meet", Description: "Waits for the others.", ReadOnly: true, Schema: json.RawMessage(`{"type":"object"}`)}
}
func (*rendezvous) ParallelSafe(tools.Call) bool { return true }
func (r *rendezvous) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	n := r.cur.Add(1)
	defer r.cur.Add(-1)
	for p := r.peak.Load(); n > p && !r.peak.CompareAndSwap(p, n); p = r.peak.Load() {
	}
	if n >= r.n {
		r.once.Do(func() { close(r.all) })
	}
	select {
	case <-r.all:
		return tools.Text("met"), nil
	case <-ctx.Done():
		return tools.Errorf("cancelled"), nil
	}
}

// TestSubAgentApprovalNamesTheChild: in
// Manual, a child's write asks like any other call, the request names the
// sub-agent and its run, and the answer lets the child go on.
//
// spec: A1
func TestSubAgentApprovalNamesTheChild(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("write the note"),
		pt.Calls(call("w1", "write", `{"path":"note.txt","content":"hi\n"}`)), pt.Say("wrote it"))
	h.srv.Route(pt.FirstUser("list the files"),
		pt.Turn{Reasoning: "a glob will do", Calls: []pt.Call{call("g1", "glob", `{"pattern":"*"}`)}}, pt.Say("The folder has **a.go**."))
	h.srv.Route(pt.FirstUser("please delegate"),
		pt.Turn{Text: "I'll ask two helpers.", Calls: []pt.Call{call("t1", "task", taskArgs(t, "note writer", "write the note")),
			call("t2", "task", taskArgs(t, "file lister", "list the files", "glob", "read"))}},
		pt.Say("Both helpers are done."))
	writeFile(t, filepath.Join(h.dir, "a.go"), "package a\n", 0o644)
	sess := h.session("manual")
	done := make(chan kernel.Run)
	go func() { done <- h.runIn(context.Background(), sess.ID, "please delegate") }()
	var ap kernel.Approval
	for deadline := time.Now().Add(30 * time.Second); ; {
		if p := h.k.PendingApprovals(sess.ID); len(p) > 0 {
			ap = p[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no approval asked")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ap.SubAgent != "note writer" || ap.Request.CallID != "w1" {
		t.Errorf("the approval is %+v; want it to name the sub-agent and its call", ap)
	}
	if err := h.k.Answer(ap.ID, kernel.Answer{Choice: "allow_once"}); err != nil {
		t.Fatal(err)
	}
	run := <-done
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "note.txt")); err != nil {
		t.Error("the child's approved write did not happen")
	}
	evs, _ := h.k.Events(context.Background(), sess.ID, 0)
	if path := os.Getenv("FOYA_RECORD_SUBAGENT"); path != "" {
		// The front end's tests read this session as
		// frontend/src/features/testdata/subagent.jsonl.
		recordEvents(t, path, evs, h.dir)
	}
	for _, ev := range evs {
		if ev.Type == event.TypeApprovalRequest {
			var d event.ApprovalRequestData
			json.Unmarshal(ev.Data, &d)
			if ev.ParentCallID != "t1" || d.SubAgent != "note writer" || d.RunID != ev.RunID || d.RunID == run.ID {
				t.Errorf("approval.request %+v of run %s under %q; want the child's", d, ev.RunID, ev.ParentCallID)
			}
		}
	}
}

// recordEvents writes a session's stored events as foya exec --json prints
// them, the temp folder dir written as /home/me/project.
func recordEvents(t *testing.T, path string, evs []llm.Event, dir string) {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, ev := range evs {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(b.String(), dir, "/home/me/project")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSubAgentChangesRevertWithTheTurn: a
// sub-agent's write is a change of its own run, and reverting the parent's
// turn reverts it too, with the parent's own write.
//
// spec: F1
func TestSubAgentChangesRevertWithTheTurn(t *testing.T) {
	privateTrash(t)
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("write child.txt"),
		pt.Calls(call("w2", "write", `{"path":"child.txt","content":"from the child\n"}`)), pt.Say("wrote child.txt"))
	h.srv.Route(pt.FirstUser("write both"),
		pt.Calls(call("w1", "write", `{"path":"parent.txt","content":"from the parent\n"}`)),
		pt.Calls(call("t1", "task", taskArgs(t, "child writer", "write child.txt"))),
		pt.Say("both written"))
	run := h.run("write both")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	for _, f := range []string{"parent.txt", "child.txt"} {
		if _, err := os.Stat(filepath.Join(h.dir, f)); err != nil {
			t.Fatalf("%s was not written: %v", f, err)
		}
	}
	res, err := h.k.Revert(context.Background(), kernel.RevertRequest{RunID: run.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) > 0 || len(res.Reverted) != 2 {
		t.Fatalf("the revert made %d changes with conflicts %+v; want 2, none", len(res.Reverted), res.Conflicts)
	}
	for _, f := range []string{"parent.txt", "child.txt"} {
		if _, err := os.Stat(filepath.Join(h.dir, f)); err == nil {
			t.Errorf("%s is still there after the turn was reverted", f)
		}
	}
}

// TestSubAgentNestsOnlyWhenAllowed: a
// child whose tools name task may start a grandchild, whose events name the
// child's call; the grandchild may not go deeper, even when its own tools
// name task.
//
// spec: R1, T4
func TestSubAgentNestsOnlyWhenAllowed(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("grandchild job"),
		pt.Calls(call("g3", "task", taskArgs(t, "too deep", "third level"))), pt.Say("grandchild answer"))
	h.srv.Route(pt.FirstUser("child job"),
		pt.Calls(call("c2", "task", taskArgs(t, "grandchild", "grandchild job", "task"))), pt.Say("child answer"))
	h.srv.Route(pt.FirstUser("top job"),
		pt.Calls(call("t1", "task", taskArgs(t, "child", "child job", "task", "glob"))), pt.Say("top answer"))
	run := h.run("top job")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	evs, _ := h.k.Events(context.Background(), run.SessionID, 0)
	child, grand := childEvents(evs, "t1"), childEvents(evs, "c2")
	if len(child) == 0 || len(grand) == 0 {
		t.Fatalf("%d child and %d grandchild events; want both", len(child), len(grand))
	}
	var start event.RunStartData
	json.Unmarshal(grand[0].Data, &start)
	if start.ParentRunID != child[0].RunID {
		t.Errorf("the grandchild's parent run is %q; want the child's %q", start.ParentRunID, child[0].RunID)
	}
	if d := endOf(t, grand, "g3"); !d.IsError || !strings.Contains(d.Text, "nest at most 2 deep") {
		t.Errorf("the third level ended %+v; want it refused", d)
	}
	if d := endOf(t, child, "c2"); d.IsError || d.Text != "grandchild answer" {
		t.Errorf("the grandchild's task ended %+v", d)
	}
	if len(childEvents(evs, "g3")) > 0 {
		t.Error("a third level started")
	}
}

// TestExecPrintsSubAgentsIndented: in foya exec's readable output, a
// sub-agent's start, calls and end are indented lines
// on standard error, and its text is not printed as the answer: standard
// output holds the parent's text only.
func TestExecPrintsSubAgentsIndented(t *testing.T) {
	srv := pt.New(t)
	srv.Route(pt.FirstUser("count the files"), pt.Calls(call("g1", "glob", `{"pattern":"*"}`)), pt.Say("CHILD TEXT: none"))
	srv.Route(pt.FirstUser("delegate counting"),
		pt.Calls(call("t1", "task", taskArgs(t, "file counter", "count the files"))), pt.Say("The helper found none."))
	dir := t.TempDir()
	self, _ := os.Executable()
	res := runFoya(t, self, []string{"FOYA_TEST_CHILD=exec", "NO_COLOR=1"}, "exec", "--base-url", srv.URL, "--model", "m",
		"--db", filepath.Join(dir, "foya.db"), "--workdir", dir, "--approval", "auto", "delegate counting")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if strings.TrimSpace(res.stdout) != "The helper found none." {
		t.Errorf("stdout is %q; want the parent's answer only", res.stdout)
	}
	for _, want := range []string{"→ task", "  ⤷ sub-agent: file counter", "    ✓ glob *", "  ⤶ sub-agent done", "  ✓ task file counter: CHILD TEXT: none"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// TestSubAgentGrandchildGetsNoMoreThanItsParent: a child limited to [task,
// glob] that asks for a grandchild with read is refused, naming the tool,
// and no grandchild starts: a sub-agent's allowlist is intersected with its
// parent's at every level, so no child gets more than its parent.
//
// spec: A1, T4
func TestSubAgentGrandchildGetsNoMoreThanItsParent(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Route(pt.FirstUser("grandchild job"), pt.Say("grandchild answer"))
	h.srv.Route(pt.FirstUser("child job"),
		pt.Calls(call("c2", "task", taskArgs(t, "grandchild", "grandchild job", "read"))), pt.Say("child answer"))
	h.srv.Route(pt.FirstUser("top job"),
		pt.Calls(call("t1", "task", taskArgs(t, "child", "child job", "task", "glob"))), pt.Say("top answer"))
	run := h.run("top job")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	evs, _ := h.k.Events(context.Background(), run.SessionID, 0)
	if d := endOf(t, childEvents(evs, "t1"), "c2"); !d.IsError || !strings.Contains(d.Text, `tool(s) "read" are not available to this run`) {
		t.Errorf("the child's task with read ended %+v; want it refused, naming read", d)
	}
	if n := len(childEvents(evs, "c2")); n > 0 {
		t.Errorf("a grandchild started (%d events)", n)
	}
	for _, r := range h.srv.Requests() {
		if pt.FirstUser("grandchild job")(r) {
			t.Errorf("the grandchild asked the model, offered %v", r.Tools)
		}
	}
}
