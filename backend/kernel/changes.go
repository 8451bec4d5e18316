package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	withRevertState(list)
	return list, nil
}

// Change returns one file change, with what of it is undone now.
func (k *Kernel) Change(ctx context.Context, id string) (Change, error) {
	c, err := k.store.FileChange(ctx, id)
	if err != nil {
		return c, err
	}
	all, err := k.store.FileChanges(ctx, c.SessionID)
	if err != nil {
		return c, err
	}
	return stated(c, all), nil
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
	// changes on disk and their records.
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
		if err := k.capture.Changing(ctx, sessionID, sess.Workdir, paths); err != nil {
			return res, fmt.Errorf("revert: nothing was reverted: %w", err)
		}
	}
	all, err := k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return res, err
	}
	rv := &files.Reverter{Blobs: k.store, Trash: trash.Default()}
	var done []tools.FileChange
	var conflicts []files.Conflict
	var runErr error
	hunks := req.Hunks
	if len(req.ChangeIDs) == 1 && len(hunks) == 0 && !req.Force {
		// Forced, a whole revert overwrites what is there with the
		// change's before content, whatever its hunks' state.
		hunks = leftHunks(changes[0], all)
	} else if len(hunks) > 0 {
		st := stated(changes[0], all)
		for _, n := range hunks {
			if slices.Contains(st.RevertedHunks, n) {
				return res, errRevert{fmt.Sprintf("revert: hunk %d of this change is reverted already; undo that revert to bring it back", n)}
			}
		}
	}
	if len(hunks) > 0 {
		// The file may hold what any step of this change's reverts left:
		// its hunks are found where they are now.
		accept := lineage(root(changes[0], all), all)
		revertHunks := rv.RevertHunks
		if req.DryRun {
			revertHunks = rv.PlanHunks
		}
		fc, cf, err := revertHunks(ctx, sess.Workdir, changes[0], hunks, accept, req.Force)
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
	} else if changes = asNow(changes, all); len(changes) == 0 {
		return res, errRevert{"revert: every change selected is reverted already; undo a revert to bring its change back"}
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
		k.capture.Keep(sessionID, sess.Workdir)
	}
	return res, runErr
}

// leftHunks returns the hunks a whole revert of c is to revert one by one,
// or nil when it restores c's before content: a change some of whose hunks
// are reverted has the rest reverted ("revert what is left"), and the undo
// of a revert of some hunks puts those hunks back wherever the change's
// other hunks stand now.
func leftHunks(c llm.FileChange, all []llm.FileChange) []int {
	st := stated(c, all)
	if st.Hunks == 0 || st.Reverted {
		return nil
	}
	var out []int
	for n := 1; n <= st.Hunks; n++ {
		if !slices.Contains(st.RevertedHunks, n) {
			out = append(out, n)
		}
	}
	switch {
	case len(st.RevertedHunks) > 0:
		return out
	case c.RevertOf != "" && len(c.OfHunks) > 0:
		return out
	}
	return nil
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
// a file with what the revert left instead (capture.Capture.Reverted), so it does not
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
		k.capture.Reverted(ctx, rec)
	}
	return out, nil
}
