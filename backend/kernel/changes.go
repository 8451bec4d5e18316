package kernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/tools"
	"foya/backend/tools/files"
	"foya/backend/trash"
)

// fileTools returns the built-in file tools, their stale-read guard kept
// in the store and deletions going to the user's trash. They hide what
// sandboxed commands cannot see (k.shell, made after them), never open
// the database and do not write Foya's own files outside Full Access.
func fileTools(k *Kernel) []tools.Tool {
	st := k.store
	return files.Tools(files.Options{Reads: readLog{st}, Trash: trash.Default(),
		MaxWrite: func(ctx context.Context) int64 { return maxWrite(ctx, st) },
		Database: k.databaseFiles(),
		Hidden:   func() []string { return k.shell.Hidden() },
		Own:      k.ownFiles(),
	})
}

// readLog keeps the stale-read guard's records in the store.
type readLog struct{ st *store.Store }

func (r readLog) PutRead(ctx context.Context, fr files.Read) error {
	return r.st.PutFileRead(ctx, store.FileRead{SessionID: fr.SessionID, Path: fr.Path, SHA256: fr.SHA256, Size: fr.Size,
		ModTime: fr.ModTime, ReadAt: fr.ReadAt, Outside: fr.Outside, Absent: fr.Absent})
}

func (r readLog) GetRead(ctx context.Context, sessionID, path string) (files.Read, bool, error) {
	fr, err := r.st.FileRead(ctx, sessionID, path)
	if errors.Is(err, store.ErrNotFound) {
		return files.Read{}, false, nil
	}
	if err != nil {
		return files.Read{}, false, err
	}
	return readOf(fr), true, nil
}

func readOf(fr store.FileRead) files.Read {
	return files.Read{SessionID: fr.SessionID, Path: fr.Path, SHA256: fr.SHA256, Size: fr.Size, ModTime: fr.ModTime,
		ReadAt: fr.ReadAt, Outside: fr.Outside, Absent: fr.Absent}
}

// Changes returns a session's file changes, oldest first.
func (k *Kernel) Changes(ctx context.Context, sessionID string) ([]Change, error) {
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return nil, err
	}
	list, err := k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if list == nil {
		return []Change{}, nil
	}
	return list, nil
}

// Change returns one file change.
func (k *Kernel) Change(ctx context.Context, id string) (Change, error) {
	c, err := k.store.FileChange(ctx, id)
	return c, err
}

// Diff returns what a change did, for people: its unified diff, or a line
// saying what happened where there is none (folders, binary files,
// contents too large to keep).
func (k *Kernel) Diff(ctx context.Context, id string) (string, error) {
	c, err := k.store.FileChange(ctx, id)
	if err != nil {
		return "", err
	}
	what := c.Op
	if c.RevertOf != "" {
		what = "revert of " + c.RevertOf
	}
	switch {
	case c.IsDir && c.ExistsAfter:
		return fmt.Sprintf("%s: folder %s created (mode %o)\n", what, c.Path, c.ModeAfter), nil
	case c.IsDir:
		return fmt.Sprintf("%s: folder %s moved to the trash (%s)\n", what, c.Path, c.TrashPath), nil
	case c.NotRestorable != "" && c.Diff == "":
		return fmt.Sprintf("%s: %s (not restorable: %s)\n", what, c.Path, c.NotRestorable), nil
	case c.Diff == "":
		return fmt.Sprintf("%s: %s (no content diff: the contents were too large to keep, or only the mode changed: %o to %o)\n", what, c.Path, c.ModeBefore, c.ModeAfter), nil
	}
	return c.Diff, nil
}

// errRevert marks a request that cannot be carried out as given.
type errRevert struct{ msg string }

func (e errRevert) Error() string        { return e.msg }
func (e errRevert) Is(target error) bool { return target == ErrInvalid }

// IsBadRevert reports whether err means the revert request itself was
// wrong (no selection, unknown hunks, changes of several sessions).
func IsBadRevert(err error) bool {
	var e errRevert
	return errors.As(err, &e)
}

