package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/testwait"
	"foya/backend/tools"
)

func call(id, name, args string) pt.Call { return pt.Call{ID: id, Name: name, Arguments: args} }

// spec: L3, L4 — one run's events, in order, each stored with its seq.
func TestRunEventsInOrder(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{recorder{tr}},
		pt.Turn{Text: "Let me record.", Calls: []pt.Call{call("c1", "record", `{"tag":"a"}`)}},
		pt.Say("Done."))
	run := h.run("hello")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run = %s (%s); want completed", run.Status, run.Error)
	}
	var types []string
	var last int64
	for _, ev := range h.eventList() {
		if ev.SessionID != run.SessionID || ev.RunID != run.ID {
			t.Fatalf("event %s has session %q run %q", ev.Type, ev.SessionID, ev.RunID)
		}
		if ev.Seq != last+1 {
			t.Fatalf("event %s seq %d after %d", ev.Type, ev.Seq, last)
		}
		last = ev.Seq
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
	}
	want := []string{"run.start", "step.start", "text.delta", "tool.begin", "tool.update", "tool.end", "step.end",
		"step.start", "text.delta", "step.end", "run.end"}
	if !slices.Equal(types, want) {
		t.Fatalf("event types:\n got %v\nwant %v", types, want)
	}
	stored, err := h.k.Events(context.Background(), run.SessionID, 0)
	if err != nil || len(stored) != int(last) {
		t.Fatalf("stored %d events (%v); published %d", len(stored), err, last)
	}
	reqs := h.srv.Requests()
	tm := toolMessages(reqs[1])
	if len(tm) != 1 || tm[0].ToolCallID != "c1" || tm[0].Content != "recorded a" {
		t.Fatalf("tool message fed back = %+v", tm)
	}
}

// spec: P1, P2, P3, P4, K2 — parallel-safe calls run at most five at once;
// results go back in the model's order whatever order they finished in,
// one for each call: none dropped, none repeated (without the count a
// dropped tool message passed).
func TestParallelLaneCapAndOrder(t *testing.T) {
	tr := &tracker{}
	var calls []pt.Call
	for i := range 10 {
		// Earlier calls sleep longer, so they finish last; each first waits
		// until five have run at once, so that the peak is the lane's cap
		// however slowly the machine starts them.
		calls = append(calls, call(fmt.Sprintf("p%d", i), "sleep", fmt.Sprintf(`{"ms":%d,"tag":"p%d","with":5}`, 150-i*10, i)))
	}
	h := newHarness(t, []tools.Tool{sleeper{tr}}, pt.Calls(calls...), pt.Say("ok"))
	run := h.run("sleep a lot")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if p := tr.peak.Load(); p != 5 {
		t.Fatalf("peak parallel calls = %d; want 5 (spec P3)", p)
	}
	tm := toolMessages(h.srv.Requests()[1])
	if len(tm) != len(calls) {
		t.Fatalf("%d tool messages fed back; want %d, one per call: %+v", len(tm), len(calls), tm)
	}
	for i, m := range tm {
		if want := fmt.Sprintf("p%d", i); m.ToolCallID != want || m.Content != "slept "+want {
			t.Fatalf("tool message %d = %s %q; want %s in model order", i, m.ToolCallID, m.Content, want)
		}
	}
}

// spec: P1, P2, P5 — calls whose tool does not declare Parallel run alone,
// in the model's order, never overlapping another call.
func TestSerialLaneKeepsModelOrder(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{sleeper{tr}, recorder{tr}}, pt.Calls(
		call("1", "record", `{"tag":"r1"}`),
		call("2", "sleep", `{"ms":30,"tag":"s1","with":2}`), // s1 and s2 wait for each other: they overlap
		call("3", "sleep", `{"ms":10,"tag":"s2","with":2}`),
		call("4", "record", `{"tag":"r2"}`),
		call("5", "record", `{"tag":"r3"}`),
		call("6", "sleep", `{"ms":5,"tag":"s3"}`),
	), pt.Say("ok"))
	if run := h.run("mix"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	log := tr.entries()
	for _, l := range log {
		if strings.HasPrefix(l, "overlap") {
			t.Fatalf("serial call overlapped: %v", log)
		}
	}
	pos := func(s string) int { return slices.Index(log, s) }
	// r1 ends before the sleeps start; the sleeps end before r2; r2 before r3; r3 before s3.
	order := [][2]string{{"end r1", "start s1"}, {"end r1", "start s2"}, {"end s1", "start r2"}, {"end s2", "start r2"},
		{"end r2", "start r3"}, {"end r3", "start s3"}}
	for _, o := range order {
		if pos(o[0]) < 0 || pos(o[0]) > pos(o[1]) {
			t.Fatalf("%q should come before %q: %v", o[0], o[1], log)
		}
	}
	if pos("start s2") > pos("end s1") {
		t.Fatalf("adjacent parallel calls s1 and s2 did not overlap: %v", log)
	}
	tm := toolMessages(h.srv.Requests()[1])
	var ids []string
	for _, m := range tm {
		ids = append(ids, m.ToolCallID)
	}
	if !slices.Equal(ids, []string{"1", "2", "3", "4", "5", "6"}) {
		t.Fatalf("tool messages in order %v", ids)
	}
}

