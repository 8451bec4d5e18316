package tests

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/profiles"
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
		N    int `json:"n"`
		Size int `json:"size"`
	}
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return tools.Errorf("note: %v", err), nil
	}
	return tools.Text(noteText(a.N, cmp.Or(a.Size, nt.size))), nil
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

// A summary that fails (the server's error, a refusal, an empty answer)
// while the conversation still fits the window: the run goes on
// uncompacted, says so once (context.compact_failed), does not ask again
// while it fits, and loses nothing of the history.
// spec: O5, K4
func TestCompactionFailureRunGoesOn(t *testing.T) {
	for _, c := range []struct {
		name, why string
		turn      pt.Turn
	}{
		{"server error", "overloaded <now>", pt.Turn{Status: http.StatusInternalServerError, ErrorMessage: "overloaded <now>"}},
		{"refusal", "the model did not write a summary (no Goal section)", pt.Say("I can't help with summarising this.")},
		{"empty", "the model's summary was empty", pt.Say("   ")},
		{"content filter", "content filter", pt.Turn{Text: "## Goal", FinishReason: "content_filter"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// 56 notes of 1,800 bytes: past 0.8 of the window, under the window.
			const notes = 56
			h := newHarness(t, []tools.Tool{noteTool{size: 1800}}, compactScript(notes)...)
			h.srv.Route(pt.IsCompact, c.turn)
			ses := h.session("auto")
			run := h.runWindow(ses.ID, "read the notes", 32768)
			if run.Status != kernel.RunCompleted {
				t.Fatalf("run %s: %s", run.Status, run.Error)
			}
			failed := payloads[event.ContextCompactFailedData](t, h, ses.ID, event.TypeContextCompactFailed)
			if len(failed) != 1 || failed[0].Stopped || failed[0].By != event.CompactAuto || !strings.Contains(failed[0].Error, c.why) {
				t.Fatalf("context.compact_failed: %+v; want one, not stopped, saying %q", failed, c.why)
			}
			if _, sums := chat(h); len(sums) != 1 {
				t.Errorf("%d summary requests; want 1 (not asked again while the conversation fits)", len(sums))
			}
			if n := len(payloads[event.ContextCompactedData](t, h, ses.ID, event.TypeContextCompacted)); n != 0 {
				t.Errorf("%d compactions", n)
			}
			msgs, err := h.k.Messages(context.Background(), ses.ID)
			if err != nil || len(msgs) != 1+2*(2+notes+1)+1 {
				t.Errorf("history of %d messages, %v", len(msgs), err)
			}
		})
	}
}

// A summary that fails when the conversation no longer fits the window:
// the run stops with an error that says so and what to do; the history is
// whole, and a later turn with a summary that works goes on.
// spec: O5, X2
func TestCompactionFailureStopsWhenItDoesNotFit(t *testing.T) {
	const window = 16384
	h := newHarness(t, []tools.Tool{noteTool{size: 1800}},
		pt.Calls(call("big", "note", `{"n":1,"size":60000}`)), pt.Say("never asked"))
	// The first summary is empty; the next turn's works.
	h.srv.Route(pt.IsCompact, pt.Say(""), summaryTurns(1)[0])
	ses := h.session("auto")
	run := h.runWindow(ses.ID, "read the big note", window)
	if run.Status != kernel.RunFailed || !strings.Contains(run.Error, "no longer fits the model's context window (16384 tokens, the test's)") ||
		!strings.Contains(run.Error, "compacting it failed: the model's summary was empty") || !strings.Contains(run.Error, "Nothing of the history was lost") {
		t.Fatalf("run %s: %q", run.Status, run.Error)
	}
	failed := payloads[event.ContextCompactFailedData](t, h, ses.ID, event.TypeContextCompactFailed)
	if len(failed) != 1 || !failed[0].Stopped {
		t.Fatalf("context.compact_failed: %+v", failed)
	}
	conv, _ := chat(h)
	if len(conv) != 1 {
		t.Errorf("%d conversation requests; want 1: none after the window was passed", len(conv))
	}
	msgs, err := h.k.Messages(context.Background(), ses.ID)
	if err != nil || len(msgs) != 3 || !strings.Contains(msgs[2].Message.Content, noteMarker(1)) {
		t.Fatalf("history: %d messages, %v", len(msgs), err)
	}
	// The next turn, with a summary that works, compacts and goes on.
	h.srv.Append(pt.Say("went on"))
	run = h.runWindow(ses.ID, "go on", window)
	if run.Status != kernel.RunCompleted {
		t.Fatalf("second run %s: %s", run.Status, run.Error)
	}
	if n := len(payloads[event.ContextCompactedData](t, h, ses.ID, event.TypeContextCompacted)); n != 1 {
		t.Errorf("%d compactions; want 1", n)
	}
}

