package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// These tests replay, through the kernel, what real OpenAI-compatible
// servers send, which differ in framing and errors; each is named for the
// server behaviour.

const (
	// llamaRole is llama.cpp's first chunk: the role, no content.
	llamaRole = `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1764579600,"id":"chatcmpl-Qx3","model":"qwen2.5-coder","system_fingerprint":"b6100-5c0eb5ef","object":"chat.completion.chunk"}`
	// llamaCtxError is the "error:" field line llama.cpp's server sends
	// when the request exceeds its context.
	llamaCtxError = `error: {"code":500,"message":"the request exceeds the available context size, try increasing it","type":"server_error"}`
)

// stepEnds returns the step.end events of a run's stored events.
func stepEnds(t *testing.T, h *harness, run kernel.Run) []llm.Event {
	t.Helper()
	evs, err := h.k.Events(context.Background(), run.SessionID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []llm.Event
	for _, ev := range evs {
		if ev.RunID == run.ID && ev.Type == event.TypeStepEnd {
			out = append(out, ev)
		}
	}
	return out
}

// data is the first event's data, for failure messages.
func data(evs []llm.Event) string {
	if len(evs) == 0 {
		return "none"
	}
	return string(evs[0].Data)
}

// spec: K4 — a failure the server reports inside the stream (llama.cpp's
// "error:" line, vLLM's and OpenRouter's error chunk) or a stream with no
// answer at all fails the run with the server's message; it is never
// shown as a completed, empty answer, and nothing is added to the history.
func TestServerErrorInTheStreamFailsTheRun(t *testing.T) {
	tests := []struct {
		name string
		raw  []string
		want string
	}{
		{"llama.cpp error field line then [DONE]", []string{llamaRole, llamaCtxError, "data: [DONE]"},
			"the request exceeds the available context size, try increasing it"},
		{"llama.cpp error field line with a body that is not JSON", []string{llamaRole, "error: slot 0 crashed <pre>", "data: [DONE]"},
			"slot 0 crashed <pre>"},
		{"vLLM error chunk mid-stream", []string{
			`data: {"id":"chatcmpl-7f","object":"chat.completion.chunk","created":1764579600,"model":"Qwen/Qwen2.5-Coder-32B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
			`data: {"error": {"object": "error", "message": "This model's maximum context length is 32768 tokens. However, you requested 33012 tokens.", "type": "BadRequestError", "param": null, "code": 400}}`,
			"data: [DONE]"}, "maximum context length is 32768 tokens"},
		{"OpenRouter error chunk mid-stream", []string{
			`data: {"id":"gen-1","object":"chat.completion.chunk","created":1764579600,"model":"qwen/qwen3-coder","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me"},"finish_reason":null}]}`,
			": OPENROUTER PROCESSING",
			`data: {"id":"gen-1","object":"chat.completion.chunk","created":1764579600,"model":"qwen/qwen3-coder","provider":"Chutes","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
			"data: [DONE]"}, "Provider disconnected unexpectedly"},
		{"[DONE] with no answer", []string{llamaRole, "data: [DONE]"},
			"the model's stream ended without an answer: no text, no tool call, no finish reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, pt.Turn{Raw: tt.raw})
			run := h.run("hello")
			if run.Status != kernel.RunFailed || !strings.Contains(run.Error, tt.want) {
				t.Fatalf("run %s %q; want failed with %q", run.Status, run.Error, tt.want)
			}
			msgs, err := h.k.Messages(context.Background(), run.SessionID)
			if err != nil || len(msgs) != 1 || msgs[0].Message.Role != kernel.RoleUser {
				t.Fatalf("history = %+v (%v); want just the prompt", msgs, err)
			}
			ends := stepEnds(t, h, run)
			if len(ends) != 1 || !strings.Contains(fmt.Sprint(field(ends[0], "error")), tt.want) {
				t.Fatalf("%d step.end events (first %s); want one naming the error", len(ends), data(ends))
			}
		})
	}
}

