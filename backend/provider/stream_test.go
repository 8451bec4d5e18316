package provider_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/provider/providertest"
)

func TestStreamTextReasoningUsage(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{
		Reasoning: "Let me think.",
		Text:      "Hello, wörld!",
		Usage:     &llm.Usage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17},
	})
	c := newClient(t, srv.URL, func(cfg *provider.Config) {
		cfg.Headers = map[string]string{"X-Title": "foya"}
	})
	r := collect(t, c, userReq("hi"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	if r.Text != "Hello, wörld!" || r.Reasoning != "Let me think." {
		t.Errorf("text %q, reasoning %q", r.Text, r.Reasoning)
	}
	if want := (llm.Usage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17}); r.Usage == nil || *r.Usage != want {
		t.Errorf("usage = %+v; want %+v", r.Usage, want)
	}
	if r.Finish != "stop" {
		t.Errorf("finish = %q; want stop", r.Finish)
	}
	// Usage comes right before DeltaDone, which is last.
	n := len(r.Deltas)
	if r.Deltas[n-2].Kind != llm.DeltaUsage || r.Deltas[n-1].Kind != llm.DeltaDone {
		t.Errorf("last deltas = %+v; want usage then done", r.Deltas[n-2:])
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests; want 1", len(reqs))
	}
	got := reqs[0]
	if got.Model != "test-model" || !got.Stream {
		t.Errorf("request model %q stream %v", got.Model, got.Stream)
	}
	if h := got.Header.Get("Authorization"); h != "Bearer sk-test" {
		t.Errorf("Authorization = %q", h)
	}
	if h := got.Header.Get("X-Title"); h != "foya" {
		t.Errorf("X-Title = %q; want the configured extra header", h)
	}
	var body struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(got.Raw, &body); err != nil || !body.StreamOptions.IncludeUsage {
		t.Errorf("stream_options.include_usage not true in %s (%v)", got.Raw, err)
	}
}