// firstRequestOf returns the first conversation request after the n
// conversation requests seen before.
func firstRequestAfter(t *testing.T, h *harness, n int) pt.Request {
	t.Helper()
	conv, _ := chat(h)
	if len(conv) <= n {
		t.Fatalf("%d conversation requests; want more than %d", len(conv), n)
	}
	return conv[n]
}

// A person compacts a session's history (Compact) and undoes it
// (UndoCompaction): each compaction is a stored event; the next request
// sends the compaction in force, and after an undo the one before it, or
// the history verbatim. Only the compaction in force can be undone; a
// summary that fails changes nothing.
// spec: O5, R2
func TestCompactByUserAndUndo(t *testing.T) {
	ctx := context.Background()
	var turns []pt.Turn
	for n := 1; n <= 6; n++ {
		turns = append(turns, noteCall(n))
	}
	turns = append(turns, pt.Say("read six"), noteCall(7), pt.Say("read seven"), pt.Say("third"), pt.Say("fourth"), pt.Say("fifth"))
	h := newHarness(t, []tools.Tool{noteTool{size: 1800}}, turns...)
	h.srv.Route(pt.IsCompact, pt.Turn{Status: http.StatusServiceUnavailable, ErrorMessage: "busy"}, summaryTurns(1)[0], summaryTurns(2)[1])
	ses := h.session("auto")
	if _, err := h.k.Compact(ctx, kernel.CompactOptions{SessionID: ses.ID, Model: h.model()}); kernel.Code(err) != "invalid" {
		t.Fatalf("Compact of a session without a run: %v; want invalid", err)
	}
	if run := h.runIn(ctx, ses.ID, "read the first notes"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	// The first summary fails: nothing changes, and the error says why.
	if _, err := h.k.Compact(ctx, kernel.CompactOptions{SessionID: ses.ID, Model: h.model()}); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("Compact with a failing summary: %v", err)
	}
	if f := payloads[event.ContextCompactFailedData](t, h, ses.ID, event.TypeContextCompactFailed); len(f) != 1 || f[0].By != event.CompactUser || f[0].Stopped {
		t.Fatalf("context.compact_failed: %+v", f)
	}
	a, err := h.k.Compact(ctx, kernel.CompactOptions{SessionID: ses.ID, Model: h.model()})
	if err != nil || a.By != event.CompactUser || a.Upto <= 0 || a.Upto >= 14 || !strings.Contains(a.Note, "(summary 1)") {
		t.Fatalf("Compact = %+v, %v", a, err)
	}
	if stored := payloads[event.ContextCompactedData](t, h, ses.ID, event.TypeContextCompacted); len(stored) != 1 || stored[0].Note != a.Note {
		t.Fatalf("stored compactions: %+v", stored)
	}
	seen, _ := chat(h)
	if run := h.runIn(ctx, ses.ID, "one more"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if r := firstRequestAfter(t, h, len(seen)); r.Messages[1].Content != a.Note {
		t.Fatalf("the request after Compact starts %q", r.Messages[1].Content)
	}
	b, err := h.k.Compact(ctx, kernel.CompactOptions{SessionID: ses.ID, Model: h.model()})
	if err != nil || b.Upto <= a.Upto || !strings.Contains(b.Note, "(summary 2)") {
		t.Fatalf("second Compact = %+v, %v", b, err)
	}
	_, sums := chat(h)
	if last := sums[len(sums)-1].Messages[1].Content; !strings.Contains(last, "The summary so far") || !strings.Contains(last, "(summary 1)") {
		t.Errorf("the second summary request does not merge the first summary:\n%s", last)
	}
	// Only the compaction in force can be undone.
	if err := h.k.UndoCompaction(ctx, ses.ID, a.ID); kernel.Code(err) != "conflict" {
		t.Fatalf("undo of the compaction not in force: %v; want conflict", err)
	}
	if err := h.k.UndoCompaction(ctx, ses.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	conv, _ := chat(h)
	if run := h.runIn(ctx, ses.ID, "third"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if r := firstRequestAfter(t, h, len(conv)); r.Messages[1].Content != a.Note {
		t.Fatalf("after undoing the second compaction, the request starts %q; want the first's note", r.Messages[1].Content)
	}
	if err := h.k.UndoCompaction(ctx, ses.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	conv, _ = chat(h)
	if run := h.runIn(ctx, ses.ID, "fourth"); run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	r := firstRequestAfter(t, h, len(conv))
	if r.Messages[1].Role != "user" || r.Messages[1].Content != "read the first notes" || !strings.Contains(r.Messages[3].Content, noteMarker(1)) {
		t.Fatalf("after undoing both, the request starts %+v", r.Messages[1])
	}
	if u := payloads[event.ContextUncompactedData](t, h, ses.ID, event.TypeContextUncompacted); len(u) != 2 || u[0].ID != b.ID || u[1].ID != a.ID {
		t.Errorf("context.uncompacted: %+v", u)
	}
	if err := h.k.UndoCompaction(ctx, ses.ID, a.ID); kernel.Code(err) != "conflict" {
		t.Errorf("undo with none in force: %v; want conflict", err)
	}
	if err := h.k.UndoCompaction(ctx, "nope", a.ID); kernel.Code(err) != "not_found" {
		t.Errorf("undo in no session: %v", err)
	}
}

// Issue 28's "Must show": a 300-turn scripted session that would pass a
// 32k window (the profile's setting) runs to the end with compaction, and
// every earlier tool result stays readable through the history reader.
// spec: O5, O6, R2, X2
func TestThreeHundredTurnsIn32k(t *testing.T) {
	const turns, window = 300, 32768
	ctx := context.Background()
	var script []pt.Turn
	for n := 1; n <= turns; n++ {
		script = append(script, noteCall(n), pt.Say(fmt.Sprintf("note %d read", n)))
	}
	h := newHarness(t, []tools.Tool{noteTool{size: 1200}}, script...)
	h.srv.Route(pt.IsCompact, summaryTurns(200)...)
	if _, err := h.k.Profiles().Add(ctx, profiles.ProviderInput{Name: "local", BaseURL: h.srv.URL, Model: "m", ContextWindow: window}); err != nil {
		t.Fatal(err)
	}
	ses, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: h.dir, ApprovalMode: "auto", Provider: "local", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if w, err := h.k.ContextWindow(ctx, ses.ID); err != nil || w.Window != window || w.Source != profiles.WindowFromSetting {
		t.Fatalf("ContextWindow = %+v, %v", w, err)
	}
	for n := 1; n <= turns; n++ {
		run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: ses.ID, Prompt: fmt.Sprintf("read note %d", n)})
		if err != nil || run.Status != kernel.RunCompleted {
			t.Fatalf("turn %d: %+v, %v", n, run, err)
		}
	}
	done := payloads[event.ContextCompactedData](t, h, ses.ID, event.TypeContextCompacted)
	if len(done) < 2 {
		t.Fatalf("%d compactions in %d turns; want several", len(done), turns)
	}
	for i := 1; i < len(done); i++ {
		if done[i].Upto <= done[i-1].Upto || done[i].Window != window {
			t.Errorf("compaction %d: %+v after %+v", i, done[i], done[i-1])
		}
	}
	if f := payloads[event.ContextCompactFailedData](t, h, ses.ID, event.TypeContextCompactFailed); len(f) != 0 {
		t.Errorf("failed compactions: %+v", f)
	}
	conv, sums := chat(h)
	for i, r := range conv {
		if n := len(r.Raw) / 4; n > window {
			t.Errorf("request %d is about %d tokens, more than the window", i, n)
		}
	}
	// Every note's result is in the stored history, and the model reads
	// each back with history_read_tool_result, many calls a step; the run
	// goes on compacting as those results fill the window.
	msgs, err := h.k.Messages(ctx, ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	refs := map[int]string{} // note number: reference
	for i, m := range msgs {
		if m.Message.Role == kernel.RoleTool && m.Message.ToolName == "note" {
			var n int
			if _, err := fmt.Sscanf(m.Message.Content, "marker-%04d", &n); err != nil {
				t.Fatalf("message r%d: %v", i+1, err)
			}
			refs[n] = fmt.Sprintf("r%d", i+1)
		}
	}
	if len(refs) != turns {
		t.Fatalf("%d note results stored; want %d", len(refs), turns)
	}
	var back []pt.Turn
	var calls []pt.Call
	for n := 1; n <= turns; n++ {
		calls = append(calls, call(fmt.Sprintf("back_%d", n), "history_read_tool_result",
			fmt.Sprintf(`{"ref":%q,"mode":"search","pattern":%q,"context":0}`, refs[n], noteMarker(n))))
		if len(calls) == 25 {
			back, calls = append(back, pt.Calls(calls...)), nil
		}
	}
	h.srv.Append(append(back, pt.Say("all read"))...)
	run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: ses.ID, Prompt: "read every note back"})
	if err != nil || run.Status != kernel.RunCompleted {
		t.Fatalf("the reading turn: %+v, %v", run, err)
	}
	ends := map[string]event.ToolEndData{}
	for _, d := range payloads[event.ToolEndData](t, h, ses.ID, event.TypeToolEnd) {
		ends[d.ID] = d
	}
	for n := 1; n <= turns; n++ {
		d, ok := ends[fmt.Sprintf("back_%d", n)]
		if !ok || d.IsError || !strings.Contains(d.Text, noteMarker(n)) {
			t.Errorf("note %d (%s) read back: %+v", n, refs[n], d)
		}
	}
	t.Logf("%d turns: %d compactions, %d summary requests, %d conversation requests", turns, len(done), len(sums), len(conv))
}

// foya compact SESSION compacts with the session's profile; --undo ID
// undoes it; a wrong session or ID is told.
// spec: O5
func TestCompactFromTheCLI(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, []tools.Tool{noteTool{size: 1800}}, noteCall(1), noteCall(2), noteCall(3), pt.Say("read three"))
	h.srv.Route(pt.IsCompact, summaryTurns(1)...)
	if _, err := h.k.Profiles().Add(ctx, profiles.ProviderInput{Name: "local", BaseURL: h.srv.URL, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	ses, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: h.dir, ApprovalMode: "auto", Provider: "local", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: ses.ID, Prompt: "read three notes"}); err != nil || run.Status != kernel.RunCompleted {
		t.Fatalf("run: %+v, %v", run, err)
	}
	code, out, stderr := foya(t, nil, "compact", ses.ID, "--db", h.db)
	if code != 0 || !strings.Contains(out, "session "+ses.ID+": compaction cmp_") || !strings.Contains(out, "the full history stays stored") {
		t.Fatalf("foya compact: %d %q %q", code, out, stderr)
	}
	done := payloads[event.ContextCompactedData](t, h, ses.ID, event.TypeContextCompacted)
	if len(done) != 1 || done[0].By != event.CompactUser {
		t.Fatalf("compactions: %+v", done)
	}
	if code, _, stderr := foya(t, nil, "compact", "--undo", "cmp_nope", ses.ID, "--db", h.db); code == 0 || !strings.Contains(stderr, "not the compaction in force") {
		t.Errorf("undo of an unknown compaction: %d %q", code, stderr)
	}
	if code, out, stderr := foya(t, nil, "compact", "--undo", done[0].ID, ses.ID, "--db", h.db); code != 0 || !strings.Contains(out, "undone") {
		t.Fatalf("foya compact --undo: %d %q %q", code, out, stderr)
	}
	if u := payloads[event.ContextUncompactedData](t, h, ses.ID, event.TypeContextUncompacted); len(u) != 1 || u[0].ID != done[0].ID {
		t.Errorf("context.uncompacted: %+v", u)
	}
	if code, _, stderr := foya(t, nil, "compact", "ses_nope", "--db", h.db); code != 2 || !strings.Contains(stderr, "no session ses_nope") {
		t.Errorf("foya compact of no session: %d %q", code, stderr)
	}
	if code, _, _ := foya(t, nil, "compact", "--db", h.db); code != 2 {
		t.Errorf("foya compact without a session: %d", code)
	}
}