// spec: P4, P3 — one delta carries several tool_calls entries out of index
// order and the fragments of different calls alternate: the calls run, are
// stored, and go back to the model (assistant message and results) in index
// order, the model's order, not in the order they opened.
func TestToolCallEntriesOutOfIndexOrder(t *testing.T) {
	tr := &tracker{}
	chunk := func(delta string) string {
		return `data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1764579600,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
	}
	raw := []string{
		chunk(`{"role":"assistant","tool_calls":[` +
			`{"index":1,"id":"call_b","type":"function","function":{"name":"record","arguments":"{\"tag\":"}},` +
			`{"index":0,"id":"call_a","type":"function","function":{"name":"record","arguments":"{\"ta"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"g\":\"a\"}"}},{"index":2,"id":"call_c","type":"function","function":{"name":"record","arguments":""}},{"index":1,"function":{"arguments":"\"b\"}"}}]}`),
		chunk(`{"tool_calls":[{"index":2,"function":{"arguments":"{\"tag\":\"c\"}"}}]}`),
		`data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1764579600,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		"data: [DONE]",
	}
	h := newHarness(t, []tools.Tool{recorder{tr}}, pt.Turn{Raw: raw}, pt.Say("ok"))
	run := h.run("go")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	want := []string{"call_a", "call_b", "call_c"}
	if got := tr.entries(); !slices.Equal(got, []string{"start a", "end a", "start b", "end b", "start c", "end c"}) {
		t.Errorf("calls ran in order %v; want a, b, c", got)
	}
	req := h.srv.Requests()[1]
	var asst, results []string
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			for _, c := range m.ToolCalls {
				asst = append(asst, c.ID)
			}
		case "tool":
			results = append(results, m.ToolCallID)
		}
	}
	if !slices.Equal(asst, want) || !slices.Equal(results, want) {
		t.Errorf("assistant message calls %v, results %v; want both %v", asst, results, want)
	}
	for _, m := range toolMessages(req) {
		if tag := strings.TrimPrefix(m.ToolCallID, "call_"); m.Content != "recorded "+tag {
			t.Errorf("result of %s = %q; want %q", m.ToolCallID, m.Content, "recorded "+tag)
		}
	}
	calls, err := h.k.Calls(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, c := range calls {
		stored = append(stored, c.ID)
	}
	if !slices.Equal(stored, want) {
		t.Errorf("stored calls in order %v; want %v", stored, want)
	}
}

// vllmChunk is one chunk as vLLM streams it.
func vllmChunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `data: {"id":"chatcmpl-b2","object":"chat.completion.chunk","created":1764579600,"model":"Qwen/Qwen2.5-Coder-32B-Instruct","choices":[{"index":0,"delta":` +
		delta + `,"logprobs":null,"finish_reason":` + f + `}]}`
}

