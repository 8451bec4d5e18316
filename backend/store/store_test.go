package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"foya/backend/event"
	"foya/backend/llm"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "foya.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func session(t *testing.T, s *Store, id string) llm.Session {
	t.Helper()
	sess, err := s.CreateSession(context.Background(), llm.Session{ID: id, Workdir: "/w", ApprovalMode: "auto", Tools: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func TestApplyAssignsSeqAndKeepsEverything(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	run := llm.Run{ID: "r1", SessionID: "s1", Status: llm.RunRunning, Prompt: "hi"}
	evs, err := s.Apply(ctx, llm.Commit{
		Run:      &run,
		Calls:    []llm.CallRecord{{SessionID: "s1", RunID: "r1", Step: 1, Index: 0, ID: "c1", Name: "read", State: llm.CallQueued}},
		Messages: []llm.StoredMessage{{SessionID: "s1", RunID: "r1", Message: llm.Message{Role: llm.RoleUser, Content: "hi"}}},
		Events: []llm.Event{
			{Type: event.TypeRunStart, SessionID: "s1", RunID: "r1"},
			{Type: event.TypeToolBegin, SessionID: "s1", RunID: "r1", Data: llm.Data(map[string]string{"id": "c1"})},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Seq != 1 || evs[1].Seq != 2 {
		t.Fatalf("seqs = %d, %d; want 1, 2", evs[0].Seq, evs[1].Seq)
	}
	res := &llm.ToolResult{Text: "ok"}
	evs, err = s.Apply(ctx, llm.Commit{
		Calls:  []llm.CallRecord{{SessionID: "s1", RunID: "r1", Step: 1, Index: 0, ID: "c1", Name: "read", State: llm.CallDone, Result: res}},
		Events: []llm.Event{{Type: event.TypeToolEnd, SessionID: "s1", RunID: "r1"}},
	})
	if err != nil || evs[0].Seq != 3 {
		t.Fatalf("second apply: seq %v, err %v", evs, err)
	}
	got, err := s.Events(ctx, "s1", 1, 0)
	if err != nil || len(got) != 2 || got[0].Type != event.TypeToolBegin || string(got[0].Data) != `{"id":"c1"}` {
		t.Fatalf("Events after 1 = %+v, %v", got, err)
	}
	calls, err := s.Calls(ctx, "r1")
	if err != nil || len(calls) != 1 || calls[0].State != llm.CallDone || calls[0].Result.Text != "ok" {
		t.Fatalf("Calls = %+v, %v", calls, err)
	}
	msgs, err := s.Messages(ctx, "s1")
	if err != nil || len(msgs) != 1 || msgs[0].Message.Content != "hi" {
		t.Fatalf("Messages = %+v, %v", msgs, err)
	}
	list, err := s.Sessions(ctx)
	if err != nil || len(list) != 1 || list[0].Runs != 1 || list[0].LastSeq != 3 || list[0].Tools[0] != "read" {
		t.Fatalf("Sessions = %+v, %v", list, err)
	}
}

func TestApplyIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	_, err := s.Apply(ctx, llm.Commit{
		Messages: []llm.StoredMessage{{SessionID: "s1", RunID: "r", Message: llm.Message{Role: llm.RoleUser, Content: "kept?"}}},
		Events:   []llm.Event{{Type: "x", SessionID: "nope"}},
	})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v; want ErrNotFound", err)
	}
	msgs, _ := s.Messages(ctx, "s1")
	if len(msgs) != 0 {
		t.Fatalf("a failed commit left %d messages", len(msgs))
	}
}

func TestConcurrentAppendsGiveDistinctSeqs(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	var wg sync.WaitGroup
	seen := make(chan int64, 200)
	for range 8 {
		wg.Go(func() {
			for range 25 {
				evs, err := s.Apply(ctx, llm.Commit{Events: []llm.Event{{Type: "x", SessionID: "s1"}}})
				if err != nil {
					t.Error(err)
					return
				}
				seen <- evs[0].Seq
			}
		})
	}
	wg.Wait()
	close(seen)
	set := map[int64]bool{}
	for q := range seen {
		if set[q] {
			t.Fatalf("seq %d given twice", q)
		}
		set[q] = true
	}
	if len(set) != 200 {
		t.Fatalf("%d distinct seqs; want 200", len(set))
	}
}

func TestArtifactsAreDedupedAndScopedToTheirSession(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	session(t, s, "s2")
	data := []byte("\x89PNG fake bytes")
	_, err := s.Apply(ctx, llm.Commit{Artifacts: []llm.Artifact{
		{ID: "a1", SessionID: "s1", MIME: "image/png", Data: data},
		{ID: "a2", SessionID: "s1", MIME: "image/png", Data: data},
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Artifact(ctx, "s1", "a2")
	if err != nil || string(a.Data) != string(data) || a.Size != int64(len(data)) {
		t.Fatalf("Artifact = %+v, %v", a, err)
	}
	if _, err := s.Artifact(ctx, "s2", "a1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another session's artifact: err = %v; want ErrNotFound", err)
	}
	var n int
	s.r.QueryRow(`SELECT count(*) FROM blobs`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d blobs for one content; want 1", n)
	}
}

func TestOpenBadFilesSayWhichFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "junk.db")
	os.WriteFile(notDB, []byte(strings.Repeat("this is not sqlite\n", 300)), 0o600)
	if _, err := Open(ctx, notDB); err == nil || !strings.Contains(err.Error(), notDB) || !strings.Contains(err.Error(), "not a Foya database") {
		t.Fatalf("Open(junk) err = %v; want it to name the file and say it is not a database", err)
	}
	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("Open(dir) err = %v", err)
	}
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o500)
		if _, err := Open(ctx, filepath.Join(ro, "x.db")); err == nil || !strings.Contains(err.Error(), "ro") {
			t.Fatalf("Open(read-only dir) err = %v", err)
		}
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "foya.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	session(t, s, "s1")
	if err := s.SetSetting(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, ok, err := s.Setting(ctx, "k"); v != "v" || !ok || err != nil {
		t.Fatalf("Setting = %q %v %v", v, ok, err)
	}
	if _, err := s.Session(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "zz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing session err = %v", err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "foya.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.w.Exec(`PRAGMA user_version = 999`)
	s.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "upgrade Foya") {
		t.Fatalf("err = %v; want a clear refusal", err)
	}
}

func TestLockedDatabaseNamesTheFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "foya.db")
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	session(t, a, "s1")
	tx, err := a.w.BeginTx(ctx, nil) // holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`UPDATE sessions SET title = 'x'`); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.w.Exec(`PRAGMA busy_timeout = 50`)
	_, err = b.Apply(ctx, llm.Commit{Events: []llm.Event{{Type: "x", SessionID: "s1"}}})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "kept it locked") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v; want a lock error naming the file", err)
	}
}

// Every connection, the writer's and the readers', bounds its page cache
// (foya exec's peak RSS, issue 27 item 4).
func TestPageCacheIsBounded(t *testing.T) {
	s := open(t)
	for name, db := range map[string]interface {
		QueryRow(string, ...any) *sql.Row
	}{"writer": s.w, "reader": s.r} {
		var n int
		if err := db.QueryRow("PRAGMA cache_size").Scan(&n); err != nil {
			t.Fatal(name, err)
		}
		if n != -cacheKiB {
			t.Errorf("%s: cache_size = %d, want %d (KiB)", name, n, -cacheKiB)
		}
	}
}
