package provider_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"foya/backend/llm"
	"foya/backend/provider"
)

// This file replays, byte for byte, what real OpenAI-compatible servers
// send (llama.cpp, vLLM, OpenRouter and others differ in framing and errors);
// each test is named for the server behaviour it replays.

// replayServer answers every request with body, as text/event-stream, and
// counts the requests.
func replayServer(t *testing.T, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// llamaCtxError is the "error:" field line llama.cpp's server sends when a
// request exceeds the context it was started with.
const llamaCtxError = `error: {"code":500,"message":"the request exceeds the available context size, try increasing it","type":"server_error"}`

// llamaRole is llama.cpp's first chunk: the role, no content.
const llamaRole = `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1764579600,"id":"chatcmpl-Qx3","model":"qwen2.5-coder","system_fingerprint":"b6100-5c0eb5ef","object":"chat.completion.chunk"}`

// spec: K4 — a server's in-stream failure ends the stream with the server's
// message, never as an empty success.
func TestLlamaCppErrorFieldLine(t *testing.T) {
	long := strings.Repeat("ü", 5000)
	tests := []struct {
		name       string
		body       string
		wantMsg    string // the *provider.Error's message, exactly, unless empty
		wantIn     string // a part of Error()
		wantStatus int
	}{
		{"error line then [DONE]", llamaRole + "\n\n" + llamaCtxError + "\n\n" + "data: [DONE]\n\n",
			"the request exceeds the available context size, try increasing it", "exceeds the available context size", 500},
		{"error line after text", llamaRole + "\n\n" + textLine("Let me") + "\n\n" + llamaCtxError + "\n\n" + "data: [DONE]\n\n",
			"the request exceeds the available context size, try increasing it", "exceeds the available context size", 500},
		{"error line without a blank line after the data before it", textLine("Let me") + "\n" + llamaCtxError + "\n" + "data: [DONE]\n",
			"the request exceeds the available context size, try increasing it", "exceeds the available context size", 500},
		{"error line last, without newline", llamaRole + "\n\n" + llamaCtxError,
			"the request exceeds the available context size, try increasing it", "exceeds the available context size", 500},
		{"error line with a body that is not JSON", llamaRole + "\n\n" + "error: upstream model crashed (signal 11)\n\ndata: [DONE]\n\n",
			"upstream model crashed (signal 11)", "upstream model crashed", 0},
		{"error line with a long body that is not JSON", "error: " + long + "\n\ndata: [DONE]\n\n",
			"", "üüü", 0},
		{"error line with an empty body", "error:\n\ndata: [DONE]\n\n",
			"", "error event without a message", 0},
		{"error line whose data cut an event in half", "data: {\"choices\":[{\"delta\":\n" + llamaCtxError + "\n\ndata: [DONE]\n\n",
			"the request exceeds the available context size, try increasing it", "exceeds the available context size", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := replayServer(t, tt.body)
			c := newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = -1 })
			r := collect(t, c, userReq("hi"))
			if r.Done {
				t.Fatalf("stream with an error line ended with DeltaDone (finish %q, text %q)", r.Finish, r.Text)
			}
			var pe *provider.Error
			if !errors.As(r.Err, &pe) {
				t.Fatalf("err = %v; want a *provider.Error", r.Err)
			}
			if tt.wantMsg != "" && pe.Message != tt.wantMsg {
				t.Errorf("message = %q; want %q", pe.Message, tt.wantMsg)
			}
			if pe.Status != tt.wantStatus {
				t.Errorf("status = %d; want %d", pe.Status, tt.wantStatus)
			}
			if !strings.Contains(r.Err.Error(), tt.wantIn) {
				t.Errorf("Error() = %q; want it to contain %q", r.Err, tt.wantIn)
			}
			if len(pe.Message) > 400 || !utf8.ValidString(pe.Message) {
				t.Errorf("message of %d bytes (valid UTF-8: %v); want it bounded and whole", len(pe.Message), utf8.ValidString(pe.Message))
			}
		})
	}
}

// spec: K4 — with retries on (the default), llama.cpp's 500 is retried while nothing
// was yielded, and the last attempt's message is the one reported.
func TestLlamaCppErrorFieldLineRetried(t *testing.T) {
	srv, n := replayServer(t, llamaRole+"\n\n"+llamaCtxError+"\n\ndata: [DONE]\n\n")
	r := collect(t, newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = 2 }), userReq("hi"))
	if r.Done || r.Err == nil || !strings.Contains(r.Err.Error(), "exceeds the available context size") {
		t.Fatalf("done %v err %v; want the server's message", r.Done, r.Err)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("server got %d requests; want 3 (1 + 2 retries)", got)
	}
}