// Revert undoes file changes (see RevertRequest). Each undo is recorded as
// a change of its own (Op "revert", RevertOf set), with a file.reverted
// event, so a revert can be reverted. When the files are no longer what
// the changes left there, it changes nothing and returns the conflicts,
// unless req.Force. With req.DryRun it changes nothing and returns what it
// would do.
func (k *Kernel) Revert(ctx context.Context, req RevertRequest) (RevertResult, error) {
	res := RevertResult{Reverted: []Change{}, DryRun: req.DryRun}
	sel := 0
	for _, set := range []bool{len(req.ChangeIDs) > 0, req.RunID != "", req.ToChangeID != ""} {
		if set {
			sel++
		}
	}
	if sel != 1 {
		return res, errRevert{"revert: give change IDs, a run, or the change to restore to (exactly one of them)"}
	}
	if len(req.Hunks) > 0 && len(req.ChangeIDs) != 1 {
		return res, errRevert{"revert: hunks can be reverted for one change at a time"}
	}
	sessionID, err := k.revertSession(ctx, req)
	if err != nil {
		return res, err
	}
	// A revert and a run never change a session's files at once: the
	// revert is refused while a run is going, and no run starts until it
	// is recorded (its events then come after everything the run stored).
	release, err := k.eng.Hold(sessionID, "a revert is being made")
	if err != nil {
		return res, fmt.Errorf("revert: %w; revert once it is done (or cancel the run)", err)
	}
	defer release()
	changes, sessionID, err := k.revertSelection(ctx, req)
	if err != nil || len(changes) == 0 {
		return res, err
	}
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return res, err
	}
	// A background command's capture must not look between the revert's
	// changes on disk and their records (issue 22 item 2).
	unlock, err := k.eng.LockChanges(ctx, sessionID)
	if err != nil {
		return res, fmt.Errorf("revert: %w", err)
	}
	defer unlock()
	paths := make([]string, 0, len(changes))
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	if !req.DryRun {
		k.changing(ctx, sessionID, sess.Workdir, paths)
	}
	all, err := k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return res, err
	}
	rv := &files.Reverter{Blobs: k.store, Trash: trash.Default()}
	var done []tools.FileChange
	var conflicts []files.Conflict
	var runErr error
	if len(req.Hunks) > 0 {
		var accept []string
		for _, c := range all {
			if c.RevertOf == changes[0].ID && c.ExistsAfter {
				accept = append(accept, c.SHAAfter)
			}
		}
		revertHunks := rv.RevertHunks
		if req.DryRun {
			revertHunks = rv.PlanHunks
		}
		fc, cf, err := revertHunks(ctx, sess.Workdir, changes[0], req.Hunks, accept, req.Force)
		switch {
		case errors.Is(err, files.ErrBadHunk):
			return res, errRevert{"revert: " + err.Error()}
		case err != nil:
			runErr = err
		case cf != nil:
			conflicts = []files.Conflict{*cf}
		default:
			done = []tools.FileChange{*fc}
		}
	} else if req.DryRun {
		done, conflicts, runErr = rv.Plan(ctx, sess.Workdir, changes, req.Force)
	} else {
		done, conflicts, runErr = rv.Revert(ctx, sess.Workdir, changes, req.Force)
	}
	res.Conflicts = mapSlice(explain(conflicts, all), conflictOf)
	if req.DryRun {
		for _, fc := range done {
			rec := fc.FileChange
			rec.SessionID, rec.Tool = sessionID, "revert"
			res.Reverted = append(res.Reverted, rec)
		}
		return res, runErr
	}
	if len(done) > 0 {
		stored, err := k.keepReverts(ctx, sessionID, done)
		if err != nil {
			return res, errors.Join(runErr, err)
		}
		res.Reverted = stored
		// Foya now answers for these files: an editor's change of them is
		// to show as "changed outside Foya" even when no run started since
		// this kernel did (a watch otherwise starts with a run).
		k.keepWatching(sessionID)
	}
	return res, runErr
}

