package capture

import (
	"context"
	"os"
	"sync"
	"time"

	"foya/backend/llm"
	"foya/backend/tools/files"
)

// runningCommands holds, by session, how many shell commands run and the
// paths the watcher saw change meanwhile, which checkOutside leaves for
// the command's After: what a running command changes is the command's,
// recorded as its File Changes, not a change outside Foya. A background
// command counts from its Before until its changes are captured when it
// ends. Before sets the count to the session's running background
// commands plus the command starting (a session's foreground commands run
// one at a time), so a Before whose command never started (a background
// command refused) counts only until the next Before or a while after the
// end of its run (Settle). The zero value is ready to use.
type runningCommands struct {
	mu sync.Mutex
	m  map[string]*held
}

// held is what checkOutside left for later: paths, or all of the
// session's records when there were more than maxHeld.
type held struct {
	n     int
	paths []string
	seen  map[string]bool
	all   bool
}

// maxHeld bounds the paths held for one session.
const maxHeld = 1024

// start notes that a shell command of the session starts while background
// others run.
func (rc *runningCommands) start(sessionID string, background int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.m == nil {
		rc.m = map[string]*held{}
	}
	h := rc.m[sessionID]
	if h == nil {
		h = &held{seen: map[string]bool{}}
		rc.m[sessionID] = h
	}
	h.n = background + 1
}

// end notes that a shell command of the session ended and, when it was
// the last one running, returns what was held.
func (rc *runningCommands) end(sessionID string) held {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	h := rc.m[sessionID]
	if h == nil {
		return held{}
	}
	if h.n--; h.n > 0 {
		return held{}
	}
	delete(rc.m, sessionID)
	return *h
}

// settle notes that no foreground command of the session runs (its run
// ended) and that background ones do: it drops the count of commands
// whose Before had no After, and returns what was held when none runs.
func (rc *runningCommands) settle(sessionID string, background int) held {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	h := rc.m[sessionID]
	if h == nil || h.n <= background {
		return held{}
	}
	if h.n = background; h.n > 0 {
		return held{}
	}
	delete(rc.m, sessionID)
	return *h
}

// hold keeps path for later and reports true while a shell command of the
// session runs.
func (rc *runningCommands) hold(sessionID, path string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	h := rc.m[sessionID]
	if h == nil || h.n <= 0 {
		return false
	}
	switch {
	case h.all || h.seen[path]:
	case len(h.paths) >= maxHeld:
		h.all, h.paths, h.seen = true, nil, nil
	default:
		h.seen[path] = true
		h.paths = append(h.paths, path)
	}
	return true
}

// revertedFiles holds, by session and path, the state a revert (or a shell
// command, see Capture.After) left a file in, for the watcher: after a
// revert the session's record of the file is marked as changed (the model
// has not seen what the revert wrote), so the record no longer says what
// Foya last wrote there. An entry goes with the record it was made for
// (its ReadAt): a new read or write by the model replaces the record, and
// the entry with it. It is reported once, like a record is marked once.
// Kept in memory: after a restart, a file reverted before it is watched as
// its record says. The zero value is ready to use.
type revertedFiles struct {
	mu sync.Mutex
	m  map[[2]string]revertedFile
}

type revertedFile struct {
	left   files.Read // the file as the revert left it
	readAt time.Time  // of the session's record when the revert marked it
}

// left notes what the revert change rec left at its path, if the session
// has a record of the path (the watcher looks only at those).
func (rf *revertedFiles) left(ctx context.Context, reads Reads, rec llm.FileChange) {
	r, ok, err := reads.GetRead(ctx, rec.SessionID, rec.Path)
	if err != nil || !ok || rec.IsDir {
		return
	}
	state := files.Read{SessionID: rec.SessionID, Path: rec.Path, SHA256: rec.SHAAfter, Absent: !rec.ExistsAfter}
	if fi, err := os.Lstat(rec.Path); err == nil && rec.ExistsAfter {
		state.Size, state.ModTime = fi.Size(), fi.ModTime()
	}
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.m == nil {
		rf.m = map[[2]string]revertedFile{}
	}
	rf.m[[2]string{rec.SessionID, rec.Path}] = revertedFile{left: state, readAt: r.ReadAt}
}

// of returns what a revert left at r's path while r is the record the
// revert marked; an entry of an earlier record is dropped.
func (rf *revertedFiles) of(r files.Read) (files.Read, bool) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	key := [2]string{r.SessionID, r.Path}
	e, ok := rf.m[key]
	if ok && !e.readAt.Equal(r.ReadAt) {
		delete(rf.m, key)
		ok = false
	}
	return e.left, ok
}

// take removes the entry of r's path, reporting whether it was there (so
// two checks at once report a change once).
func (rf *revertedFiles) take(r files.Read) bool {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	key := [2]string{r.SessionID, r.Path}
	_, ok := rf.m[key]
	delete(rf.m, key)
	return ok
}