// spec: K4 — vLLM and OpenRouter put an error object in a data chunk in the
// middle of an answer, then may still send [DONE].
func TestErrorChunkMidStream(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"vLLM", textLine("Reading") + "\n\n" +
			`data: {"error": {"object": "error", "message": "This model's maximum context length is 32768 tokens. However, you requested 33012 tokens.", "type": "BadRequestError", "param": null, "code": 400}}` + "\n\n" +
			"data: [DONE]\n\n", "maximum context length is 32768 tokens"},
		{"OpenRouter", textLine("Reading") + "\n\n" + ": OPENROUTER PROCESSING\n\n" +
			`data: {"id":"gen-1764579600-abc","object":"chat.completion.chunk","created":1764579600,"model":"qwen/qwen3-coder","provider":"Chutes","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n" +
			"data: [DONE]\n\n", "Provider disconnected unexpectedly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := replayServer(t, tt.body)
			r := collect(t, newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = -1 }), userReq("hi"))
			if r.Done || r.Err == nil || !strings.Contains(r.Err.Error(), tt.want) {
				t.Fatalf("done %v err %v; want a failed stream naming %q", r.Done, r.Err, tt.want)
			}
		})
	}
}

// spec: K4 — a server that fails and still closes the stream properly sends [DONE]
// after nothing at all; that is an error, not an empty answer.
func TestDoneWithoutAnswer(t *testing.T) {
	tests := []struct{ name, body string }{
		{"only [DONE]", "data: [DONE]\n\n"},
		{"role chunk then [DONE]", llamaRole + "\n\ndata: [DONE]\n\n"},
		{"role and usage then [DONE]", llamaRole + "\n\n" + `data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":0,"total_tokens":9}}` + "\n\ndata: [DONE]\n\n"},
		{"reasoning only then [DONE]", deltaLine(`{"reasoning_content":"hmm"}`) + "\n\ndata: [DONE]\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := replayServer(t, tt.body)
			r := collect(t, newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = -1 }), userReq("hi"))
			want := "the model's stream ended without an answer: no text, no tool call, no finish reason"
			if r.Done || r.Err == nil || !strings.Contains(r.Err.Error(), want) {
				t.Fatalf("done %v err %v; want %q", r.Done, r.Err, want)
			}
		})
	}
	// An empty answer the model chose (finish_reason "stop") stays a success.
	srv, _ := replayServer(t, llamaRole+"\n\n"+finishLine("stop")+"\n\ndata: [DONE]\n\n")
	if r := collect(t, newClient(t, srv.URL+"/v1"), userReq("hi")); r.Err != nil || !r.Done || r.Finish != "stop" {
		t.Fatalf("empty answer with finish stop: err %v done %v finish %q; want a complete stream", r.Err, r.Done, r.Finish)
	}
}

// callOrder returns the calls of r sorted by their deltas' Index, with the
// Index of each: the model's order as the provider reports it.
func callOrder(r result) (ids []string, idx []int) {
	type call struct {
		id    string
		index int
	}
	var calls []call
	for _, d := range r.Deltas {
		if d.Kind == llm.DeltaToolCall && d.ID != "" {
			calls = append(calls, call{d.ID, d.Index})
		}
	}
	for i := range calls { // insertion sort: a handful of calls
		for j := i; j > 0 && calls[j].index < calls[j-1].index; j-- {
			calls[j], calls[j-1] = calls[j-1], calls[j]
		}
	}
	for _, c := range calls {
		ids, idx = append(ids, c.id), append(idx, c.index)
	}
	return ids, idx
}