// spec: L2, T4 — vLLM ends an answer with finish_reason "tool_calls" although
// the token limit cut the last call's arguments off. A call whose arguments
// are not whole JSON never runs, whatever tool it names (the arguments are
// checked before the tool is looked up), and gets an is_error result that
// says they were cut off and how many bytes arrived; the step's finish
// reason is recorded as "length". Arguments that are whole but malformed
// say so, and leave the finish reason alone.
func TestVLLMToolCallsCutByTokenLimit(t *testing.T) {
	cut := `{"tag":"a very long tag that the token limit cu`
	tests := []struct {
		name   string
		calls  []string // each call's name and arguments, "name args"
		ran    []string
		wants  []string // per call, a part of its result
		nots   []string // per call, what its result must not say
		finish string
	}{
		{"last call cut off", []string{"record " + `{"tag":"a"}`, "record " + cut, "nope " + `{"x":`},
			[]string{"start a", "end a"},
			[]string{"recorded a", fmt.Sprintf("cut off, so they are not valid JSON: %d bytes arrived", len(cut)), "cut off, so they are not valid JSON: 5 bytes arrived"},
			[]string{"", "unknown tool", "unknown tool"}, "length"},
		{"malformed, not cut", []string{"record " + `{"tag":"a"}}`},
			nil,
			[]string{"not valid JSON"},
			[]string{"cut off"}, "tool_calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &tracker{}
			raw := []string{vllmChunk(`{"role":"assistant","content":""}`, "")}
			for i, c := range tt.calls {
				name, args, _ := strings.Cut(c, " ")
				raw = append(raw,
					vllmChunk(fmt.Sprintf(`{"tool_calls":[{"id":"chatcmpl-tool-%d","type":"function","index":%d,"function":{"name":%q}}]}`, i, i, name), ""),
					vllmChunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%q}}]}`, i, args), ""))
			}
			raw = append(raw,
				vllmChunk(`{"content":""}`, "tool_calls"),
				`data: {"id":"chatcmpl-b2","object":"chat.completion.chunk","created":1764579600,"model":"Qwen/Qwen2.5-Coder-32B-Instruct","choices":[],"usage":{"prompt_tokens":900,"total_tokens":1924,"completion_tokens":1024}}`,
				"data: [DONE]")
			h := newHarness(t, []tools.Tool{recorder{tr}}, pt.Turn{Raw: raw}, pt.Say("I will send it again, smaller."))
			run := h.run("go")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			if got := tr.entries(); !slices.Equal(got, tt.ran) {
				t.Errorf("ran %v; want %v", got, tt.ran)
			}
			tm := toolMessages(h.srv.Requests()[1])
			if len(tm) != len(tt.calls) {
				t.Fatalf("%d results fed back; want %d", len(tm), len(tt.calls))
			}
			for i, m := range tm {
				if !strings.Contains(m.Content, tt.wants[i]) || tt.nots[i] != "" && strings.Contains(m.Content, tt.nots[i]) {
					t.Errorf("result %d = %q; want it to say %q and not %q", i, m.Content, tt.wants[i], tt.nots[i])
				}
			}
			// llama.cpp (with --jinja) answers 500 to a history whose
			// arguments are not JSON, so the model could never retry: the
			// history sent back has valid JSON, the call record the bytes
			// that arrived.
			for _, m := range h.srv.Requests()[1].Messages {
				for _, c := range m.ToolCalls {
					if !json.Valid([]byte(c.Arguments)) {
						t.Errorf("call %s went back to the model with arguments %q, not JSON", c.ID, c.Arguments)
					}
				}
			}
			calls, _ := h.k.Calls(context.Background(), run.ID)
			for i, c := range calls {
				if _, args, _ := strings.Cut(tt.calls[i], " "); c.Arguments != args {
					t.Errorf("call %d stored with arguments %q; want the %q that arrived", i, c.Arguments, args)
				}
				if wantErr := tt.wants[i] != "recorded a"; (c.State == kernel.CallError) != wantErr || c.Result == nil || c.Result.IsError != wantErr {
					t.Errorf("call %d stored as %s %+v; want is_error %v", i, c.State, c.Result, wantErr)
				}
			}
			ends := stepEnds(t, h, run)
			if len(ends) != 2 || field(ends[0], "finishReason") != tt.finish {
				t.Fatalf("%d step.end events (first %s); want 2, the first with finishReason %q", len(ends), data(ends), tt.finish)
			}
		})
	}
}

// spec: P3, T4 — a model caught in a loop proposes ten thousand calls in one
// answer. The first engine.MaxCallsPerStep run; each of the rest is
// answered with an is_error result saying why it did not run and what to do;
// every call is stored and answered, in order, and the turn goes on.
func TestTenThousandToolCallsInOneAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("ten thousand calls through the kernel")
	}
	const n = 10_000
	var ran atomic.Int32
	raw := make([]string, 0, n+2)
	for i := range n {
		raw = append(raw, fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"c%d","type":"function","function":{"name":"probe","arguments":"{}"}}]},"finish_reason":null}]}`, i, i))
	}
	raw = append(raw, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "data: [DONE]")
	h := newHarness(t, []tools.Tool{named{name: "probe", desc: "probe", calls: &ran}}, pt.Turn{Raw: raw}, pt.Say("ok"))
	run := h.run("go")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if got := ran.Load(); got != engine.MaxCallsPerStep {
		t.Errorf("%d calls ran; want %d", got, engine.MaxCallsPerStep)
	}
	tm := toolMessages(h.srv.Requests()[1])
	if len(tm) != n {
		t.Fatalf("%d results fed back; want %d", len(tm), n)
	}
	wantRefusal := fmt.Sprintf("not run: your answer has %d tool calls and at most %d of one answer run", n, engine.MaxCallsPerStep)
	for i, m := range tm {
		if m.ToolCallID != fmt.Sprintf("c%d", i) {
			t.Fatalf("result %d answers %s; want c%d", i, m.ToolCallID, i)
		}
		if ok := i < engine.MaxCallsPerStep; ok != (m.Content == "probe ran") || !ok && !strings.Contains(m.Content, wantRefusal) {
			t.Fatalf("result %d = %q", i, m.Content)
		}
	}
	calls, err := h.k.Calls(context.Background(), run.ID)
	if err != nil || len(calls) != n {
		t.Fatalf("%d calls stored (%v); want %d", len(calls), err, n)
	}
	if last := calls[n-1]; last.State != kernel.CallError || last.Result == nil || !last.Result.IsError {
		t.Errorf("last call stored as %+v; want an is_error result", last)
	}
}
