package tests

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/cli"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// lastToolMessage is the content of the last tool message the model read.
func lastToolMessage(t *testing.T, req pt.Request) string {
	t.Helper()
	tm := toolMessages(req)
	if len(tm) == 0 {
		t.Fatal("no tool message in the request")
	}
	return tm[len(tm)-1].Content
}

// spec: L1, L2 — a call a local server left in the text runs like a native
// one: tool.begin as soon as its name is known, the text around it shown,
// the call's own text not; a call the answer ended in does not run and the
// model reads why; an unknown tool does not run either.
func TestTextToolCallsRun(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{recorder{tr}},
		pt.Turn{Text: "Recording.\n<tool_call>\n{\"name\": \"record\", \"arguments\": {\"tag\": \"a\"}}\n</tool_call>", TextChunk: 1},
		pt.Turn{Text: `<tool_call>{"name": "nope", "arguments": {}}</tool_call>`, TextChunk: 3},
		pt.Turn{Text: `<tool_call>{"name": "record", "arguments": {"tag": "b"`, TextChunk: 2, FinishReason: "length"},
		pt.Say("done"))
	run := h.run("go")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if got := tr.entries(); len(got) != 2 || got[0] != "start a" {
		t.Fatalf("ran %v; want only a", got)
	}
	reqs := h.srv.Requests()
	if got := lastToolMessage(t, reqs[1]); got != "recorded a" {
		t.Errorf("result of the text call: %q", got)
	}
	if got := lastToolMessage(t, reqs[2]); !strings.Contains(got, `unknown tool "nope"`) {
		t.Errorf("result of the unknown tool: %q", got)
	}
	if got := lastToolMessage(t, reqs[3]); !strings.Contains(got, "cut off") || !strings.Contains(got, "nothing ran") {
		t.Errorf("result of the cut call: %q", got)
	}
	var text strings.Builder
	begun := false
	for _, ev := range h.eventList() {
		switch ev.Type {
		case llm.EventTextDelta:
			if !begun {
				text.WriteString(field(ev, "text").(string))
			}
		case llm.EventToolBegin:
			begun = true
		}
	}
	if text.String() != "Recording.\n" {
		t.Errorf("text before the first call: %q", text.String())
	}
	msgs, _ := h.k.Messages(context.Background(), run.SessionID)
	for _, m := range msgs {
		if strings.Contains(m.Message.Content, "<tool_call>") {
			t.Errorf("the call's text is in the history: %q", m.Message.Content)
		}
	}
}

// spec: T4 — arguments that are almost JSON are refused, never guessed;
// the result says what is wrong and where, and the same mistake a second
// time adds how to avoid it.
func TestAlmostJSONArguments(t *testing.T) {
	tr := &tracker{}
	h := newHarness(t, []tools.Tool{recorder{tr}},
		pt.Calls(call("1", "record", `{"tag": "a",}`)),
		pt.Calls(call("2", "record", `{'tag': 'a'}`)),
		pt.Calls(call("3", "record", "{\n  \"tag\": \"b\",\n}")),
		pt.Calls(call("4", "record", `{"tag": "c"`)),
		pt.Say("done"))
	run := h.run("go")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if len(tr.entries()) != 0 {
		t.Fatalf("almost-JSON ran: %v", tr.entries())
	}
	reqs := h.srv.Requests()
	for i, want := range [][]string{
		{"trailing comma", "byte 12 (line 1, column 13)", "nothing ran"},
		{"single quote", "byte 1 (line 1, column 2)"},
		{"trailing comma", "line 3, column 1", "same mistake again"},
		{"cut off", `expected "}"`},
	} {
		got := lastToolMessage(t, reqs[i+1])
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("result %d = %q; want it to say %q", i+1, got, w)
			}
		}
		if i < 2 && strings.Contains(got, "same mistake") {
			t.Errorf("result %d = %q: a first mistake got the repeat hint", i+1, got)
		}
	}
}

