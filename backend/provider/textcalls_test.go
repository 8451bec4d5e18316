package provider_test

import (
	"encoding/json"
	"strings"
	"testing"

	"foya/backend/llm"
	"foya/backend/provider"
	"foya/backend/provider/providertest"
)

var offered = []llm.ToolSchema{
	{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "bash", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer"}}}`)},
}

func toolReq() llm.Request {
	r := userReq("look at a.go")
	r.Tools = offered
	return r
}

func mode(m string) func(*provider.Config) { return func(c *provider.Config) { c.ToolCalls = m } }

// spec: L1
func TestTextToolCallForms(t *testing.T) {
	forms := map[string]string{
		"hermes":       `<tool_call>{"name": "read", "arguments": {"path": "a.go"}}</tool_call>`,
		"hermes-str":   `<tool_call>{"name": "read", "arguments": "{\"path\": \"a.go\"}"}</tool_call>`,
		"qwen3-coder":  "<tool_call>\n<function=read>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>",
		"mistral":      `[TOOL_CALLS][{"name": "read", "arguments": {"path": "a.go"}}]`,
		"mistral-args": `[TOOL_CALLS]read[ARGS]{"path": "a.go"}`,
		"llama3":       `<|python_tag|>{"name": "read", "parameters": {"path": "a.go"}}<|eom_id|>`,
		"fence":        "```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.go\"}}\n```",
	}
	for name, form := range forms {
		for _, chunk := range []int{0, 1, 2, 3} {
			srv := providertest.New(t, providertest.Turn{Text: "Let me look.\n" + form + "\nThat is all.", TextChunk: chunk})
			r := collect(t, newClient(t, srv.URL), toolReq())
			if r.Err != nil {
				t.Fatalf("%s/%d: %v", name, chunk, r.Err)
			}
			if len(r.Calls) != 1 || r.Calls[0].Name != "read" {
				t.Fatalf("%s/%d: calls %+v", name, chunk, r.Calls)
			}
			var args map[string]string
			if err := json.Unmarshal([]byte(r.Calls[0].Arguments), &args); err != nil || args["path"] != "a.go" {
				t.Errorf("%s/%d: arguments %q", name, chunk, r.Calls[0].Arguments)
			}
			if r.Text != "Let me look.\nThat is all." {
				t.Errorf("%s/%d: text %q", name, chunk, r.Text)
			}
			if r.Finish != "tool_calls" {
				t.Errorf("%s/%d: finish %q", name, chunk, r.Finish)
			}
		}
	}
}

func TestTextToolCallAfterThinking(t *testing.T) {
	text := "<think>\nRead it.\n</think>\n\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>"
	for _, chunk := range []int{0, 1, 2} {
		srv := providertest.New(t, providertest.Turn{Text: text, TextChunk: chunk})
		r := collect(t, newClient(t, srv.URL), toolReq())
		if len(r.Calls) != 1 || r.Text != "<think>\nRead it.\n</think>\n\n" {
			t.Fatalf("chunk %d: calls %+v, text %q", chunk, r.Calls, r.Text)
		}
	}
}

func TestTextToolCallsSeveral(t *testing.T) {
	text := "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>"
	srv := providertest.New(t, providertest.Turn{Text: text, TextChunk: 2})
	r := collect(t, newClient(t, srv.URL), toolReq())
	if len(r.Calls) != 2 || r.Calls[0].Name != "read" || r.Calls[1].Name != "bash" || r.Calls[0].ID == r.Calls[1].ID {
		t.Fatalf("calls %+v", r.Calls)
	}
	xml := "<tool_call>\n<function=bash>\n<parameter=command>\nls -l\n</parameter>\n<parameter=timeout>\n5\n</parameter>\n</function>\n</tool_call>"
	srv = providertest.New(t, providertest.Turn{Text: xml, TextChunk: 1})
	r = collect(t, newClient(t, srv.URL), toolReq())
	if len(r.Calls) != 1 || r.Calls[0].Arguments != `{"command":"ls -l","timeout":5}` {
		t.Fatalf("typed XML parameters: %+v", r.Calls)
	}
}

// spec: L2
func TestTextToolCallCut(t *testing.T) {
	form := `<tool_call>{"name": "bash", "arguments": {"command": "rm -rf build"}}</tool_call>`
	for _, at := range []int{25, 50, len(form) - len("}</tool_call>")} {
		// The server ends the answer cleanly in the middle of the call.
		srv := providertest.New(t, providertest.Turn{Text: form[:at], TextChunk: 3})
		r := collect(t, newClient(t, srv.URL), toolReq())
		for _, c := range r.Calls {
			if json.Valid([]byte(c.Arguments)) {
				t.Fatalf("cut at %d: call %+v has valid arguments and would run", at, c)
			}
		}
		// The connection drops in the middle of the call: the stream fails.
		srv = providertest.New(t, providertest.Turn{Text: form[:at] + strings.Repeat(" ", 10), TextChunk: 1, CutAfter: at / 2, Abort: true})
		r = collect(t, newClient(t, srv.URL, func(c *provider.Config) { c.MaxRetries = -1 }), toolReq())
		if r.Err == nil || r.Done {
			t.Fatalf("cut connection at %d: want an error, got %+v", at, r)
		}
	}
}

func TestTextToolCallNotInProse(t *testing.T) {
	texts := []string{
		"Write `<tool_call>{\"name\": \"read\", \"arguments\": {}}</tool_call>` to call a tool.",
		"The format is:\n```\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n```\nThat is it.",
		"Example:\n```json\n{\"name\": \"read\", \"description\": \"reads a file\"}\n```\n",
		"```json\n{\"name\": \"fetch\", \"arguments\": {\"url\": \"x\"}}\n```",
		"Say <tool_call> mid-line, or [TOOL_CALLS] too.",
		"<|python_tag|>import math\nprint(math.sqrt([4][0]))",
		"<think>\nI could call\n<tool_call>{\"name\": \"read\", \"arguments\": {}}</tool_call>\nbut no.\n</think>\nNo call needed.",
	}
	for _, text := range texts {
		srv := providertest.New(t, providertest.Turn{Text: text, TextChunk: 2})
		r := collect(t, newClient(t, srv.URL), toolReq())
		if len(r.Calls) != 0 || r.Text != text {
			t.Errorf("%q: calls %+v, text %q", text, r.Calls, r.Text)
		}
	}
}

// An unknown tool in a tag form is a call: the engine refuses it, and the
// model reads why.
func TestTextToolCallUnknownName(t *testing.T) {
	srv := providertest.New(t, providertest.Turn{Text: `<tool_call>{"name": "fetch", "arguments": {}}</tool_call>`})
	r := collect(t, newClient(t, srv.URL), toolReq())
	if len(r.Calls) != 1 || r.Calls[0].Name != "fetch" {
		t.Fatalf("calls %+v", r.Calls)
	}
}

func TestTextToolCallModes(t *testing.T) {
	text := `<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>`
	// auto, with a native call in the answer: the text after it stays
	// text, and so does text held back before it (an unfinished line).
	lines := []string{textLine("<tool_"), callLine(0, "c1", "bash", `{"command":"ls"}`), textLine(text[len("<tool_"):]), finishLine("tool_calls"), doneLine}
	r := collect(t, newClient(t, rawServer(t, lines...).URL), toolReq())
	if len(r.Calls) != 1 || r.Calls[0].Name != "bash" || r.Text != text {
		t.Fatalf("auto with a native call: calls %+v, text %q", r.Calls, r.Text)
	}
	// native: never read.
	srv := providertest.New(t, providertest.Turn{Text: text})
	r = collect(t, newClient(t, srv.URL, mode(provider.ToolCallsNative)), toolReq())
	if len(r.Calls) != 0 || r.Text != text {
		t.Fatalf("native: calls %+v, text %q", r.Calls, r.Text)
	}
	// no tools offered: never read.
	srv = providertest.New(t, providertest.Turn{Text: text})
	r = collect(t, newClient(t, srv.URL, mode(provider.ToolCallsText)), userReq("hi"))
	if len(r.Calls) != 0 || r.Text != text {
		t.Fatalf("no tools: calls %+v, text %q", r.Calls, r.Text)
	}
	// text: read.
	srv = providertest.New(t, providertest.Turn{Text: text})
	r = collect(t, newClient(t, srv.URL, mode(provider.ToolCallsText)), toolReq())
	if len(r.Calls) != 1 {
		t.Fatalf("text: calls %+v", r.Calls)
	}
	if _, err := provider.New(provider.Config{Model: "m", ToolCalls: "sometimes"}); err == nil {
		t.Fatal("a bad mode was taken")
	}
}

// Almost-JSON is never guessed into valid arguments.
func TestTextToolCallAlmostJSON(t *testing.T) {
	for _, text := range []string{
		`<tool_call>{"name": "read", "arguments": {"path": "a",}}</tool_call>`,
		`<tool_call>{"name": "read", "arguments": {'path': 'a'}}</tool_call>`,
		`[TOOL_CALLS]read[ARGS]{"path": "a",}`,
	} {
		srv := providertest.New(t, providertest.Turn{Text: text, TextChunk: 1})
		r := collect(t, newClient(t, srv.URL), toolReq())
		if len(r.Calls) != 1 || json.Valid([]byte(r.Calls[0].Arguments)) {
			t.Errorf("%q: calls %+v", text, r.Calls)
		}
	}
}

// chunked is s as content lines of n bytes each.
func chunked(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, textLine(s[:n]))
		s = s[n:]
	}
	return append(out, textLine(s))
}