func TestStreamToolCalls(t *testing.T) {
	// spec: L1 — calls stream as deltas: the opening delta names the call,
	// then argument fragments follow under the same Index.
	tests := []struct {
		name   string
		turn   providertest.Turn
		want   []llm.ToolCall
		finish string
	}{
		{
			name: "scripted, arguments in several chunks",
			turn: providertest.Calls(
				providertest.Call{ID: "call_a", Name: "read", Arguments: `{"path":"a.txt"}`},
				providertest.Call{ID: "call_b", Name: "list", Arguments: `{"dir":"."}`},
			),
			want:   []llm.ToolCall{{ID: "call_a", Name: "read", Arguments: `{"path":"a.txt"}`}, {ID: "call_b", Name: "list", Arguments: `{"dir":"."}`}},
			finish: "tool_calls",
		},
		{
			name: "whole call in one chunk",
			turn: providertest.Turn{Raw: []string{
				callLine(0, "call_1", "read", `{"path":"x"}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "call_1", Name: "read", Arguments: `{"path":"x"}`}},
			finish: "tool_calls",
		},
		{
			name: "calls interleaved by index",
			turn: providertest.Turn{Raw: []string{
				callLine(0, "call_1", "read", ""),
				callLine(1, "call_2", "grep", `{"pat`),
				callLine(0, "", "", `{"path"`),
				callLine(1, "", "", `tern":"x"}`),
				callLine(0, "", "", `:"a"}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "call_1", Name: "read", Arguments: `{"path":"a"}`}, {ID: "call_2", Name: "grep", Arguments: `{"pattern":"x"}`}},
			finish: "tool_calls",
		},
		{
			name: "several calls in one chunk",
			turn: providertest.Turn{Raw: []string{
				deltaLine(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"a","arguments":"{}"}},{"index":1,"id":"c2","function":{"name":"b","arguments":"{}"}}]}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "c1", Name: "a", Arguments: "{}"}, {ID: "c2", Name: "b", Arguments: "{}"}},
			finish: "tool_calls",
		},
		{
			name: "id repeated on every chunk, with index",
			turn: providertest.Turn{Raw: []string{
				callLine(0, "call_r", "read", ""),
				callLine(0, "call_r", "", `{"a":`),
				callLine(0, "call_r", "", `1}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "call_r", Name: "read", Arguments: `{"a":1}`}},
			finish: "tool_calls",
		},
		{
			name: "id and name repeated on every chunk, no index",
			turn: providertest.Turn{Raw: []string{
				callLine(-1, "call_r", "read", `{"a":`),
				callLine(-1, "call_r", "read", `1}`),
				callLine(-1, "call_s", "list", `{}`),
				callLine(-1, "call_s", "list", ``),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "call_r", Name: "read", Arguments: `{"a":1}`}, {ID: "call_s", Name: "list", Arguments: `{}`}},
			finish: "tool_calls",
		},
		{
			name: "missing index: new id starts the next call",
			turn: providertest.Turn{Raw: []string{
				callLine(-1, "call_x", "read", ""),
				callLine(-1, "", "", `{"p":1}`),
				callLine(-1, "call_y", "write", `{"p":`),
				callLine(-1, "", "", `2}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "call_x", Name: "read", Arguments: `{"p":1}`}, {ID: "call_y", Name: "write", Arguments: `{"p":2}`}},
			finish: "tool_calls",
		},
		{
			name: "missing index and id: a name starts the next call",
			turn: providertest.Turn{Raw: []string{
				callLine(-1, "", "read", `{"p":`),
				callLine(-1, "", "", `1}`),
				callLine(-1, "", "write", `{"p":2}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{Name: "read", Arguments: `{"p":1}`}, {Name: "write", Arguments: `{"p":2}`}},
			finish: "tool_calls",
		},
		{
			name: "index reused for the next call with a new id",
			turn: providertest.Turn{Raw: []string{
				callLine(0, "call_1", "read", `{}`),
				callLine(0, "call_2", "list", `{}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "call_1", Name: "read", Arguments: `{}`}, {ID: "call_2", Name: "list", Arguments: `{}`}},
			finish: "tool_calls",
		},
		{
			name: "tool calls ended with finish_reason stop",
			turn: providertest.Turn{
				Calls:        []providertest.Call{{ID: "call_s", Name: "read", Arguments: `{}`}},
				FinishReason: "stop",
			},
			want:   []llm.ToolCall{{ID: "call_s", Name: "read", Arguments: `{}`}},
			finish: "tool_calls",
		},
		{
			name: "name arrives after the id",
			turn: providertest.Turn{Raw: []string{
				callLine(0, "call_late", "", `{"a"`),
				callLine(0, "", "read", `:1}`),
				finishLine("tool_calls"), doneLine,
			}},
			want:   []llm.ToolCall{{ID: "call_late", Name: "read", Arguments: `{"a":1}`}},
			finish: "tool_calls",
		},
		{
			name:   "text then calls in one response",
			turn:   providertest.Turn{Text: "Reading it.", Calls: []providertest.Call{{ID: "c", Name: "read", Arguments: `{}`}}},
			want:   []llm.ToolCall{{ID: "c", Name: "read", Arguments: `{}`}},
			finish: "tool_calls",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, tt.turn)
			r := collect(t, newClient(t, srv.URL), userReq("go"))
			if r.Err != nil {
				t.Fatalf("Stream: %v", r.Err)
			}
			got := r.Calls
			for i := range got {
				if tt.want[i].ID == "" { // generated: only check it is there
					if !strings.HasPrefix(got[i].ID, "call_") {
						t.Errorf("call %d: generated ID %q lacks the call_ prefix", i, got[i].ID)
					}
					got[i].ID = ""
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("calls = %+v\nwant    %+v", got, tt.want)
			}
			if r.Finish != tt.finish {
				t.Errorf("finish = %q; want %q", r.Finish, tt.finish)
			}
		})
	}
}

func TestStreamAssignsStableUniqueIDs(t *testing.T) {
	// spec: T2 — every call gets a stable, unique ID even when the server
	// sends none, or sends the same one twice.
	tests := []struct {
		name  string
		lines []string
	}{
		{"empty ids", []string{
			deltaLine(`{"tool_calls":[{"index":0,"id":"","function":{"name":"read","arguments":""}}]}`),
			deltaLine(`{"tool_calls":[{"index":1,"id":"","function":{"name":"read","arguments":""}}]}`),
			callLine(0, "", "", `{"a":1}`),
			callLine(1, "", "", `{"a":2}`),
			finishLine("tool_calls"), doneLine,
		}},
		{"no ids and no index", []string{
			callLine(-1, "", "read", `{"a":1}`),
			callLine(-1, "", "read", `{"a":2}`),
			finishLine("tool_calls"), doneLine,
		}},
		{"the same id twice", []string{
			callLine(0, "call_0", "read", `{"a":1}`),
			callLine(1, "call_0", "read", `{"a":2}`),
			finishLine("tool_calls"), doneLine,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, tt.lines...)
			r := collect(t, newClient(t, srv.URL), userReq("go"))
			if r.Err != nil {
				t.Fatalf("Stream: %v", r.Err)
			}
			if len(r.Calls) != 2 {
				t.Fatalf("got %d calls; want 2: %+v", len(r.Calls), r.Calls)
			}
			if r.Calls[0].ID == "" || r.Calls[0].ID == r.Calls[1].ID {
				t.Errorf("IDs %q and %q are not unique and non-empty", r.Calls[0].ID, r.Calls[1].ID)
			}
			if r.Calls[0].Arguments != `{"a":1}` || r.Calls[1].Arguments != `{"a":2}` {
				t.Errorf("arguments went to the wrong call: %+v", r.Calls)
			}
			// The ID is carried by the opening delta only, so it cannot change.
			for _, d := range r.Deltas {
				if d.Kind == llm.DeltaToolCall && d.ID != "" && d.ID != r.Calls[d.Index].ID {
					t.Errorf("delta %+v changes the ID of call %d", d, d.Index)
				}
			}
		})
	}
}

func TestStreamSurvivesKeepAliveComments(t *testing.T) {
	// go-openai's own reader gives up after 300 comment lines in a row.
	var lines []string
	for range 1000 {
		lines = append(lines, ": keep-alive")
	}
	lines = append(lines, textLine("Hel"))
	for range 700 {
		lines = append(lines, ": OPENROUTER PROCESSING")
	}
	lines = append(lines, "event: message", "id: 7", "retry: 100", textLine("lo"), finishLine("stop"), ": bye", doneLine)
	srv := rawServer(t, lines...)
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	if r.Text != "Hello" || !r.Done {
		t.Errorf("text %q done %v; want Hello, done", r.Text, r.Done)
	}
}

func TestStreamReasoningFields(t *testing.T) {
	srv := rawServer(t,
		deltaLine(`{"role":"assistant","content":null,"reasoning_content":"one "}`),
		deltaLine(`{"reasoning":"two "}`),
		deltaLine(`{"reasoning_content":"three","reasoning":"three"}`),
		deltaLine(`{"content":"answer","reasoning":null}`),
		finishLine("stop"), doneLine,
	)
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	if r.Reasoning != "one two three" || r.Text != "answer" {
		t.Errorf("reasoning %q text %q; want %q, %q", r.Reasoning, r.Text, "one two three", "answer")
	}
}

func TestStreamErrorObject(t *testing.T) {
	// An error inside the stream fails it: no DeltaDone, so no tool runs.
	tests := []struct {
		name       string
		lines      []string
		wantMsg    string
		wantStatus int
	}{
		{"error object after text", []string{
			textLine("partial "),
			`data: {"error":{"message":"upstream overloaded","type":"server_error","code":"overloaded"}}`,
		}, "upstream overloaded", 0},
		{"error after keep-alive comments", []string{
			textLine("partial "), ": keep-alive", ": keep-alive",
			`data: {"error": {"message": "context length exceeded", "type": "invalid_request_error"}}`,
		}, "context length exceeded", 0},
		{"error during a tool call, with a numeric code", []string{
			callLine(0, "call_1", "write", `{"path":"a",`),
			`data: {"error":{"message":"Rate limit exceeded","code":429},"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`,
			doneLine,
		}, "Rate limit exceeded", 429},
		{"event: error", []string{
			textLine("partial "),
			"event: error",
			`data: {"message":"model crashed"}`,
		}, "model crashed", 0},
		{"error as a string", []string{
			textLine("partial "),
			`data: {"error":"backend went away"}`,
			doneLine,
		}, "backend went away", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, tt.lines...)
			srv.Append(providertest.Say("must not be asked for"))
			r := collect(t, newClient(t, srv.URL), userReq("hi"))
			var pe *provider.Error
			if !errors.As(r.Err, &pe) {
				t.Fatalf("err = %v; want *provider.Error", r.Err)
			}
			if pe.Message != tt.wantMsg || pe.Status != tt.wantStatus {
				t.Errorf("error = %+v; want message %q status %d", pe, tt.wantMsg, tt.wantStatus)
			}
			if !strings.Contains(r.Err.Error(), tt.wantMsg) {
				t.Errorf("Error() = %q; want it to name %q", r.Err, tt.wantMsg)
			}
			if r.Done {
				t.Error("stream with an error object ended with DeltaDone")
			}
			if srv.Pending() != 1 {
				t.Error("the request was retried after deltas were yielded")
			}
		})
	}
}

func TestStreamCutIsNeverComplete(t *testing.T) {
	// spec: L2 — a stream cut before completion ends with an error, never
	// with DeltaDone, so no half-received call can run.
	tests := []struct {
		name string
		turn providertest.Turn
	}{
		{"clean end after text, no finish, no [DONE]", providertest.Turn{Text: "Hello there", CutAfter: 2}},
		{"connection dropped after text", providertest.Turn{Text: "Hello there", CutAfter: 2, Abort: true}},
		{"clean end in the middle of arguments", providertest.Turn{
			Calls:    []providertest.Call{{ID: "c1", Name: "write", Arguments: `{"path":"a.txt","content":"hello"}`}},
			CutAfter: 3,
		}},
		{"connection dropped in the middle of arguments", providertest.Turn{
			Calls:    []providertest.Call{{ID: "c1", Name: "write", Arguments: `{"path":"a.txt","content":"hello"}`}},
			CutAfter: 3, Abort: true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, tt.turn, providertest.Say("must not be asked for"))
			r := collect(t, newClient(t, srv.URL), userReq("hi"))
			if !errors.Is(r.Err, provider.ErrStreamCut) {
				t.Fatalf("err = %v; want one wrapping ErrStreamCut", r.Err)
			}
			if r.Done {
				t.Fatal("cut stream ended with DeltaDone")
			}
			if len(r.Deltas) == 0 {
				t.Fatal("no delta was yielded before the cut; the test means to cut after some")
			}
			if srv.Pending() != 1 {
				t.Error("the request was retried after deltas were yielded")
			}
		})
	}
}

func TestStreamCompleteWithoutDone(t *testing.T) {
	// Some servers omit [DONE]: a finish_reason is enough.
	tests := []struct {
		name string
		turn providertest.Turn
	}{
		{"clean end after finish and usage", providertest.Turn{Raw: []string{
			textLine("ok"), finishLine("stop"),
			`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`,
		}}},
		{"connection dropped after finish", providertest.Turn{Raw: []string{
			textLine("ok"), finishLine("stop"),
			`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`,
		}, CutAfter: 3, Abort: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, tt.turn)
			r := collect(t, newClient(t, srv.URL), userReq("hi"))
			if r.Err != nil {
				t.Fatalf("Stream: %v", r.Err)
			}
			if !r.Done || r.Text != "ok" || r.Usage == nil || r.Usage.TotalTokens != 4 {
				t.Errorf("got %+v; want text ok, usage 4, done", r)
			}
		})
	}
}

func TestStreamUsageOnlyChunk(t *testing.T) {
	srv := rawServer(t,
		textLine("hi"),
		`data: {"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`,
		`data: {"id":"x","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}`,
		doneLine,
	)
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	if want := (llm.Usage{PromptTokens: 7, CompletionTokens: 2, TotalTokens: 9}); r.Usage == nil || *r.Usage != want {
		t.Errorf("usage = %+v; want %+v", r.Usage, want)
	}
}

func TestStreamMalformed(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"chunk that is not JSON", []string{textLine("a"), "data: {not json", finishLine("stop"), doneLine}, "malformed stream chunk"},
		{"finish_reason error", []string{textLine("a"), finishLine("error"), doneLine}, `finish_reason "error"`},
		{"call that never got a name", []string{callLine(0, "c1", "", `{}`), finishLine("tool_calls"), doneLine}, "without a function name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, tt.lines...)
			r := collect(t, newClient(t, srv.URL), userReq("hi"))
			if r.Err == nil || !strings.Contains(r.Err.Error(), tt.want) {
				t.Fatalf("err = %v; want one saying %q", r.Err, tt.want)
			}
			if r.Done {
				t.Error("malformed stream ended with DeltaDone")
			}
		})
	}
}

func TestStreamLargeArgumentsInOneChunk(t *testing.T) {
	content := strings.Repeat("x", 2<<20)
	args := `{"content":"` + content + `"}`
	srv := rawServer(t, callLine(0, "big", "write", args), finishLine("tool_calls"), doneLine)
	r := collect(t, newClient(t, srv.URL), userReq("hi"))
	if r.Err != nil {
		t.Fatalf("Stream: %v", r.Err)
	}
	if len(r.Calls) != 1 || r.Calls[0].Arguments != args {
		t.Errorf("got %d calls, arguments of %d bytes; want 1 call with %d bytes", len(r.Calls), len(r.Calls[0].Arguments), len(args))
	}
}

func TestStreamBreakStopsCleanly(t *testing.T) {
	srv := providertest.New(t, providertest.Say("one two three"), providertest.Say("again"))
	c := newClient(t, srv.URL)
	for _, err := range c.Stream(t.Context(), userReq("hi")) {
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		break
	}
	r := collect(t, c, userReq("hi"))
	if r.Err != nil || r.Text != "again" {
		t.Errorf("next stream: text %q err %v", r.Text, r.Err)
	}
}

func TestStreamLastLineWithoutNewline(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		complete bool
	}{
		{"a cut half line", callLine(0, "c1", "write", `{"path":"a.txt"`) + "\n\n" + `data: {"choices":[{"index":0,"delta":{},"finish_re`, false},
		{"a whole last line", textLine("ok") + "\n\n" + finishLine("stop"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL+"/v1", func(cfg *provider.Config) { cfg.MaxRetries = -1 })
			r := collect(t, c, userReq("hi"))
			if tt.complete {
				if r.Err != nil || !r.Done {
					t.Fatalf("err %v, done %v; want a complete stream", r.Err, r.Done)
				}
				return
			}
			if !errors.Is(r.Err, provider.ErrStreamCut) || r.Done {
				t.Fatalf("err = %v, done %v; want ErrStreamCut and no DeltaDone", r.Err, r.Done)
			}
			if !strings.Contains(r.Err.Error(), "during tool call 0 (write)") {
				t.Errorf("err = %v; want it to name the call that was cut", r.Err)
			}
		})
	}
}