// spec: L1, L2 — clients hear of a call while its arguments still stream;
// the tool runs only once they are complete.
func TestToolBeginBeforeArgumentsComplete(t *testing.T) {
	var ran atomic.Int32
	hold := make(chan struct{})
	first := `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"probe","arguments":"{\"a\":"}}]}}]}`
	rest := `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}`
	h := newHarness(t, []tools.Tool{named{name: "probe", desc: "probe", calls: &ran}},
		pt.Turn{Raw: []string{first, rest, "data: [DONE]"}, Hold: hold}, pt.Say("ok"))
	done := make(chan kernel.Run)
	go func() { done <- h.run("go") }()
	deadline := time.After(10 * time.Second)
	for {
		evs := h.eventList()
		if slices.ContainsFunc(evs, func(e llm.Event) bool { return e.Type == event.TypeToolBegin }) &&
			slices.ContainsFunc(evs, func(e llm.Event) bool { return e.Type == event.TypeToolUpdate && field(e, "argsDelta") == `{"a":` }) {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("no tool.begin/tool.update while the arguments streamed: %v", evs)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("tool ran %d times on half its arguments", n)
	}
	close(hold)
	if run := testwait.Receive(t, done, "the run to end"); run.Status != kernel.RunCompleted || ran.Load() != 1 {
		t.Fatalf("run %s, tool ran %d times; want completed, once", run.Status, ran.Load())
	}
}

// spec: L2, K4 — a stream cut in the middle of a call's arguments runs
// nothing and fails the run with a clear error; history stays intact.
func TestCutStreamRunsNothing(t *testing.T) {
	var ran atomic.Int32
	h := newHarness(t, []tools.Tool{named{name: "probe", desc: "probe", calls: &ran}},
		pt.Turn{Calls: []pt.Call{call("c1", "probe", `{"a": 1, "b": 2, "c": 3}`)}, CutAfter: 3})
	run := h.run("go")
	if run.Status != kernel.RunFailed || !strings.Contains(run.Error, "model") || ran.Load() != 0 {
		t.Fatalf("run %s %q, ran %d; want failed with a model error, nothing run", run.Status, run.Error, ran.Load())
	}
	calls, _ := h.k.Calls(context.Background(), run.ID)
	if len(calls) != 1 || calls[0].State != kernel.CallError || !strings.Contains(calls[0].Result.Text, "not run") {
		t.Fatalf("calls = %+v", calls)
	}
	msgs, _ := h.k.Messages(context.Background(), run.SessionID)
	if len(msgs) != 1 || msgs[0].Message.Role != kernel.RoleUser {
		t.Fatalf("history after a cut stream = %+v; want just the prompt", msgs)
	}
}

// spec: E1, E2, K3, R3 — a deferred tool is not offered until tool_search
// activates it, is callable from the next step, and is gone next turn;
// hidden tools never appear and cannot be called (A1).
func TestDeferredActivationLastsOneTurn(t *testing.T) {
	var ran, hiddenRan atomic.Int32
	h := newHarness(t, []tools.Tool{
		named{name: "weather_lookup", desc: "Look up the weather forecast for a city.", exp: tools.Deferred, calls: &ran},
		named{name: "stock_quote", desc: "Get a stock price.", exp: tools.Deferred},
		named{name: "secret_admin", desc: "Hidden.", exp: tools.Hidden, calls: &hiddenRan},
	},
		pt.Calls(call("a", "weather_lookup", `{}`), call("h", "secret_admin", `{}`)), // not yet active; hidden
		pt.Calls(call("b", "tool_search", `{"query":"weather forecast"}`)),
		pt.Calls(call("c", "weather_lookup", `{}`)),
		pt.Say("sunny"),
		pt.Say("next turn"),
	)
	sess := h.session("auto")
	run := h.runIn(context.Background(), sess.ID, "weather?")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	reqs := h.srv.Requests()
	if slices.Contains(reqs[0].Tools, "weather_lookup") || slices.Contains(reqs[0].Tools, "secret_admin") || !slices.Contains(reqs[0].Tools, "tool_search") {
		t.Fatalf("step 1 tools = %v", reqs[0].Tools)
	}
	tm := toolMessages(reqs[1])
	if !strings.Contains(tm[0].Content, "unknown tool") || !strings.Contains(tm[1].Content, "unknown tool") || hiddenRan.Load() != 0 {
		t.Fatalf("calling inactive/hidden tools: %+v (hidden ran %d)", tm, hiddenRan.Load())
	}
	if slices.Contains(reqs[1].Tools, "weather_lookup") {
		t.Fatalf("weather_lookup offered before activation: %v", reqs[1].Tools)
	}
	if !slices.Contains(reqs[2].Tools, "weather_lookup") || slices.Contains(reqs[2].Tools, "stock_quote") {
		t.Fatalf("step 3 tools = %v; want weather_lookup activated, stock_quote not", reqs[2].Tools)
	}
	if ran.Load() != 1 {
		t.Fatalf("weather_lookup ran %d times; want 1 (after activation)", ran.Load())
	}
	h.runIn(context.Background(), sess.ID, "again")
	reqs = h.srv.Requests()
	if slices.Contains(reqs[4].Tools, "weather_lookup") {
		t.Fatalf("next turn still offers weather_lookup: %v (spec K3)", reqs[4].Tools)
	}
}

// spec: R2 — the tool section of the request is byte-identical across steps.
func TestToolSectionIsByteStable(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{recorder{tr}, sleeper{tr}, imager{}},
		pt.Calls(call("1", "record", `{"tag":"a"}`)),
		pt.Calls(call("2", "sleep", `{"ms":1}`)),
		pt.Say("ok"))
	h.run("go")
	reqs := h.srv.Requests()
	section := func(raw []byte) string {
		var body struct {
			Tools json.RawMessage `json:"tools"`
		}
		json.Unmarshal(raw, &body)
		return string(body.Tools)
	}
	first := section(reqs[0].Raw)
	if first == "" || !slices.IsSorted(reqs[0].Tools) {
		t.Fatalf("tools %v not sorted or missing", reqs[0].Tools)
	}
	for i, r := range reqs[1:] {
		if s := section(r.Raw); s != first {
			t.Fatalf("step %d tool section differs:\n%s\n%s", i+2, first, s)
		}
		if !bytes.HasPrefix(r.Raw, reqs[0].Raw[:bytes.Index(reqs[0].Raw, []byte(`"messages"`))]) {
			t.Fatalf("request %d starts differently from the first", i+2)
		}
	}
}