// In auto mode an answer's calls are the native ones when the server sent
// any (issue 28 item 3). A call read from the text before the native one
// is announced early (spec L1) and then withdrawn (DeltaWithdraw): it
// never runs. A text call after a native one is text.
// spec: L1, L2
func TestTextToolCallAutoWithdrawnByNative(t *testing.T) {
	form := `<tool_call>{"name": "read", "arguments": {"path": "a.go"}}</tool_call>`
	native := callLine(0, "c1", "bash", `{"command":"ls"}`)
	for _, chunk := range []int{1, 3, 16} {
		// The text call first, then the native one.
		lines := append(chunked("Let me look.\n"+form+"\n", chunk), native, finishLine("tool_calls"), doneLine)
		r := collect(t, newClient(t, rawServer(t, lines...).URL), toolReq())
		if r.Err != nil {
			t.Fatalf("text first, chunk %d: %v", chunk, r.Err)
		}
		if len(r.Calls) != 1 || r.Calls[0].Name != "bash" || len(r.Withdrawn) != 1 || r.Withdrawn[0].Name != "read" {
			t.Fatalf("text first, chunk %d: calls %+v, withdrawn %+v", chunk, r.Calls, r.Withdrawn)
		}
		// Announced before the native call arrived, withdrawn after it.
		opened, nativeAt, withdrawn := -1, -1, -1
		for i, d := range r.Deltas {
			switch {
			case d.Kind == llm.DeltaToolCall && d.Name == "read":
				opened = i
			case d.Kind == llm.DeltaToolCall && d.Name == "bash":
				nativeAt = i
			case d.Kind == llm.DeltaWithdraw:
				withdrawn = i
			}
		}
		if !(opened >= 0 && opened < withdrawn && withdrawn < nativeAt) {
			t.Errorf("text first, chunk %d: the text call opened at delta %d, was withdrawn at %d, the native call came at %d", chunk, opened, withdrawn, nativeAt)
		}
		if r.Text != "Let me look.\n" || r.Finish != "tool_calls" {
			t.Errorf("text first, chunk %d: text %q, finish %q", chunk, r.Text, r.Finish)
		}

		// The native call first, then a call written as text: text.
		lines = append([]string{native}, chunked(form, chunk)...)
		lines = append(lines, finishLine("tool_calls"), doneLine)
		r = collect(t, newClient(t, rawServer(t, lines...).URL), toolReq())
		if len(r.Calls) != 1 || r.Calls[0].Name != "bash" || len(r.Withdrawn) != 0 || r.Text != form {
			t.Fatalf("native first, chunk %d: calls %+v, withdrawn %+v, text %q", chunk, r.Calls, r.Withdrawn, r.Text)
		}

		// The native call while the text call's arguments are still being
		// read: announced, withdrawn, never given its arguments.
		half := strings.Index(form, `"path"`)
		lines = append(chunked(form[:half], chunk), native, finishLine("tool_calls"), doneLine)
		r = collect(t, newClient(t, rawServer(t, lines...).URL), toolReq())
		if len(r.Calls) != 1 || r.Calls[0].Name != "bash" || len(r.Withdrawn) != 1 || r.Withdrawn[0].Arguments != "" {
			t.Fatalf("mid-call, chunk %d: calls %+v, withdrawn %+v", chunk, r.Calls, r.Withdrawn)
		}
	}
	// In text mode both run.
	lines := append(chunked(form+"\n", 5), native, finishLine("tool_calls"), doneLine)
	r := collect(t, newClient(t, rawServer(t, lines...).URL, mode(provider.ToolCallsText)), toolReq())
	if len(r.Calls) != 2 || len(r.Withdrawn) != 0 {
		t.Fatalf("text mode: calls %+v, withdrawn %+v", r.Calls, r.Withdrawn)
	}
}
