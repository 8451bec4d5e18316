package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/tools"
)

// Issue 28, item 2: compaction you can trust.

// noteTool answers each call with a result of its own: a marker line
// naming the call's "n", then filler, about size bytes in all, under the
// size at which the context compiler projects a result (so only a
// compaction can bring the history down).
type noteTool struct{ size int }

func (noteTool) Spec() tools.Spec {
	return tools.Spec{Name: "note", Description: "Returns a note.", Exposure: tools.Direct, ReadOnly: true}
}

func (nt noteTool) Run(ctx context.Context, rc *tools.RunContext, c tools.Call) (tools.Result, error) {
	var a struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return tools.Errorf("note: %v", err), nil
	}
	return tools.Text(noteText(a.N, nt.size)), nil
}

// noteMarker is the line that names note n's result.
func noteMarker(n int) string { return fmt.Sprintf("marker-%04d", n) }

func noteText(n, size int) string {
	var b strings.Builder
	b.WriteString(noteMarker(n) + "\n")
	for b.Len() < size {
		fmt.Fprintf(&b, "line of note %d, kept whole in the history\n", n)
	}
	return b.String()
}

func noteCall(n int) pt.Turn {
	return pt.Calls(call(fmt.Sprintf("note_%d", n), "note", fmt.Sprintf(`{"n":%d}`, n)))
}

// summaryTurns are scripted answers to summary requests.
func summaryTurns(n int) []pt.Turn {
	turns := make([]pt.Turn, n)
	for i := range turns {
		turns[i] = pt.Say(fmt.Sprintf("## Goal\nKeep notes (summary %d).\n## Decisions\nNone.\n## Files\na.txt holds one line.\n## Open tasks\nMore notes.\n## User constraints\nNo network.", i+1))
	}
	return turns
}

// runWindow runs a turn with the harness's model and a known window.
func (h *harness) runWindow(sessionID, prompt string, window int) kernel.Run {
	h.t.Helper()
	r, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: sessionID, Prompt: prompt, Model: h.model(),
		Window: engine.Window{Tokens: window, Known: true, About: "the test's"}})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// payloads returns the payloads of a session's stored events of type typ.