// A model that sends the same failing call again and again is stopped at
// the run.repeatLimit setting (3 by default) with a note; other calls that
// succeed in between do not clear its count.
func TestRepeatedFailingCallStops(t *testing.T) {
	ctx := context.Background()
	bad := func(n int) []pt.Turn {
		var turns []pt.Turn
		for range n {
			turns = append(turns, pt.Calls(call("", "record", `{"tag": 7}`)))
		}
		return turns
	}
	t.Run("default", func(t *testing.T) {
		h := newHarness(t, []tools.Tool{recorder{&tracker{}}}, append(bad(5), pt.Say("done"))...)
		run := h.run("go")
		if run.Status != kernel.RunFailed || run.Steps != 3 || !strings.Contains(run.Error, "same failing call 3 times") ||
			!strings.Contains(run.Error, "record") || !strings.Contains(run.Error, kernel.SettingRepeatLimit) {
			t.Fatalf("run %s after %d steps: %q", run.Status, run.Steps, run.Error)
		}
	})
	t.Run("setting, and a success in between", func(t *testing.T) {
		turns := append(bad(1), pt.Calls(call("", "record", `{"tag": "ok"}`)))
		turns = append(turns, bad(1)...)
		turns = append(turns, pt.Calls(call("", "record", `{"tag": "ok"}`)))
		turns = append(turns, bad(3)...)
		h := newHarness(t, []tools.Tool{recorder{&tracker{}}}, turns...)
		if err := h.k.SetSetting(ctx, kernel.SettingRepeatLimit, "2"); err != nil {
			t.Fatal(err)
		}
		run := h.run("go")
		// 1 bad, ok, 1 bad (2 in all: stops here; "ok" does not clear another call's count).
		if run.Status != kernel.RunFailed || run.Steps != 3 || !strings.Contains(run.Error, "2 times") {
			t.Fatalf("run %s after %d steps: %q", run.Status, run.Steps, run.Error)
		}
		for _, v := range []string{"0", "101", "x", "-1", ""} {
			if err := h.k.SetSetting(ctx, kernel.SettingRepeatLimit, v); err == nil || !strings.Contains(err.Error(), kernel.SettingRepeatLimit) {
				t.Errorf("SetSetting(%q) = %v", v, err)
			}
		}
		if s, _ := h.k.Settings(ctx); s[kernel.SettingRepeatLimit] != "2" {
			t.Errorf("setting %q after bad values", s[kernel.SettingRepeatLimit])
		}
	})
}

// foya providers add/edit --tool-calls keeps the mode with the profile,
// refuses a bad one, and foya exec reads a text call only as it says.
func TestToolCallsFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "foya.db")
	dir := t.TempDir()
	srv := pt.New(t,
		pt.Say(`<tool_call>{"name": "record", "arguments": {"tag": "a"}}</tool_call>`), pt.Say("done"),
		pt.Say(`<tool_call>{"name": "record", "arguments": {"tag": "b"}}</tool_call>`))
	if code, _, stderr := foya(t, nil, "providers", "add", "local", "--base-url", srv.URL, "--model", "m", "--tool-calls", "maybe", "--db", db); code != cli.ExitUsage || !strings.Contains(stderr, "want auto, native or text") {
		t.Fatalf("a bad mode: exit %d %q", code, stderr)
	}
	if code, _, stderr := foya(t, nil, "providers", "add", "local", "--base-url", srv.URL, "--model", "m", "--tool-calls", "text", "--db", db); code != 0 {
		t.Fatalf("add: exit %d %q", code, stderr)
	}
	if _, stdout, _ := foya(t, nil, "providers", "list", "--json", "--db", db); !strings.Contains(stdout, `"toolCalls": "text"`) {
		t.Fatalf("list: %s", stdout)
	}
	tr := &tracker{}
	rec := []tools.Tool{recorder{tr}}
	if code, _, stderr := foya(t, rec, "exec", "--db", db, "--workdir", dir, "--approval", "auto", "go"); code != 0 || len(tr.entries()) != 2 {
		t.Fatalf("exec in text mode: exit %d %q, ran %v", code, stderr, tr.entries())
	}
	if code, _, stderr := foya(t, nil, "providers", "edit", "local", "--tool-calls", "native", "--db", db); code != 0 {
		t.Fatalf("edit: exit %d %q", code, stderr)
	}
	if code, stdout, stderr := foya(t, rec, "exec", "--db", db, "--workdir", dir, "--approval", "auto", "go"); code != 0 || len(tr.entries()) != 2 || !strings.Contains(stdout, "<tool_call>") {
		t.Fatalf("exec in native mode: exit %d %q %q, ran %v", code, stdout, stderr, tr.entries())
	}
}

