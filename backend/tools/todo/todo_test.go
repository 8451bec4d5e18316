package todo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/tools"
	"foya/backend/tools/todo"
)

type sink struct{ evs []event.Event }

func (s *sink) record(_ context.Context, sid string, ev event.Event) error {
	ev.SessionID = sid
	s.evs = append(s.evs, ev)
	return nil
}

func run(t *testing.T, w *todo.Writer, args string) tools.Result {
	t.Helper()
	res, err := w.Run(context.Background(), &tools.RunContext{SessionID: "ses_1"}, tools.Call{ID: "c", Name: todo.Name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return res
}

// TestBadInput: each malformed list is an is_error result that says what
// to correct and records nothing.
// spec: T4, K1
func TestBadInput(t *testing.T) {
	many := make([]string, todo.MaxTodos+1)
	for i := range many {
		many[i] = `{"content":"x","status":"pending"}`
	}
	cases := map[string]string{
		`{`:                                "not a valid JSON object",
		`[]`:                               "not a valid JSON object",
		`{}`:                               `"todos" is required`,
		`{"todos":null}`:                   `"todos" is required`,
		`{"todos":"a"}`:                    "must be an array",
		`{"todos":[{"content":"a"}]}`:      "has no status",
		`{"todos":[{"status":"pending"}]}`: "has no content",
		`{"todos":[{"content":"  ","status":"pending"}]}`:                                             "has no content",
		`{"todos":[{"content":"a","status":"done"}]}`:                                                 `status "done"`,
		`{"todos":[{"content":"a","status":7}]}`:                                                      "must be a string",
		`{"todos":[{"content":"a","status":"pending","x":1}]}`:                                        "unknown argument",
		`{"todos":[],"extra":1}`:                                                                      "unknown argument",
		`{"todos":[{"content":"` + strings.Repeat("é", todo.MaxContent+1) + `","status":"pending"}]}`: "at most 500",
		`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`:   "at most one at a time",
		`{"todos":[` + strings.Join(many, ",") + `]}`:                                                 "at most 100",
		`{"todos":[{"content":"a","status":"` + strings.Repeat("z", 5000) + `"}]}`:                    "want pending",
	}
	s := &sink{}
	w := todo.New(s.record)
	for args, want := range cases {
		res := run(t, w, args)
		if !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%.80s: %+v; want an error saying %q", args, res, want)
		}
		if len(res.Text) > 300 {
			t.Errorf("%.80s: error of %d bytes quotes too much", args, len(res.Text))
		}
	}
	if len(s.evs) != 0 {
		t.Errorf("bad input recorded %d events", len(s.evs))
	}
}

// TestReplace: every call records the whole list, which replaces the one
// before; an empty list clears it.
// spec: R1
func TestReplace(t *testing.T) {
	s := &sink{}
	w := todo.New(s.record)
	r1 := run(t, w, `{"todos":[{"content":" plan ","status":"completed"},{"content":"code","status":"in_progress"},{"content":"test","status":"pending"}]}`)
	r2 := run(t, w, `{"todos":[{"content":"test","status":"in_progress"}]}`)
	r3 := run(t, w, `{"todos":[]}`)
	if r1.IsError || r1.Text != "Task list updated: 3 tasks, 1 completed, 1 pending, in progress: code." {
		t.Errorf("first: %+v", r1)
	}
	if r2.IsError || !strings.Contains(r2.Text, "1 tasks, 0 completed, 0 pending, in progress: test") {
		t.Errorf("second: %+v", r2)
	}
	if r3.IsError || r3.Text != "Task list cleared." {
		t.Errorf("third: %+v", r3)
	}
	want := []string{
		`{"todos":[{"content":"plan","status":"completed"},{"content":"code","status":"in_progress"},{"content":"test","status":"pending"}]}`,
		`{"todos":[{"content":"test","status":"in_progress"}]}`,
		`{"todos":[]}`,
	}
	if len(s.evs) != len(want) {
		t.Fatalf("%d events; want %d", len(s.evs), len(want))
	}
	for i, ev := range s.evs {
		if ev.Type != event.TypeTodoUpdated || ev.SessionID != "ses_1" || string(ev.Data) != want[i] {
			t.Errorf("event %d: %s %s %s; want todo.updated %s", i, ev.Type, ev.SessionID, ev.Data, want[i])
		}
	}
}

// TestRecordFails: a store that cannot record is a broken program, a Go
// error, not a result the model could correct.
func TestRecordFails(t *testing.T) {
	w := todo.New(func(context.Context, string, event.Event) error { return errors.New("disk full") })
	_, err := w.Run(context.Background(), &tools.RunContext{SessionID: "s"}, tools.Call{Arguments: json.RawMessage(`{"todos":[]}`)})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v", err)
	}
}
