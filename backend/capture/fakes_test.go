package capture

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/llm"
	"foya/backend/tools/files"
	"foya/backend/tools/shell"
	"foya/backend/workspace"
)

// store is a fake of the store and the engine's ordering point, in memory:
// the session's File Changes, kept contents, stale-read records and
// events, and the commits made.
type store struct {
	mu       sync.Mutex
	changes  []llm.FileChange
	blobs    map[string][]byte
	reads    map[string]files.Read // by path
	events   []llm.Event
	commits  []llm.Commit
	failing  error // what Commit returns while set
	recorded chan llm.Event
}

func newStore() *store {
	return &store{blobs: map[string][]byte{}, reads: map[string]files.Read{}, recorded: make(chan llm.Event, 100)}
}

func (s *store) FileChanges(ctx context.Context, sessionID string) ([]llm.FileChange, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.FileChange(nil), s.changes...), nil
}

func (s *store) Blob(ctx context.Context, sha string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.blobs[sha]
	if !ok {
		return nil, errors.New("no such blob")
	}
	return b, nil
}

func (s *store) GetRead(ctx context.Context, sessionID, path string) (files.Read, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reads[path]
	return r, ok, nil
}

func (s *store) FileReads(ctx context.Context, sessionID string) ([]files.Read, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []files.Read
	for _, r := range s.reads {
		out = append(out, r)
	}
	return out, nil
}

func (s *store) MarkFileReadOutside(ctx context.Context, sessionID, path string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reads[path]
	if !ok || r.Outside {
		return false, nil
	}
	r.Outside = true
	s.reads[path] = r
	return true, nil
}

func (s *store) Record(ctx context.Context, sessionID string, evs ...llm.Event) error {
	s.mu.Lock()
	s.events = append(s.events, evs...)
	s.mu.Unlock()
	for _, ev := range evs {
		s.recorded <- ev
	}
	return nil
}

func (s *store) RecordCommit(ctx context.Context, sessionID string, c llm.Commit) error {
	s.mu.Lock()
	if s.failing != nil {
		s.mu.Unlock()
		return s.failing
	}
	for _, m := range c.ReadMarks {
		if r, ok := s.reads[m.Path]; ok {
			r.Outside = true
			s.reads[m.Path] = r
		}
	}
	s.mu.Unlock()
	return s.Record(ctx, sessionID, c.Events...)
}

func (s *store) Commit(ctx context.Context, sessionID string, c llm.Commit) ([]llm.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failing != nil {
		return nil, s.failing
	}
	s.commits = append(s.commits, c)
	s.changes = append(s.changes, c.FileChanges...)
	s.events = append(s.events, c.Events...)
	return c.Events, nil
}

func (s *store) LockChanges(ctx context.Context, sessionID string) (func(), error) {
	return func() {}, nil
}

// read records that the model read path as it is now.
func (s *store) read(t *testing.T, sessionID, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	sum := sha256.Sum256(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads[path] = files.Read{SessionID: sessionID, Path: path, SHA256: hex.EncodeToString(sum[:]), Size: fi.Size(),
		ModTime: fi.ModTime(), ReadAt: time.Now()}
}

// wrote records path as Foya's own tool left it now.
func (s *store) wrote(t *testing.T, sessionID, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blobs[sha] = data
	s.changes = append(s.changes, llm.FileChange{ID: "chg_own", SessionID: sessionID, Path: path, Tool: "write",
		Op: "write", ExistedBefore: true, ExistsAfter: true, SHAAfter: sha, CreatedAt: time.Now()})
}

func (s *store) committed() []llm.Commit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Commit(nil), s.commits...)
}

func (s *store) eventsOf(typ string) []llm.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []llm.Event
	for _, ev := range s.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// commands is a fake shell: live is the live background command, if any.
type commands struct{ live *shell.Live }

func (c commands) Live(string) *shell.Live { return c.live }

func (c commands) List(string) []shell.Background {
	if c.live == nil {
		return nil
	}
	return []shell.Background{{ID: "job_1", Running: true}}
}

// newCapture returns a Capture over st, a workspace Manager in dataDir and
// cmds, and closes both at the end of the test.
func newCapture(t *testing.T, st *store, dataDir string, cmds Commands) (*Capture, *workspace.Manager) {
	t.Helper()
	ws := workspace.New(workspace.Options{Dir: dataDir})
	var n atomic.Int64
	c := New(Deps{Workspace: ws, Records: st, Reads: st, Timeline: st, Commands: cmds,
		NewID: func(prefix string) string { return fmt.Sprintf("%s_%d", prefix, n.Add(1)) }})
	t.Cleanup(func() {
		c.Close()
		ws.Close()
	})
	return c, ws
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