// spec: T4, K1 — unknown tools, broken JSON and schema mismatches come back
// as is_error results; the run goes on.
func TestBusinessErrorsGoBackToTheModel(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{recorder{tr}},
		pt.Calls(
			call("1", "nope", `{}`),
			call("2", "record", `{"tag": "a"`),
			call("3", "record", `{"tag": 7}`),
			call("4", "record", `{"tag": "ok", "extra": 1}`),
		),
		pt.Say("I see."))
	run := h.run("go")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	tm := toolMessages(h.srv.Requests()[1])
	wants := []string{`unknown tool "nope"`, "not valid JSON", "/tag", "extra"}
	for i, w := range wants {
		if !strings.Contains(tm[i].Content, w) {
			t.Errorf("result %d = %q; want it to mention %q", i, tm[i].Content, w)
		}
	}
	if len(tr.entries()) != 0 {
		t.Fatalf("invalid calls ran: %v", tr.entries())
	}
}

// spec: K4 — a tool's runtime error ends the run with a clear error, and
// every call still gets an answer in the history.
func TestRuntimeErrorEndsTheRun(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{broken{}, recorder{tr}},
		pt.Calls(call("1", "broken", `{}`), call("2", "record", `{"tag":"never"}`)))
	run := h.run("go")
	if run.Status != kernel.RunFailed || !strings.Contains(run.Error, "disk on fire") {
		t.Fatalf("run %s %q; want failed naming the error", run.Status, run.Error)
	}
	if len(tr.entries()) != 0 {
		t.Fatalf("a call after the failure ran: %v", tr.entries())
	}
	msgs, _ := h.k.Messages(context.Background(), run.SessionID)
	var tools int
	for _, m := range msgs {
		if m.Message.Role == kernel.RoleTool {
			tools++
		}
	}
	if tools != 2 {
		t.Fatalf("%d tool messages; want an answer for both calls", tools)
	}
}