// revertSession returns the session of the changes a request selects.
func (k *Kernel) revertSession(ctx context.Context, req RevertRequest) (string, error) {
	switch {
	case req.RunID != "":
		run, err := k.store.Run(ctx, req.RunID)
		if err != nil {
			return "", fmt.Errorf("revert: run %s: %w", req.RunID, err)
		}
		return run.SessionID, nil
	case req.ToChangeID != "":
		req.ChangeIDs = []string{req.ToChangeID}
	}
	c, err := k.store.FileChange(ctx, req.ChangeIDs[0])
	if err != nil {
		return "", fmt.Errorf("revert: change %s: %w", req.ChangeIDs[0], err)
	}
	return c.SessionID, nil
}

// revertSelection returns the changes a request selects, newest first, and
// their session.
func (k *Kernel) revertSelection(ctx context.Context, req RevertRequest) ([]llm.FileChange, string, error) {
	switch {
	case req.RunID != "":
		run, err := k.store.Run(ctx, req.RunID)
		if err != nil {
			return nil, "", err
		}
		list, err := k.store.RunFileChanges(ctx, req.RunID)
		slices.Reverse(list)
		return list, run.SessionID, err
	case req.ToChangeID != "":
		c, err := k.store.FileChange(ctx, req.ToChangeID)
		if err != nil {
			return nil, "", err
		}
		list, err := k.store.FileChangesAfter(ctx, req.ToChangeID)
		return list, c.SessionID, err
	}
	var sessionID string
	for _, id := range req.ChangeIDs {
		c, err := k.store.FileChange(ctx, id)
		if err != nil {
			return nil, "", err
		}
		if sessionID != "" && c.SessionID != sessionID {
			return nil, "", errRevert{fmt.Sprintf("revert: changes %s and %s belong to different sessions; revert them one session at a time", req.ChangeIDs[0], id)}
		}
		sessionID = c.SessionID
	}
	all, err := k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return nil, "", err
	}
	var list []llm.FileChange
	for i := len(all) - 1; i >= 0; i-- {
		if slices.Contains(req.ChangeIDs, all[i].ID) {
			list = append(list, all[i])
		}
	}
	return list, sessionID, nil
}

// explain adds to conflicts what people most often need to know: that the
// change was already reverted.
func explain(conflicts []files.Conflict, all []llm.FileChange) []files.Conflict {
	for i, cf := range conflicts {
		for j := len(all) - 1; j >= 0; j-- {
			if all[j].Path != cf.Path {
				continue
			}
			if all[j].RevertOf == cf.ChangeID {
				conflicts[i].Reason = fmt.Sprintf("it was already reverted (by %s)", all[j].ID)
			}
			break
		}
	}
	return conflicts
}

// keepReverts stores revert changes with their contents and a
// file.reverted event each, in one transaction, and publishes the events,
// through the engine's ordering point like every event of a session.
// The session's records of those files are marked as changed, so the
// model reads them again before it writes them; the watcher compares such
// a file with what the revert left instead (revertedFiles), so it does not
// take the revert for an outside change and still sees an editor's change
// made after it.
func (k *Kernel) keepReverts(ctx context.Context, sessionID string, done []tools.FileChange) ([]llm.FileChange, error) {
	var c llm.Commit
	out := make([]llm.FileChange, 0, len(done))
	for _, fc := range done {
		rec := fc.FileChange
		rec.ID, rec.SessionID, rec.Tool = engine.NewID("chg"), sessionID, "revert"
		rec.CreatedAt = time.Now()
		c.AddChange(rec, fc.Before, fc.After)
		c.ReadMarks = append(c.ReadMarks, llm.ReadMark{SessionID: sessionID, Path: rec.Path})
		ev := event.FileReverted(event.FileRevertedData{ChangeID: rec.ID, RevertOf: rec.RevertOf, Path: rec.Path, Op: rec.Op})
		ev.SessionID = sessionID
		c.Events = append(c.Events, ev)
		out = append(out, rec)
	}
	if _, err := k.eng.Commit(ctx, sessionID, c); err != nil {
		return nil, fmt.Errorf("record the revert (the files were reverted): %w", err)
	}
	for _, rec := range out {
		k.reverted.left(ctx, k.store, rec)
	}
	return out, nil
}