// A compaction that cannot bring the request under context.compactAt (a
// summary as long as the window allows, a low share) is not made again
// at every step while the conversation still fits the window: each one
// is a request to the model. The run goes on with the note in force.
// spec: O5, R2
func TestCompactionShortOfTheShareIsNotRepeated(t *testing.T) {
	const window = 32768
	long := "## Goal\nKeep notes.\n" + strings.Repeat("A long summary line that the model wrote.\n", 450)
	h := newHarness(t, []tools.Tool{noteTool{size: 1800}}, compactScript(24)...)
	h.srv.Route(pt.IsCompact, pt.Say(long), pt.Say(long), pt.Say(long))
	if err := h.k.SetSetting(context.Background(), "context.compactAt", "0.2"); err != nil {
		t.Fatal(err)
	}
	ses := h.session("auto")
	run := h.runWindow(ses.ID, "write a.txt, then read the notes", window)
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	done := payloads[event.ContextCompactedData](t, h, ses.ID, event.TypeContextCompacted)
	if len(done) != 1 || done[0].TokensAfter <= window/5 {
		t.Fatalf("compactions %+v; want one, leaving the request past 0.2 of the window", done)
	}
	if _, sums := chat(h); len(sums) != 1 {
		t.Errorf("%d summary requests; want 1 (the request stayed past the share but fit the window)", len(sums))
	}
	back := toolEnd(t, h, ses.ID, "back")
	if back.IsError || !strings.Contains(back.Text, noteMarker(1)) {
		t.Errorf("history_read_tool_result r7: %+v", back)
	}
}

