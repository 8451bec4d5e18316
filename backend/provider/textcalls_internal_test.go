package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"foya/backend/llm"
)

var testTools = []llm.ToolSchema{
	{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "bash", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer"}}}`)},
}

// parsed is what a text-call reader made of a text.
type parsed struct {
	text  string
	calls []llm.ToolCall
	// opened[i] is how many bytes had been written when call i opened.
	opened []int
}

// parseText feeds text to a reader in pieces of n bytes (all at once when
// n <= 0) and finishes it.
func parseText(text string, n int, tools []llm.ToolSchema) parsed {
	a := newAssembler()
	a.readTextCalls(ToolCallsText, tools)
	var p parsed
	var out strings.Builder
	byIndex := map[int]int{}
	fed := 0
	take := func() {
		for _, d := range a.out {
			switch d.Kind {
			case llm.DeltaText:
				out.WriteString(d.Text)
			case llm.DeltaToolCall:
				if d.Name != "" {
					byIndex[d.Index] = len(p.calls)
					p.calls = append(p.calls, llm.ToolCall{ID: d.ID, Name: d.Name})
					p.opened = append(p.opened, fed)
				}
				p.calls[byIndex[d.Index]].Arguments += d.Args
			}
		}
		a.out = a.out[:0]
	}
	if n <= 0 {
		n = len(text) + 1
	}
	for i := 0; i < len(text); i += n {
		end := min(i+n, len(text))
		fed = end
		a.text.write(text[i:end])
		take()
	}
	a.text.finish()
	take()
	p.text = out.String()
	return p
}

// spec: L1
func TestTextCallOpensWhenItsNameIsKnown(t *testing.T) {
	cases := map[string]string{
		`<tool_call>{"name": "read"`:                   `<tool_call>{"name": "read", "arguments": {"path": "a.go"}}</tool_call>`,
		"<tool_call>\n<function=read>":                 "<tool_call>\n<function=read>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>",
		`[TOOL_CALLS]read[ARGS]`:                       `[TOOL_CALLS]read[ARGS]{"path": "a.go"}`,
		`[TOOL_CALLS][{"name": "read"`:                 `[TOOL_CALLS][{"name": "read", "arguments": {"path": "a.go"}}]`,
		`<|python_tag|>{"name": "read"`:                `<|python_tag|>{"name": "read", "parameters": {"path": "a.go"}}`,
		"```json\n{\"name\": \"read\", \"arguments\":": "```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.go\"}}\n```",
	}
	for known, whole := range cases {
		p := parseText(whole, 1, testTools)
		if len(p.calls) != 1 || p.calls[0].Name != "read" {
			t.Fatalf("%q: calls %+v", whole, p.calls)
		}
		if p.opened[0] != len(known) {
			t.Errorf("%q: the call opened after %d bytes, want %d (as soon as its name is known)", whole, p.opened[0], len(known))
		}
		if p.calls[0].Arguments != `{"path": "a.go"}` && p.calls[0].Arguments != `{"path":"a.go"}` {
			t.Errorf("%q: arguments %q", whole, p.calls[0].Arguments)
		}
		if p.text != "" {
			t.Errorf("%q: the call's text was shown: %q", whole, p.text)
		}
	}
}

// cutForms are whole calls, one per form: a stream that ends inside the
// call's JSON must never give a call that runs.
var cutForms = []string{
	`<tool_call>{"name": "bash", "arguments": {"command": "rm -rf build"}}</tool_call>`,
	"<tool_call>\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n<parameter=timeout>\n5\n</parameter>\n</function>\n</tool_call>",
	`[TOOL_CALLS]bash[ARGS]{"command": "rm -rf build"}`,
	`[TOOL_CALLS][{"name": "bash", "arguments": {"command": "rm -rf build"}}]`,
	`<|python_tag|>{"name": "bash", "parameters": {"command": "rm -rf build"}}`,
	"```json\n{\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf build\"}}\n```",
}

// completeAt is where each form's call is complete: cut there or later,
// the call is whole.
func completeAt(form string) int {
	switch {
	case strings.HasPrefix(form, "<tool_call>\n<function"):
		return strings.Index(form, "</function>") + len("</function>")
	case strings.HasPrefix(form, "[TOOL_CALLS][") || strings.HasPrefix(form, "```"):
		return strings.LastIndex(form, "}") + 1
	}
	return strings.LastIndex(form, "}") + 1
}

// spec: L2
func TestTextCallCutNeverRuns(t *testing.T) {
	for _, form := range cutForms {
		full := completeAt(form)
		for cut := 0; cut < len(form); cut++ {
			for _, n := range []int{0, 1, 2, 3} {
				p := parseText(form[:cut], n, testTools)
				for _, c := range p.calls {
					valid := json.Valid([]byte(c.Arguments))
					if cut < full && valid {
						t.Fatalf("%q cut at %d (pieces of %d): call with valid arguments %q would run", form, cut, n, c.Arguments)
					}
					if cut >= full && !valid {
						t.Fatalf("%q cut at %d after the call was complete: arguments %q", form, cut, c.Arguments)
					}
				}
			}
		}
	}
}

func FuzzTextCalls(f *testing.F) {
	for _, s := range cutForms {
		f.Add(s, 1)
		f.Add("Let me look.\n"+s+"\nDone.", 3)
	}
	f.Add("Use `<tool_call>` like this:\n```\n<tool_call>{\"name\":\"read\"}</tool_call>\n```\n", 2)
	f.Add("<tool_call>{'name': 'read', 'arguments': {'path': 'a',},}</tool_call>", 1)
	f.Add("<think>\n<tool_call>{\"name\":\"read\",\"arguments\":{}}</tool_call>\n</think>\n"+cutForms[1], 2)
	f.Fuzz(func(t *testing.T, text string, n int) {
		n = n%7 + 1
		if n < 1 {
			n = -n + 1
		}
		p := parseText(text, n, testTools)
		for _, c := range p.calls {
			if c.Name == "" || c.ID == "" {
				t.Fatalf("call without a name or ID: %+v", c)
			}
		}
		if len(p.text) > len(text) {
			t.Fatalf("more text out (%d bytes) than in (%d)", len(p.text), len(text))
		}
		// A cut stream never gives a call that runs: any prefix of a form
		// that stops inside its JSON gives none with valid arguments.
		for _, form := range cutForms {
			if !strings.HasPrefix(form, text) || len(text) >= completeAt(form) {
				continue
			}
			for _, c := range p.calls {
				if json.Valid([]byte(c.Arguments)) {
					t.Fatalf("cut call %q ran with %q", text, c.Arguments)
				}
			}
		}
	})
}
