package tests

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"foya/backend/event"
	pt "foya/backend/provider/providertest"
)

// TestTodoWriteThroughKernel: the built-in todo_write is in the registry, a
// scripted run calls it in Manual mode without an approval, each call
// stores one typed todo.updated event with the whole list, a bad list is an
// error result that stores nothing, and the next call replaces the list.
// spec: R1, T4, K1
func TestTodoWriteThroughKernel(t *testing.T) {
	first := `{"todos":[{"content":"read main.go","status":"in_progress"},{"content":"fix the bug","status":"pending"}]}`
	bad := `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`
	second := `{"todos":[{"content":"fix the bug","status":"completed"}]}`
	h := newHarness(t, nil,
		pt.Calls(call("1", "todo_write", first)),
		pt.Calls(call("2", "todo_write", bad)),
		pt.Calls(call("3", "todo_write", second)),
		pt.Say("done"))
	ses := h.session("manual")
	run := h.runIn(context.Background(), ses.ID, "plan and fix")
	if run.Status != "completed" {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	evs, err := h.k.Events(context.Background(), ses.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lists [][]event.Todo
	var seqs []int64
	for _, ev := range evs {
		switch ev.Type {
		case event.TypeApprovalRequest:
			t.Errorf("todo_write asked for approval: %s", ev.Data)
		case event.TypeTodoUpdated:
			p, ok := event.Payload(ev.Type).(*event.TodoUpdatedData)
			if !ok {
				t.Fatalf("Payload(todo.updated) = %T", event.Payload(ev.Type))
			}
			if err := json.Unmarshal(ev.Data, p); err != nil {
				t.Fatal(err)
			}
			if ev.RunID != run.ID {
				t.Errorf("todo.updated run %q, want %q", ev.RunID, run.ID)
			}
			lists = append(lists, p.Todos)
			seqs = append(seqs, ev.Seq)
		}
	}
	want := [][]event.Todo{
		{{Content: "read main.go", Status: event.TodoInProgress}, {Content: "fix the bug", Status: event.TodoPending}},
		{{Content: "fix the bug", Status: event.TodoCompleted}},
	}
	if len(lists) != len(want) {
		t.Fatalf("%d todo.updated events %v; want %d (the bad list stores none)", len(lists), lists, len(want))
	}
	for i := range want {
		if !slices.Equal(lists[i], want[i]) {
			t.Errorf("list %d = %v; want %v", i, lists[i], want[i])
		}
	}
	if seqs[0] >= seqs[1] {
		t.Errorf("seqs %v not increasing", seqs)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests; want 4", len(reqs))
	}
	results := []string{}
	for _, m := range toolMessages(reqs[3]) {
		results = append(results, m.Content)
	}
	if len(results) != 3 || !strings.Contains(results[0], "2 tasks") ||
		!strings.Contains(results[1], "at most one at a time") || !strings.Contains(results[2], "1 completed") {
		t.Errorf("tool results %q", results)
	}
}