// spec: P4 — one delta may carry several tool_calls entries in any order,
// and fragments of different calls may alternate; every entry is routed by
// its own index, and the model's order is index order.
func TestToolCallEntriesOutOfIndexOrder(t *testing.T) {
	body := strings.Join([]string{
		deltaLine(`{"role":"assistant","tool_calls":[` +
			`{"index":1,"id":"call_b","type":"function","function":{"name":"write","arguments":"{\"path\":"}},` +
			`{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":"{\"pa"}}]}`),
		deltaLine(`{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a\"}"}},{"index":2,"id":"call_c","type":"function","function":{"name":"list","arguments":""}},{"index":1,"function":{"arguments":"\"b\"}"}}]}`),
		deltaLine(`{"tool_calls":[{"index":2,"function":{"arguments":"{}"}}]}`),
		finishLine("tool_calls"), doneLine,
	}, "\n\n") + "\n\n"
	srv, _ := replayServer(t, body)
	r := collect(t, newClient(t, srv.URL+"/v1"), userReq("go"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	args := map[string]string{}
	for _, c := range r.Calls {
		args[c.ID] = c.Arguments
	}
	if args["call_a"] != `{"path":"a"}` || args["call_b"] != `{"path":"b"}` || args["call_c"] != `{}` {
		t.Errorf("arguments went to the wrong calls: %+v", r.Calls)
	}
	ids, idx := callOrder(r)
	if fmt.Sprint(ids) != "[call_a call_b call_c]" || fmt.Sprint(idx) != "[0 1 2]" {
		t.Errorf("calls in Index order = %v at %v; want [call_a call_b call_c] at [0 1 2]", ids, idx)
	}
}

// spec: P4 — bad indexes: negative, huge, not a whole number, quoted, or missing on
// some entries. None fails the stream or loses a call; a usable index
// orders the calls, an unusable one counts as absent (the call is matched
// by its id, else appended after the others).
func TestToolCallIndexBadInput(t *testing.T) {
	call := func(index, id, name, args string) string {
		e := `{`
		if index != "" {
			e += `"index":` + index + `,`
		}
		if id != "" {
			e += `"id":"` + id + `","type":"function",`
		}
		return e + `"function":{"name":"` + name + `","arguments":` + fmt.Sprintf("%q", args) + `}}`
	}
	tests := []struct {
		name    string
		entries [][]string // deltas, each a list of entries
		ids     string     // call IDs in Index order
	}{
		{"negative index", [][]string{{call("-1", "c1", "read", `{}`)}, {call("0", "c2", "list", `{}`)}}, "[c1 c2]"},
		{"huge index", [][]string{{call("1000000000", "c1", "read", `{}`)}, {call("0", "c2", "list", `{}`)}}, "[c2 c1]"},
		{"huge index in exponent form", [][]string{{call("1e9", "c1", "read", `{}`)}, {call("3", "c2", "list", `{}`)}}, "[c2 c1]"},
		{"index beyond int64", [][]string{{call("99999999999999999999999", "c1", "read", `{}`)}}, "[c1]"},
		{"fractional index", [][]string{{call("0.5", "c1", "read", `{}`)}}, "[c1]"},
		{"index as a string", [][]string{{call(`"1"`, "c1", "read", `{}`), call(`"0"`, "c2", "list", `{}`)}}, "[c2 c1]"},
		{"index null", [][]string{{call("null", "c1", "read", `{"a":`)}, {call("null", "", "", `1}`)}}, "[c1]"},
		{"missing on a single call", [][]string{{call("", "c1", "read", `{"a":`)}, {call("", "", "", `1}`)}}, "[c1]"},
		{"missing on some entries: matched by id", [][]string{
			{call("0", "c1", "read", `{"a":`)},
			{call("", "c2", "list", `{}`)},
			{call("", "c1", "", `1}`)},
		}, "[c1 c2]"},
		{"missing on the later entries of a call", [][]string{{call("1", "c1", "read", `{"a":`)}, {call("", "", "", `1}`)}}, "[c1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			for _, d := range tt.entries {
				lines = append(lines, deltaLine(`{"tool_calls":[`+strings.Join(d, ",")+`]}`))
			}
			lines = append(lines, finishLine("tool_calls"), doneLine)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			srv, _ := replayServer(t, strings.Join(lines, "\n\n")+"\n\n")
			r := collect(t, newClient(t, srv.URL+"/v1"), userReq("go"))
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if r.Err != nil {
				t.Fatalf("Stream: %v", r.Err)
			}
			if ids, idx := callOrder(r); fmt.Sprint(ids) != tt.ids {
				t.Errorf("calls in Index order = %v at %v; want %s", ids, idx, tt.ids)
			}
			for _, c := range r.Calls {
				if c.ID == "c1" && c.Arguments != `{"a":1}` && c.Arguments != `{}` {
					t.Errorf("call c1 got arguments %q", c.Arguments)
				}
			}
			// A huge index must not size anything: a slice of 1e9 entries
			// would take gigabytes.
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
				t.Errorf("one small stream allocated %d MiB", grown>>20)
			}
		})
	}
}

// spec: P4 — a model caught in a loop may propose ten thousand calls in one answer;
// the provider hands every one on, in order (the engine bounds what runs).
func TestTenThousandToolCalls(t *testing.T) {
	const n = 10_000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s\n\n", callLine(i, fmt.Sprintf("call_%d", i), "read", fmt.Sprintf(`{"n":%d}`, i)))
	}
	b.WriteString(finishLine("tool_calls") + "\n\n" + doneLine + "\n\n")
	srv, _ := replayServer(t, b.String())
	r := collect(t, newClient(t, srv.URL+"/v1"), userReq("go"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	if len(r.Calls) != n {
		t.Fatalf("got %d calls; want %d", len(r.Calls), n)
	}
	for i, c := range r.Calls {
		if c.ID != fmt.Sprintf("call_%d", i) || c.Arguments != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("call %d = %+v", i, c)
		}
	}
}