// spec: L1, L2 — in the profile's tool-call mode auto (the default), an
// answer's calls are the native ones when the server sent any (issue 28
// item 3). A call the model wrote as text before the native one is
// announced early (tool.begin) and then ends, never run, with a result
// that says why; the model reads only the native call. A text call after
// a native one is text.
func TestTextToolCallWithdrawnByNativeCall(t *testing.T) {
	form := `<tool_call>{"name": "record", "arguments": {"tag": "text"}}</tool_call>`
	nativeLine := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"n1","type":"function","function":{"name":"record","arguments":"{\"tag\":\"native\"}"}}]},"finish_reason":null}]}`
	textLines := func(s string) []string {
		var out []string
		for len(s) > 0 {
			n := min(4, len(s))
			b, _ := json.Marshal(s[:n])
			out = append(out, `data: {"choices":[{"index":0,"delta":{"content":`+string(b)+`},"finish_reason":null}]}`)
			s = s[n:]
		}
		return out
	}
	finish := []string{`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "data: [DONE]"}
	for _, c := range []struct {
		name  string
		lines []string
		text  string // the answer's text the model reads back
	}{
		{"text call first", append(append(textLines("Recording.\n"+form+"\n"), nativeLine), finish...), "Recording.\n"},
		{"native call first", append(append([]string{nativeLine}, textLines(form)...), finish...), form},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &tracker{}
			h := newHarness(t, []tools.Tool{recorder{tr}}, pt.Turn{Raw: c.lines}, pt.Say("done"))
			run := h.run("go")
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			for _, e := range tr.entries() {
				if strings.Contains(e, "text") {
					t.Fatalf("the call written as text ran: %v", tr.entries())
				}
			}
			if got := tr.entries(); len(got) != 2 || got[0] != "start native" {
				t.Fatalf("ran %v; want the native call", got)
			}
			var begins []string
			var withdrawn []event.ToolEndData
			for _, ev := range h.eventList() {
				switch ev.Type {
				case llm.EventToolBegin:
					begins = append(begins, field(ev, "id").(string))
				case llm.EventToolEnd:
					var d event.ToolEndData
					json.Unmarshal(ev.Data, &d)
					if d.ID != "n1" {
						withdrawn = append(withdrawn, d)
					}
				}
			}
			if c.name == "text call first" {
				// Announced early, before the native call, then ended unrun.
				if len(begins) != 2 || begins[1] != "n1" || len(withdrawn) != 1 || withdrawn[0].ID != begins[0] {
					t.Fatalf("tool.begin %v, other tool.end %+v", begins, withdrawn)
				}
				w := withdrawn[0]
				if w.Status != "cancelled" || !w.IsError || !strings.Contains(w.Text, "not run") || !strings.Contains(w.Text, "native tool calls") {
					t.Errorf("the withdrawn call ended %+v", w)
				}
			} else if len(begins) != 1 || len(withdrawn) != 0 {
				t.Fatalf("tool.begin %v, other tool.end %+v", begins, withdrawn)
			}
			// The model reads its text and the native call only.
			next := h.srv.Requests()[1]
			var asst *pt.Message
			for i := range next.Messages {
				if next.Messages[i].Role == "assistant" {
					asst = &next.Messages[i]
				}
			}
			if asst == nil || asst.Content != c.text || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].ID != "n1" {
				t.Fatalf("the model reads back %+v", asst)
			}
			if tm := toolMessages(next); len(tm) != 1 || tm[0].Content != "recorded native" {
				t.Errorf("tool messages %+v", tm)
			}
		})
	}
}