// PollEvery is how often a session watcher that cannot watch the whole
// workspace checks the session's files instead.
const PollEvery = 2 * time.Second

// watchWorkspace starts a session's watcher; tests replace it to see what
// happens when none can be had.
var watchWorkspace = files.Watch

// WatchSession watches a session's working directory until stop is called
// or ctx ends. When a file the session read or changed is changed by
// something other than Foya, its stale-read record is marked (so write and
// edit ask for a new read even where only its size and time were known)
// and a file.changed_outside event is stored and published. When the
// watcher cannot cover the whole workspace, a file.watch_degraded event
// says why and the session's files are checked every PollEvery instead.
func (k *Kernel) WatchSession(ctx context.Context, sessionID string) (stop func(), err error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	check := func(path string) { k.checkOutside(ctx, sessionID, path) }
	w, err := watchWorkspace(sess.Workdir, files.WatchOptions{
		OnChange: func(path string) {
			if k.isFoyaFile(path) {
				return // the database's writes: neither a command's nor the user's
			}
			k.ws.Touch(sessionID, path) // the next shell command looks at it
			check(path)
		},
		OnDegraded: func(why string) {
			k.ws.Degrade(sessionID)
			ev := event.FileWatchDegraded(event.FileWatchDegradedData{Reason: why})
			ev.SessionID = sessionID
			// A notice no one can be told of when it cannot be stored:
			// the session's files are checked every PollEvery all the same.
			_ = k.recordEvents(ctx, ev)
		},
	})
	if err != nil {
		// No watcher at all (the system's inotify instances ran out, say):
		// the session's files are checked every PollEvery instead, and the
		// UI says why. The looks around shell commands walk the workspace.
		ev := event.FileWatchDegraded(event.FileWatchDegradedData{Reason: fmt.Sprintf(
			"cannot watch the workspace (%v): Foya checks the files this session read every %s instead", err, PollEvery)})
		ev.SessionID = sessionID
		_ = k.recordEvents(ctx, ev) // as OnDegraded's
		w = nil
	} else {
		k.ws.Attach(sessionID, w) // its events now narrow the looks before and after a shell command
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(PollEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if w != nil && w.Degraded() == "" {
					continue
				}
				reads, err := k.store.FileReads(ctx, sessionID)
				if err != nil {
					continue
				}
				for _, r := range reads {
					check(r.Path)
				}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			if w != nil {
				k.ws.Detach(sessionID, w)
			}
			cancel()
			if w != nil {
				w.Close()
			}
			wg.Wait()
		})
	}, nil
}

// checkOutside looks at the session's files at or below path and reports
// those that are no longer what the session saw. While a shell command of
// the session runs, it only notes path: the command's After checks it
// once the command's own changes are known (see capture.After).
func (k *Kernel) checkOutside(ctx context.Context, sessionID, path string) {
	if k.commands.hold(sessionID, path) {
		return
	}
	reads, err := k.store.FileReads(ctx, sessionID)
	if err != nil {
		return
	}
	for _, r := range reads {
		if r.Path != path && !strings.HasPrefix(r.Path, path+string(filepath.Separator)) {
			continue
		}
		// A record marked as changed is compared with what a revert left,
		// if a revert marked it; else it was reported already.
		seen, reverted := readOf(r), false
		if r.Outside {
			if seen, reverted = k.reverted.of(r); !reverted {
				continue
			}
		}
		changed, exists := files.Changed(seen)
		if !changed {
			continue
		}
		if reverted {
			if !k.reverted.take(r) {
				continue
			}
		} else if first, err := k.store.MarkFileReadOutside(ctx, sessionID, r.Path); err != nil || !first {
			continue
		}
		ev := event.FileChangedOutside(event.FileChangedOutsideData{Path: r.Path, Exists: exists})
		ev.SessionID = sessionID
		if err := k.recordEvents(ctx, ev); err != nil {
			// The store fails: the record stays marked, so the model
			// still reads the file again before it writes it; only the
			// notice is lost. The other paths wait for the next look.
			return
		}
	}
}

