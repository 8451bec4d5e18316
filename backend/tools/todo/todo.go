// Package todo holds todo_write, the built-in tool with which the model
// keeps the session's task list.
//
// The event log is the store: each call records one todo.updated event
// holding the whole list, which replaces the one before; the tool keeps no
// state of its own, so a session's list survives restarts and is the same
// for every client that follows the session.
//
// The tool changes no file and runs no command, so it asks no approval
// (tools ask the gateway themselves, and this one has no action to ask
// about) and is ReadOnly: read-only runs, which plan, may keep a list too.
//
// It imports tools, event and the standard library; the kernel gives it
// the recorder.
package todo

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/invopop/jsonschema"

	"foya/backend/event"
	"foya/backend/tools"
)

//go:embed tool_todo_write.md
var description string

// Name is the tool's name.
const Name = "todo_write"

// Limits of one list.
const (
	MaxTodos   = 100
	MaxContent = 500 // characters of one task
)

// Recorder stores an event of a session and publishes it.
type Recorder func(ctx context.Context, sessionID string, ev event.Event) error

// Writer is the todo_write tool.
type Writer struct{ record Recorder }

// New returns the tool, which records its events with record.
func New(record Recorder) *Writer { return &Writer{record: record} }

// Spec implements tools.Tool.
func (*Writer) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Exposure:    tools.Direct,
		ReadOnly:    true,
		Schema:      schema,
	}
}

type args struct {
	Todos *[]item `json:"todos" jsonschema:"required"`
}

type item struct {
	Content *string `json:"content" jsonschema:"required,minLength=1"`
	Status  *string `json:"status" jsonschema:"required,enum=pending,enum=in_progress,enum=completed"`
}

// JSONSchemaExtend bounds the list by MaxTodos, which a tag cannot name.
func (args) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("todos"); ok {
		p.MaxItems = ptr(uint64(MaxTodos))
	}
}

// JSONSchemaExtend bounds a task's text by MaxContent.
func (item) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("content"); ok {
		p.MaxLength = ptr(uint64(MaxContent))
	}
}

func ptr[T any](v T) *T { return &v }

var schema = tools.SchemaOf[args]()

// Run implements tools.Tool.
func (w *Writer) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	todos, msg := parse(call)
	if msg != "" {
		return tools.Errorf("%s: %s", Name, msg), nil
	}
	if err := w.record(ctx, rc.SessionID, event.TodoUpdated(event.TodoUpdatedData{Todos: todos})); err != nil {
		return tools.Result{}, fmt.Errorf("%s: record the task list: %w", Name, err)
	}
	return tools.Text(summary(todos)), nil
}

// parse decodes and checks the arguments; msg, when not empty, tells the
// model what to correct.
func parse(call tools.Call) (todos []event.Todo, msg string) {
	var a args
	if err := tools.Decode(call, &a); err != nil {
		return nil, err.Error()
	}
	if a.Todos == nil {
		return nil, `argument "todos" is required: send the whole list, [] to clear it`
	}
	if n := len(*a.Todos); n > MaxTodos {
		return nil, fmt.Sprintf("%d tasks: at most %d; merge small ones or drop completed ones", n, MaxTodos)
	}
	todos = make([]event.Todo, 0, len(*a.Todos))
	active := 0
	for i, it := range *a.Todos {
		n := i + 1
		if it.Content == nil || strings.TrimSpace(*it.Content) == "" {
			return nil, fmt.Sprintf("task %d has no content: say what the task is", n)
		}
		content := strings.TrimSpace(*it.Content)
		if c := utf8.RuneCountInString(content); c > MaxContent {
			return nil, fmt.Sprintf("task %d is %d characters: at most %d, one short sentence", n, c, MaxContent)
		}
		if it.Status == nil {
			return nil, fmt.Sprintf("task %d has no status: pending, in_progress or completed", n)
		}
		st := event.TodoStatus(*it.Status)
		switch st {
		case event.TodoPending, event.TodoCompleted:
		case event.TodoInProgress:
			active++
		default:
			return nil, fmt.Sprintf("task %d: status %q: want pending, in_progress or completed", n, bounded(*it.Status))
		}
		todos = append(todos, event.Todo{Content: content, Status: st})
	}
	if active > 1 {
		return nil, fmt.Sprintf("%d tasks are in_progress: at most one at a time; mark the others pending or completed", active)
	}
	return todos, ""
}

// bounded shortens a value the model sent before it is quoted back.
func bounded(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}

// summary is what the model reads back: counts and the task in progress.
func summary(todos []event.Todo) string {
	if len(todos) == 0 {
		return "Task list cleared."
	}
	var done, pending int
	current := ""
	for _, t := range todos {
		switch t.Status {
		case event.TodoCompleted:
			done++
		case event.TodoPending:
			pending++
		case event.TodoInProgress:
			current = t.Content
		}
	}
	s := fmt.Sprintf("Task list updated: %d tasks, %d completed, %d pending", len(todos), done, pending)
	if current != "" {
		s += ", in progress: " + current
	}
	return s + "."
}

var _ tools.Tool = (*Writer)(nil)
