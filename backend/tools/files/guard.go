package files

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Read is what the stale-read guard remembers about a file a session read
// or wrote: enough to tell, before the session writes it, whether it is
// still what the session saw.
type Read struct {
	SessionID string
	// Path is the resolved absolute path.
	Path string
	// SHA256 is the digest of the whole content, when the session saw all
	// of it (it read to the end, or wrote it); empty after a partial read.
	SHA256  string
	Size    int64
	ModTime time.Time
	ReadAt  time.Time
	// Outside says a watcher saw the file change outside Foya since.
	Outside bool
	// Absent says the session knows nothing is at Path: it deleted it,
	// or was told that it vanished.
	Absent bool
}

// Reads keeps the guard's records. The kernel keeps them in the store, so
// they survive a restart of foya exec --session; MemReads keeps them in
// memory.
type Reads interface {
	PutRead(ctx context.Context, r Read) error
	// GetRead returns the record of sessionID for path, and whether
	// there is one.
	GetRead(ctx context.Context, sessionID, path string) (Read, bool, error)
}

// MemReads is a Reads in memory, safe for concurrent use.
type MemReads struct {
	mu sync.Mutex
	m  map[[2]string]Read
}

// NewMemReads returns an empty MemReads.
func NewMemReads() *MemReads { return &MemReads{m: map[[2]string]Read{}} }

// PutRead implements Reads.
func (m *MemReads) PutRead(_ context.Context, r Read) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[[2]string{r.SessionID, r.Path}] = r
	return nil
}

// GetRead implements Reads.
func (m *MemReads) GetRead(_ context.Context, sessionID, path string) (Read, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.m[[2]string{sessionID, path}]
	return r, ok, nil
}

// Fresh reports whether cur is still what the record saw: nothing, when
// the record is of an absence; else the same digest when the record has
// one, or the same size and modification time and no change seen outside.
func (r Read) Fresh(cur state) bool {
	switch {
	case r.Absent || !cur.Exists:
		return r.Absent && !cur.Exists
	case cur.IsDir:
		return false
	case r.SHA256 != "" && cur.SHA != "":
		return r.SHA256 == cur.SHA
	}
	return !r.Outside && r.Size == cur.Size && r.ModTime.Equal(cur.ModTime)
}

// staleness returns why changing cur would lose something the session has
// not seen, worded for the model, or "" when it may go ahead. A file that
// does not exist and was never read may be created.
func staleness(r Read, found bool, cur state, show, verb string) string {
	switch {
	case !found && !cur.Exists:
		return ""
	case !found:
		return fmt.Sprintf("%s: you have not read %s in this session, so this could overwrite something you have not seen. Nothing was changed: read it first (the read tool), then %s again", verb, show, verb)
	case r.Fresh(cur):
		return ""
	case r.Absent:
		return fmt.Sprintf("%s: %s was created by someone else since you saw it missing. Nothing was changed: read it first, then %s again", verb, show, verb)
	case !cur.Exists:
		return fmt.Sprintf("%s: %s no longer exists: it was deleted or moved since you read it. Nothing was changed. Check with ls; if you mean to create it anew, call %s again", verb, show, verb)
	}
	return fmt.Sprintf("%s: %s changed since you last read it (someone or something else edited it). Nothing was changed: read it again, then %s with its current content", verb, show, verb)
}

// record notes that the session saw st at path.
func record(ctx context.Context, reads Reads, sessionID, path string, st state, whole bool) error {
	r := Read{SessionID: sessionID, Path: path, Size: st.Size, ModTime: st.ModTime, ReadAt: time.Now(), Absent: !st.Exists}
	if whole {
		r.SHA256 = st.SHA
	}
	if err := reads.PutRead(ctx, r); err != nil {
		return fmt.Errorf("remember the read of %s: %w", path, err)
	}
	return nil
}

// Changed reports whether the file at r.Path is no longer what r saw, and
// whether anything is there now. A file that cannot be looked at counts
// as unchanged: the guard checks again before any write.
func Changed(r Read) (changed, exists bool) {
	cur, err := snapshot(plainLoc(r.Path), MaxKeep)
	if err != nil && !errors.Is(err, errTooLarge) {
		return false, cur.Exists
	}
	return !r.Fresh(cur), cur.Exists
}