// recheck runs checkOutside on the paths a watcher saw change while shell
// commands ran (held); on all the session's records when there were more
// than runningCommands keeps.
func (k *Kernel) recheck(ctx context.Context, sessionID string, h held) {
	paths := h.paths
	if h.all {
		reads, err := k.store.FileReads(ctx, sessionID)
		if err != nil {
			return
		}
		paths = paths[:0]
		for _, r := range reads {
			paths = append(paths, r.Path)
		}
	}
	for _, p := range paths {
		k.checkOutside(ctx, sessionID, p)
	}
}

// settleDelay is how long after a run ends settleCommands waits: a
// background command that ended just before may still be capturing its
// changes (After waits up to two seconds for the watcher's barrier).
const settleDelay = 5 * time.Second

// settleCommands drops, settleDelay after a run of the session ended, the
// count of shell commands whose Before had no After (a background command
// refused after its Before), unless a run of the session is going then,
// and checks what the watcher held meanwhile.
func (k *Kernel) settleCommands(sessionID string) {
	time.AfterFunc(settleDelay, func() {
		k.mu.Lock()
		closed := k.watches == nil
		k.mu.Unlock()
		if closed || k.eng.Running(sessionID) {
			return
		}
		k.recheck(context.Background(), sessionID, k.commands.settle(sessionID, k.runningBackground(sessionID)))
	})
}

// runningCommands holds, by session, how many shell commands run and the
// paths the watcher saw change meanwhile, which checkOutside leaves for
// the command's After: what a running command changes is the command's,
// recorded as its File Changes, not a change outside Foya (issue 15 item
// 4). A background command counts from its Before until its changes are
// captured when it ends. Before sets the count to the session's running
// background commands plus the command starting (a session's foreground
// commands run one at a time), so a Before whose command never started
// (a background command refused) counts only until the next Before or
// a while after the end of its run (settleCommands). The zero value is ready to use.
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

// recordEvents stores events and publishes them, through the engine, so
// events of a session with a run going stay in seq order for clients. It
// returns the first failure to store; the events after it are not stored.
func (k *Kernel) recordEvents(ctx context.Context, evs ...llm.Event) error {
	for _, ev := range evs {
		if err := k.eng.Record(ctx, ev.SessionID, ev); err != nil {
			return fmt.Errorf("record %s: %w", ev.Type, err)
		}
	}
	return nil
}

// revertedFiles holds, by session and path, the state a revert (or a shell
// command, see capture.After) left a file in, for the watcher: after a
// revert the session's record of the file is marked as changed (the model
// has not seen what the revert wrote), so the
// record no longer says what Foya last wrote there. An entry goes with the
// record it was made for (its ReadAt): a new read or write by the model
// replaces the record, and the entry with it. It is reported once, like a
// record is marked once. Kept in memory: after a restart, a file reverted
// before it is watched as its record says. The zero value is ready to use.
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
func (rf *revertedFiles) left(ctx context.Context, st *store.Store, rec llm.FileChange) {
	r, err := st.FileRead(ctx, rec.SessionID, rec.Path)
	if err != nil || rec.IsDir {
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
func (rf *revertedFiles) of(r store.FileRead) (files.Read, bool) {
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
func (rf *revertedFiles) take(r store.FileRead) bool {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	key := [2]string{r.SessionID, r.Path}
	_, ok := rf.m[key]
	delete(rf.m, key)
	return ok
}
