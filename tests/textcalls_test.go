package tests

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/cli"
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
