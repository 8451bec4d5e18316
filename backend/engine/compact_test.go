package engine

import (
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/llm"
)

// The cut never separates a tool result from the call that made it, keeps
// the newest messages within the budget, keeps the newest step alone when
// it is larger, and finds nothing to compact when only the newest step is
// after the last compaction.
// spec: O5
func TestCompactionCut(t *testing.T) {
	long := strings.Repeat("x", 4000) // about 1,000 tokens
	hist := []llm.Message{
		{Role: llm.RoleUser, Content: "do it"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "read"}, {ID: "b", Name: "read"}}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: long},
		{Role: llm.RoleTool, ToolCallID: "b", Content: long},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "read"}}},
		{Role: llm.RoleTool, ToolCallID: "c", Content: long},
		{Role: llm.RoleUser, Content: "and now?"},
	}
	for _, c := range []struct {
		from, keep, want int
	}{
		{0, 100_000, 1}, // everything fits: the first cut after from
		{0, 1_100, 4},   // the newest call, its result and the prompt
		{0, 10, 6},      // less than the newest message: it alone
		{4, 1_100, 6},   // from 4 on, only the prompt is after the newest step's start
		{6, 1_100, 0},   // nothing after from
	} {
		got := cut(hist, c.from, c.keep)
		if got != c.want {
			t.Errorf("cut(from %d, keep %d) = %d; want %d", c.from, c.keep, got, c.want)
		}
		if got > 0 && hist[got].Role == llm.RoleTool {
			t.Errorf("cut(from %d, keep %d) starts at a tool result", c.from, c.keep)
		}
	}
}

// The note is a function of its inputs alone (spec R2: later requests send
// its bytes), lists each path once with its state now, and the tasks with
// their marks; a transcript line is bounded whatever the message's size.
// spec: R2, F1
func TestCompactionNoteAndTranscript(t *testing.T) {
	changes := []llm.FileChange{
		{Path: "/w/a.go", ExistedBefore: false, ExistsAfter: true, SHAAfter: "0123456789abcdef", Added: 3},
		{Path: "/w/b.go", ExistedBefore: true, ExistsAfter: true, SHAAfter: "fedcba9876543210", Added: 1, Removed: 1},
		{Path: "/w/a.go", ExistedBefore: true, ExistsAfter: true, SHAAfter: "aaaaaaaaaaaaaaaa", Added: 2, Removed: 1},
		{Path: "/w/c.go", ExistedBefore: true, ExistsAfter: false, Removed: 9},
		{Path: "/elsewhere/d.txt", ExistedBefore: true, ExistsAfter: true, SHAAfter: "bbbbbbbbbbbbbbbb"},
	}
	todos := []event.Todo{{Content: "one", Status: event.TodoCompleted}, {Content: "two", Status: event.TodoInProgress}, {Content: "three", Status: event.TodoPending}}
	note, files := renderNote(40, 2, "## Goal\nx", "/w", changes, todos)
	again, _ := renderNote(40, 2, "## Goal\nx", "/w", changes, todos)
	if note != again || files != 4 {
		t.Fatalf("files %d; notes equal: %t", files, note == again)
	}
	want := "## File changes (exact, from Foya's records)\n" +
		"- a.go: created (2 changes, +5 -1 lines), now sha256 aaaaaaaaaaaa\n" +
		"- b.go: changed (1 change, +1 -1 lines), now sha256 fedcba987654\n" +
		"- c.go: deleted (1 change, +0 -9 lines)\n" +
		"- /elsewhere/d.txt: changed (1 change, +0 -0 lines), now sha256 bbbbbbbbbbbb\n\n" +
		"## Task list (exact, from Foya's records)\n- [x] one\n- [~] two\n- [ ] three\n"
	if !strings.HasSuffix(note, want) || !strings.Contains(note, "messages r1 to r40 (2 user turns)") {
		t.Errorf("note:\n%s", note)
	}
	empty, _ := renderNote(1, 1, "## Goal\nx", "/w", nil, nil)
	if !strings.Contains(empty, "## File changes (exact, from Foya's records)\nNone.\n") || !strings.HasSuffix(empty, "## Task list (exact, from Foya's records)\nNone.\n") {
		t.Errorf("note without changes or tasks:\n%s", empty)
	}
	huge := strings.Repeat("y", 1<<20)
	hist := []llm.Message{
		{Role: llm.RoleAssistant, Content: huge, ToolCalls: []llm.ToolCall{{Name: "write", Arguments: `{"path":"/w/a.go","content":"` + huge + `"}`}}},
		{Role: llm.RoleTool, ToolName: "write", Content: huge, IsError: true},
	}
	for i := range hist {
		line := transcriptLine(hist, i, "/w")
		if len(line) > lineText+lineArgs+lineResult+200 {
			t.Errorf("transcript line %d is %d bytes", i, len(line))
		}
	}
	if l := transcriptLine(hist, 0, "/w"); !strings.Contains(l, "[r1 assistant]") || !strings.Contains(l, `call write {"path":"a.go"`) {
		t.Errorf("line 0: %.200q", l)
	}
	if l := transcriptLine(hist, 1, "/w"); !strings.HasPrefix(l, "[r2 result of write (error)]\n") || !strings.Contains(l, "bytes left out") {
		t.Errorf("line 1: %.200q", l)
	}
}