func payloads[T any](t *testing.T, h *harness, sessionID, typ string) []T {
	t.Helper()
	evs, err := h.k.Events(context.Background(), sessionID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, ev := range evs {
		if ev.Type != typ {
			continue
		}
		var d T
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// chat returns the requests of the run's conversation (no summaries).
func chat(h *harness) (conv, sums []pt.Request) {
	for _, r := range h.srv.Requests() {
		if pt.IsCompact(r) {
			sums = append(sums, r)
		} else {
			conv = append(conv, r)
		}
	}
	return conv, sums
}

// compactScript is a run that writes a file, keeps a task list, then
// reads notes until well past a 32k window's compaction threshold, then
// reads back the first note's result with history_read_tool_result.
func compactScript(notes int) []pt.Turn {
	todos := `{"todos":[{"content":"write a.txt","status":"completed"},{"content":"read the notes","status":"in_progress"},{"content":"report","status":"pending"}]}`
	turns := []pt.Turn{
		pt.Calls(call("w", "write", `{"path":"a.txt","content":"one line\n"}`)),
		pt.Calls(call("t", "todo_write", todos)),
	}
	for n := 1; n <= notes; n++ {
		turns = append(turns, noteCall(n))
	}
	return append(turns, pt.Calls(call("back", "history_read_tool_result", `{"ref":"r7","mode":"search","pattern":"marker-"}`)), pt.Say("done"))
}

// A run whose next request would pass context.compactAt of the known
// window has the model summarise the oldest messages (a request of its
// own, without tools), and sends from then on the note, the newest
// messages verbatim, and the file changes and task list exactly as
// Foya's records hold them; every later request sends the note's very
// bytes (prompt caches); the full history stays stored and readable.
// spec: O5, O6, R2, F1
func TestCompactionAtThreshold(t *testing.T) {
	const window = 32768
	h := newHarness(t, []tools.Tool{noteTool{size: 1800}}, compactScript(60)...)
	h.srv.Route(pt.IsCompact, summaryTurns(20)...)
	ses := h.session("auto")
	run := h.runWindow(ses.ID, "write a.txt, then read the notes; no network", window)
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	done := payloads[event.ContextCompactedData](t, h, ses.ID, event.TypeContextCompacted)
	if len(done) == 0 {
		t.Fatal("no context.compacted event")
	}
	c := done[0]
	if c.By != event.CompactAuto || c.Upto <= 0 || c.Files != 1 || c.Tasks != 3 || c.Window != window || c.TokensAfter >= c.TokensBefore ||
		float64(c.TokensBefore) <= engine.DefaultCompactAt*window {
		t.Errorf("compaction %+v", c)
	}
	// File changes and tasks are rendered from the records, exactly.
	for _, want := range []string{
		"- a.txt: created (1 change, +1 -0 lines), now sha256 ",
		"## Task list (exact, from Foya's records)\n- [x] write a.txt\n- [~] read the notes\n- [ ] report\n",
		"## Goal\nKeep notes (summary 1).",
		fmt.Sprintf("messages r1 to r%d", c.Upto),
	} {
		if !strings.Contains(c.Note, want) {
			t.Errorf("the note lacks %q:\n%s", want, c.Note)
		}
	}
	conv, sums := chat(h)
	t.Logf("compactions %d: upto %d before %d after %d; %d requests, %d summaries; first request %d bytes", len(done), c.Upto, c.TokensBefore, c.TokensAfter, len(conv), len(sums), len(conv[0].Raw))
	if len(sums) == 0 || len(sums[0].Tools) != 0 || !strings.Contains(sums[0].Messages[1].Content, "[r1 user]\nwrite a.txt, then read the notes; no network") {
		t.Fatalf("summary requests: %d; the first offers tools %v", len(sums), sums[0].Tools)
	}
	// Before the compaction, requests start with the user's prompt; from
	// it on, with the note's exact bytes, then the verbatim rest.
	var after []pt.Request
	for _, r := range conv {
		if len(r.Messages) > 1 && r.Messages[1].Content == c.Note {
			after = append(after, r)
		}
	}
	if len(after) < 2 {
		t.Fatalf("%d requests carry the note", len(after))
	}
	first := after[0]
	if first.Messages[2].Role == "tool" {
		t.Errorf("the verbatim part starts with a tool result: %+v", first.Messages[2])
	}
	noteJSON, _ := json.Marshal(c.Note)
	for _, r := range after {
		if !strings.Contains(string(r.Raw), string(noteJSON)) {
			t.Errorf("a request after the compaction does not send the note's bytes")
		}
		if tooBig := len(r.Raw) / 4; tooBig > window {
			t.Errorf("a request of about %d tokens, over the window", tooBig)
		}
	}
	// The full history is stored: the first note's result (r7, after the
	// prompt, the write's call and result, the todo list's, and note 1's
	// call) is read back through history_read_tool_result.
	msgs, err := h.k.Messages(context.Background(), ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < c.Upto || !strings.Contains(msgs[6].Message.Content, noteMarker(1)) {
		t.Fatalf("history of %d messages; r7 = %q", len(msgs), msgs[6].Message.Content)
	}
	back := toolEnd(t, h, ses.ID, "back")
	if back.IsError || !strings.Contains(back.Text, noteMarker(1)) {
		t.Errorf("history_read_tool_result r7: %+v", back)
	}
	if n := len(payloads[event.ContextCompactFailedData](t, h, ses.ID, event.TypeContextCompactFailed)); n != 0 {
		t.Errorf("%d failed compactions", n)
	}
}

// toolEnd returns the tool.end of call id in a session.
func toolEnd(t *testing.T, h *harness, sessionID, id string) event.ToolEndData {
	t.Helper()
	for _, d := range payloads[event.ToolEndData](t, h, sessionID, event.TypeToolEnd) {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no tool.end of %s", id)
	return event.ToolEndData{}
}
