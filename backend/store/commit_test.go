package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"foya/backend/event"
	"foya/backend/llm"
)

// A commit's session row and read marks are stored with its events in one
// transaction: when the events cannot be stored, neither are they, and a
// new session's events can follow its row in the commit that creates it.
func TestApplyStoresSessionAndReadMarksWithTheEvents(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	sess := session(t, s, "s1")
	if err := s.PutFileRead(ctx, FileRead{SessionID: "s1", Path: "/w/a.txt", SHA256: "x"}); err != nil {
		t.Fatal(err)
	}
	mode := event.SessionMode(event.SessionModeData{From: "auto", To: "full_access"})
	mode.SessionID = "s1"
	orphan := event.FileChangedOutside(event.FileChangedOutsideData{Path: "/w/a.txt"})
	orphan.SessionID = "ses_gone" // cannot be stored: no such session

	switched := sess
	switched.ApprovalMode = "full_access"
	_, err := s.Apply(ctx, llm.Commit{Session: &switched,
		ReadMarks: []llm.ReadMark{{SessionID: "s1", Path: "/w/a.txt"}}, Events: []llm.Event{mode, orphan}})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Apply with an event of no session = %v; want ErrNotFound", err)
	}
	got, err := s.Session(ctx, "s1")
	if err != nil || got.ApprovalMode != "auto" || got.LastSeq != 0 {
		t.Fatalf("after the failed commit: session %+v (%v); want mode auto and no event", got, err)
	}
	if r, err := s.FileRead(ctx, "s1", "/w/a.txt"); err != nil || r.Outside {
		t.Fatalf("after the failed commit: read record %+v (%v); want it unmarked", r, err)
	}

	evs, err := s.Apply(ctx, llm.Commit{Session: &switched,
		ReadMarks: []llm.ReadMark{{SessionID: "s1", Path: "/w/a.txt"}, {SessionID: "s1", Path: "/w/never-read"}},
		Events:    []llm.Event{mode}})
	if err != nil || len(evs) != 1 || evs[0].Seq != 1 {
		t.Fatalf("Apply = %+v, %v; want the session.mode event with seq 1", evs, err)
	}
	if got, err = s.Session(ctx, "s1"); err != nil || got.ApprovalMode != "full_access" || got.Title != sess.Title {
		t.Fatalf("after the commit: session %+v (%v); want mode full_access, the rest as it was", got, err)
	}
	if r, err := s.FileRead(ctx, "s1", "/w/a.txt"); err != nil || !r.Outside {
		t.Fatalf("after the commit: read record %+v (%v); want it marked", r, err)
	}

	created := llm.Session{ID: "s2", Workdir: "/w", ApprovalMode: "full_access", Title: "new"}
	first := event.SessionMode(event.SessionModeData{To: "full_access"})
	first.SessionID = "s2"
	if _, err := s.Apply(ctx, llm.Commit{Session: &created, NewSession: true, Events: []llm.Event{first}}); err != nil {
		t.Fatalf("create a session with its first event: %v", err)
	}
	if created.CreatedAt.IsZero() || !created.UpdatedAt.Equal(created.CreatedAt) {
		t.Fatalf("created session's times %v, %v; want them filled in", created.CreatedAt, created.UpdatedAt)
	}
	if got, err := s.Session(ctx, "s2"); err != nil || got.ApprovalMode != "full_access" || got.LastSeq != 1 {
		t.Fatalf("created session %+v (%v); want Full Access with one event", got, err)
	}

	missing := llm.Session{ID: "s3", Workdir: "/w", ApprovalMode: "auto"}
	if _, err := s.Apply(ctx, llm.Commit{Session: &missing}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update of a session never created = %v; want ErrNotFound", err)
	}
}

// AddChange keeps a File Change with the contents it needs to be reverted.
func TestAddChangeKeepsTheContents(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	var c llm.Commit
	c.AddChange(llm.FileChange{ID: "chg_1", SessionID: "s1", Path: "/w/a", SHAAfter: sha("new")}, nil, []byte("new"))
	c.AddChange(llm.FileChange{ID: "chg_2", SessionID: "s1", Path: "/w/a", SHABefore: sha("new")}, []byte("new"), nil)
	if len(c.Blobs) != 2 || len(c.FileChanges) != 2 {
		t.Fatalf("commit has %d blobs and %d changes; want 2 and 2", len(c.Blobs), len(c.FileChanges))
	}
	if _, err := s.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Blob(ctx, sha("new")); err != nil || string(b) != "new" {
		t.Fatalf("blob = %q, %v; want the content after", b, err)
	}
	if list, err := s.FileChanges(ctx, "s1"); err != nil || len(list) != 2 {
		t.Fatalf("file changes %+v (%v); want 2", list, err)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
