package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
)

// counter makes IDs as the engine does (prefix, "_", 32 hex digits).
func counter() func(string) string {
	n := 0
	return func(prefix string) string {
		n++
		return fmt.Sprintf("%s_%032x", prefix, n)
	}
}

// A fork copies what came before its run, maps every copied record to a
// new ID (a column holding an ID whatever its form, and IDs named in
// copied text), and refuses a whole session with a run going; a run
// that is not one of the session's prompts is not found.
func TestForkSessionCopiesUnderNewIDs(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	other := session(t, s, "s2")
	t0 := time.Unix(1_000_000, 0)
	next := counter() // IDs are unique across forks, as the engine's are
	for i, id := range []string{"r1", "r2"} {
		r := llm.Run{ID: id, SessionID: "s1", Status: llm.RunCompleted, Prompt: "prompt " + id, StartedAt: t0.Add(time.Duration(i) * time.Minute)}
		start := event.RunStart(event.RunStartData{Prompt: r.Prompt})
		start.SessionID, start.RunID = "s1", id
		c := llm.Commit{Run: &r, Events: []llm.Event{start},
			Messages: []llm.StoredMessage{{SessionID: "s1", RunID: id, Message: llm.Message{Role: llm.RoleUser, Content: r.Prompt}}}}
		chg := "chg_" + fmt.Sprintf("%032x", 100+i)
		c.AddChange(llm.FileChange{ID: chg, SessionID: "s1", RunID: id, Path: "/w/a", Op: "write", ExistsAfter: true, CreatedAt: r.StartedAt}, nil, []byte(id))
		end := event.FileReverted(event.FileRevertedData{ChangeID: chg, Path: "/w/a"}) // any payload naming the change
		end.SessionID, end.RunID = "s1", id
		c.Events = append(c.Events, end)
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	f, err := s.ForkSession(ctx, Fork{From: "s1", To: llm.Session{ID: "s3", Title: "t (fork)", Workdir: "/w", ApprovalMode: "auto", ForkedAt: 2},
		Before: "r2", NewID: next})
	if err != nil {
		t.Fatal(err)
	}
	if f.ForkedFrom != "s1" || f.ForkedAt != 2 || f.Runs != 1 || f.LastSeq != 2 {
		t.Errorf("fork = %+v; want from s1 at 2 with one run and two events", f)
	}
	evs, err := s.Events(ctx, "s3", 0, 0)
	if err != nil || len(evs) != 2 {
		t.Fatalf("fork events: %v, %v", evs, err)
	}
	runs, _ := s.Runs(ctx, "s3")
	changes, _ := s.FileChanges(ctx, "s3")
	if len(runs) != 1 || runs[0].ID == "r1" || evs[0].RunID != runs[0].ID || len(changes) != 1 || changes[0].RunID != runs[0].ID || changes[0].SessionID != "s3" {
		t.Fatalf("fork runs %+v, changes %+v, events %+v; want copies under new IDs that name each other", runs, changes, evs)
	}
	var d event.FileRevertedData
	if err := json.Unmarshal(evs[1].Data, &d); err != nil || d.ChangeID != changes[0].ID {
		t.Errorf("copied event names change %q (%v); want the copy %s", d.ChangeID, err, changes[0].ID)
	}
	if msgs, _ := s.Messages(ctx, "s3"); len(msgs) != 1 || msgs[0].Message.Content != "prompt r1" {
		t.Errorf("fork messages = %+v; want the first prompt", msgs)
	}
	if orig, _ := s.FileChanges(ctx, "s1"); len(orig) != 2 || orig[0].SessionID != "s1" {
		t.Errorf("the parent's changes = %+v; want them as they were", orig)
	}

	// Bad: another session's run, an unknown session, a whole session
	// with a run going.
	if _, err := s.ForkSession(ctx, Fork{From: other.ID, To: llm.Session{ID: "s4", Workdir: "/w", ApprovalMode: "auto"}, Before: "r1", NewID: next}); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork of s2 before s1's run = %v; want not found", err)
	}
	if _, err := s.ForkSession(ctx, Fork{From: "nope", To: llm.Session{ID: "s4", Workdir: "/w", ApprovalMode: "auto"}, NewID: next}); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork of an unknown session = %v; want not found", err)
	}
	running := llm.Run{ID: "r3", SessionID: "s1", Status: llm.RunRunning, Prompt: "p", StartedAt: t0.Add(time.Hour)}
	if _, err := s.Apply(ctx, llm.Commit{Run: &running}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForkSession(ctx, Fork{From: "s1", To: llm.Session{ID: "s4", Workdir: "/w", ApprovalMode: "auto"}, NewID: next}); !errors.Is(err, ErrRunning) {
		t.Errorf("whole fork of a running session = %v; want ErrRunning", err)
	}
	if _, err := s.Session(ctx, "s4"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a refused fork stored its session: %v", err)
	}

	// Before a run that stored nothing yet (a crash may leave one): the
	// runs before it, what they stored, nothing after.
	r3, err := s.ForkSession(ctx, Fork{From: "s1", To: llm.Session{ID: "s5", Workdir: "/w", ApprovalMode: "auto"}, Before: "r3", NewID: next})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := s.Messages(ctx, "s5")
	if r3.Runs != 2 || r3.LastSeq != 4 || len(msgs) != 2 {
		t.Errorf("fork before r3 = %+v with %d messages; want r1 and r2, their 4 events and 2 messages", r3, len(msgs))
	}
}