// A sub-agent whose own history passes context.compactAt of the window
// is compacted the same way as a session's run (issue 28): the model
// summarises the sub-agent's oldest messages, the note lists the
// session's file changes and task list exactly, later requests of the
// sub-agent send the note's bytes and stay under the window, and its
// earlier tool results stay readable. The compaction is the sub-agent's:
// its event names the task call, and the session's own requests never
// use it (it is not the session's compaction in force).
// spec: O5, O6, R1, F1
func TestSubAgentCompaction(t *testing.T) {
	const window = 32768
	const prompt = "write a.txt, then read the notes; no network"
	// The sub-agent runs the default script: the parent's requests are routed.
	h := newHarness(t, []tools.Tool{noteTool{size: 1800}}, compactScript(60)...)
	h.srv.Route(pt.IsCompact, summaryTurns(20)...)
	h.srv.Route(pt.FirstUser("delegate the notes"),
		pt.Calls(call("t1", "task", `{"description":"read notes","prompt":"`+prompt+`","max_steps":100}`)), pt.Say("the sub-agent read them"))
	ses := h.session("auto")
	run := h.runWindow(ses.ID, "delegate the notes", window)
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	evs, err := h.k.Events(context.Background(), ses.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var done []event.ContextCompactedData
	for _, ev := range evs {
		if ev.Type != event.TypeContextCompacted {
			continue
		}
		if ev.ParentCallID != "t1" {
			t.Fatalf("a compaction outside the sub-agent: %+v", ev)
		}
		var d event.ContextCompactedData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		done = append(done, d)
	}
	if len(done) == 0 {
		t.Fatalf("the sub-agent's history was not compacted: %+v", endOf(t, evs, "t1"))
	}
	c := done[0]
	if c.By != event.CompactAuto || c.Files != 1 || c.Tasks != 3 || c.Window != window || c.TokensAfter >= c.TokensBefore {
		t.Errorf("compaction %+v", c)
	}
	for _, want := range []string{
		"- a.txt: created (1 change, +1 -0 lines), now sha256 ",
		"## Task list (exact, from Foya's records)\n- [x] write a.txt\n- [~] read the notes\n- [ ] report\n",
		fmt.Sprintf("messages r1 to r%d", c.Upto),
	} {
		if !strings.Contains(c.Note, want) {
			t.Errorf("the note lacks %q:\n%s", want, c.Note)
		}
	}
	conv, sums := chat(h)
	if len(sums) == 0 || !strings.Contains(sums[0].Messages[1].Content, "[r1 user]\n"+prompt) {
		t.Fatalf("%d summary requests; the first does not start with the sub-agent's prompt", len(sums))
	}
	noteJSON, _ := json.Marshal(c.Note)
	carried := 0
	for _, r := range conv {
		if len(r.Raw)/4 > window {
			t.Errorf("a request of about %d tokens, over the window", len(r.Raw)/4)
		}
		if !strings.Contains(string(r.Raw), string(noteJSON)) {
			continue
		}
		carried++
		if r.Messages[1].Content != c.Note {
			t.Errorf("a request carries the note as message 1 = %.80q", r.Messages[1].Content)
		}
		if strings.Contains(string(r.Raw), "delegate the notes") {
			t.Error("a request of the session's own run carries the sub-agent's note")
		}
	}
	if carried < 2 {
		t.Errorf("%d requests carry the note", carried)
	}
	kids := childEvents(evs, "t1")
	if back := endOf(t, kids, "back"); back.IsError || !strings.Contains(back.Text, noteMarker(1)) {
		t.Errorf("the sub-agent's history_read_tool_result r7: %+v", back)
	}
	if got := endOf(t, evs, "t1"); got.IsError || got.Text != "done" {
		t.Errorf("the task call's result is %+v; want the sub-agent's answer", got)
	}
	// Not the session's compaction: it cannot be undone as one.
	if err := h.k.UndoCompaction(context.Background(), ses.ID, c.ID); !errors.Is(err, kernel.ErrConflict) {
		t.Errorf("UndoCompaction of the sub-agent's compaction: %v; want ErrConflict", err)
	}
}