// spec: X1 — cancelling a run cancels its running calls; the run ends
// cancelled and the history answers every call.
func TestCancelStopsRunningCalls(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{sleeper{tr}},
		pt.Calls(call("1", "sleep", `{"ms":60000,"tag":"long"}`), call("2", "sleep", `{"ms":60000,"tag":"long2"}`)))
	sess := h.session("auto")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan kernel.Run)
	go func() { done <- h.runIn(ctx, sess.ID, "go") }()
	testwait.Until(t, "both calls to run", func() bool { return tr.running.Load() >= 2 })
	cancel()
	run := testwait.Receive(t, done, "the cancelled run to end")
	if run.Status != kernel.RunCancelled {
		t.Fatalf("run %s; want cancelled", run.Status)
	}
	calls, _ := h.k.Calls(context.Background(), run.ID)
	for _, c := range calls {
		if c.State != kernel.CallCancelled {
			t.Fatalf("call %s is %s; want cancelled", c.ID, c.State)
		}
	}
	if tr.running.Load() != 0 {
		t.Fatal("a call is still running after the run ended")
	}
}

// spec: I1, I2, I3 — an image goes to the artifact store, events carry its
// ID only, and the next request reads it back.
func TestImagesBecomeArtifacts(t *testing.T) {
	h := newHarness(t, []tools.Tool{imager{}}, pt.Calls(call("1", "screenshot", `{}`)), pt.Say("I see a red dot"))
	run := h.run("look")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	var artID string
	for _, ev := range h.eventList() {
		if bytes.Contains(ev.Data, []byte("PNG")) || len(ev.Data) > 4096 {
			t.Fatalf("event %s carries binary data", ev.Type)
		}
		if ev.Type == event.TypeToolEnd {
			arts, _ := field(ev, "artifacts").([]any)
			if len(arts) == 1 {
				artID, _ = arts[0].(string)
			}
		}
	}
	a, err := h.k.Artifact(context.Background(), run.SessionID, artID)
	if err != nil || a.MIME != "image/png" || !bytes.HasPrefix(a.Data, []byte("\x89PNG")) {
		t.Fatalf("artifact %q: %+v %v", artID, a.MIME, err)
	}
	var found bool
	for _, m := range h.srv.Requests()[1].Messages {
		for _, img := range m.Images {
			found = found || strings.HasPrefix(img, "data:image/png;base64,")
		}
	}
	if !found {
		t.Fatal("the next request did not carry the image back")
	}
}

// A run stops at the step limit with a clear message.
func TestStepLimit(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{recorder{tr}},
		pt.Calls(call("1", "record", `{"tag":"a"}`)), pt.Calls(call("2", "record", `{"tag":"b"}`)), pt.Calls(call("3", "record", `{"tag":"c"}`)))
	sess := h.session("auto")
	run, err := h.k.Run(context.Background(), kernelRun(sess.ID, "loop", h, 2))
	if err != nil || run.Status != kernel.RunFailed || !strings.Contains(run.Error, "2 model steps") {
		t.Fatalf("run %s %q %v; want a failure naming the limit", run.Status, run.Error, err)
	}
}

// halter ends the batch and carries a diff for display only.
type halter struct{}

func (halter) Spec() tools.Spec { return tools.Spec{Name: "halt", Description: "Stops the batch."} }
func (halter) Run(context.Context, *tools.RunContext, tools.Call) (tools.Result, error) {
	return tools.Result{Text: "halted", StopBatch: true, DisplayDiff: "--- a\n+++ b\n@@ -1 +1 @@\n-SECRET-DIFF\n+x\n"}, nil
}

// spec: T3, F2 — a result's stop-batch signal ends the batch (later calls do
// not run and say so), and its display diff reaches clients but never the model.
func TestStopBatchAndDisplayDiff(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{halter{}, recorder{tr}},
		pt.Calls(call("1", "halt", `{}`), call("2", "record", `{"tag":"x"}`)), pt.Say("ok"))
	run := h.run("go")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if len(tr.entries()) != 0 {
		t.Fatalf("a call after stop-batch ran: %v", tr.entries())
	}
	tm := toolMessages(h.srv.Requests()[1])
	if len(tm) != 2 || tm[0].Content != "halted" || !strings.Contains(tm[1].Content, "halt ended this batch") {
		t.Fatalf("tool messages = %+v", tm)
	}
	if bytes.Contains(h.srv.Requests()[1].Raw, []byte("SECRET-DIFF")) {
		t.Fatal("the display diff was sent to the model")
	}
	var shown bool
	for _, ev := range h.eventList() {
		shown = shown || ev.Type == event.TypeToolEnd && strings.Contains(fmt.Sprint(field(ev, "displayDiff")), "SECRET-DIFF")
	}
	if !shown {
		t.Fatal("no tool.end event carried the display diff")
	}
}
