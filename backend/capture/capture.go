package capture

import (
	"context"
	"fmt"
	"sync"
	"time"

	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools"
	"foya/backend/tools/files"
	"foya/backend/tools/shell"
)

// Capture records what shell commands change in a session's workspace,
// and watches the workspace for changes made outside Foya. It is the
// shell's Capture (with its Locker and its recovery), the shell's Jobs
// (Jobs) and the engine's Changing hook.
type Capture struct {
	d Deps

	reverted revertedFiles   // what reverts and commands left files in, for the watcher
	commands runningCommands // shell commands running, for the watcher

	mu      sync.Mutex
	watches map[string]func() // by session; nil once closed
}

// New returns a Capture over d. Its watches end with Close.
func New(d Deps) *Capture {
	if d.Watch == nil {
		d.Watch = files.Watch
	}
	if d.Mask == nil {
		d.Mask = func(s string) string { return s }
	}
	return &Capture{d: d, watches: map[string]func(){}}
}

var (
	_ shell.Capture = (*Capture)(nil)
	_ shell.Locker  = (*Capture)(nil)
)

// maxOutsideEvents bounds the file.changed_outside events one look before
// a command records; the index is up to date whatever their number.
const maxOutsideEvents = 200

// Before brings the session's index up to date. What changed since it
// last looked and is not what Foya's own tools left there (write, edit,
// delete, a revert) was changed outside Foya: the stale-read record is
// marked and a file.changed_outside event says so, and the change is not
// blamed on the command about to run. With a live background command
// (live not nil), it is taken for that command's doing instead and
// recorded against its call (see Record), from this one look: a second
// look could find a change the command made in between and take it for
// an outside one. Once it returns nil, the command counts as running (see
// runningCommands) until its After. The caller holds the session's change
// lock.
func (c *Capture) Before(ctx context.Context, sessionID, workdir string, live *shell.Live) (err error) {
	defer func() {
		if err == nil {
			c.commands.start(sessionID, c.runningBackground(sessionID))
		}
	}()
	// What Foya's own tools changed since the index last looked: the
	// watcher's events for them may still be on their way. A margin covers
	// clocks that step.
	since := c.d.Workspace.LastLook(sessionID).Add(-2 * time.Second)
	recent, err := c.changesSince(ctx, sessionID, since)
	if err != nil {
		return err
	}
	var also []string
	for _, fc := range recent {
		if fc.Tool != "bash" && fc.CreatedAt.After(since) {
			also = append(also, fc.Path)
		}
	}
	if live != nil {
		cp, err := c.d.Workspace.Settled(ctx, sessionID, workdir, also...)
		if err != nil {
			return err
		}
		if len(cp.Changes) > 0 {
			for i := range cp.Changes {
				cp.Changes[i].Unconfirmed = live.Others
			}
			c.commandChanged(ctx, sessionID, cp.Changes)
			// A Record that fails stops the command before it runs: the
			// store cannot keep what it would change either. The index
			// stays unsaved, so recovery after a crash still finds them.
			if err := c.Record(context.WithoutCancel(ctx), sessionID, live.RunID, live.CallID, cp.Changes); err != nil {
				return err
			}
		}
		// Only now that the records are stored: the saved index never
		// runs ahead of them (see workspace.Manager.Save).
		c.d.Workspace.Save(sessionID)
		return nil
	}
	changes, err := c.d.Workspace.Before(ctx, sessionID, workdir, also...)
	if err != nil || len(changes) == 0 {
		return err
	}
	paths := make([]string, 0, len(changes))
	for _, ch := range changes {
		paths = append(paths, ch.Path)
	}
	last, err := c.lastChanges(ctx, sessionID, paths)
	if err != nil {
		return err
	}
	n := 0
	for _, ch := range changes {
		if ch.After != nil && ch.After.IsDir() || ch.Before != nil && ch.Before.IsDir() {
			continue
		}
		if fc, ok := last[ch.Path]; ok && fc.ExistsAfter == (ch.After != nil) && (ch.After == nil || fc.SHAAfter == ch.After.SHA) {
			continue // what Foya's own last change left there
		}
		if n >= maxOutsideEvents {
			break
		}
		n++
		// The mark and its event in one commit: both or neither.
		ev := event.FileChangedOutside(event.FileChangedOutsideData{Path: ch.Path, Exists: ch.After != nil})
		if err := c.d.Timeline.RecordCommit(ctx, sessionID, llm.Commit{
			ReadMarks: []llm.ReadMark{{SessionID: sessionID, Path: ch.Path}},
			Events:    []llm.Event{ev},
		}); err != nil {
			return err
		}
	}
	return nil
}

// After returns what the command changed. The session's records of the
// files it changed are marked as changed without a file.changed_outside
// event (the command, not the user, changed them): the model reads them
// again before it writes them, and the watcher compares them with what
// the command left (revertedFiles), so an editor's change made after it
// is still reported. Then the paths the watcher saw change while the
// command ran are checked as outside changes, now that the command's own
// are known.
func (c *Capture) After(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, string, error) {
	cp, err := c.d.Workspace.After(ctx, sessionID, workdir)
	if err == nil {
		c.commandChanged(ctx, sessionID, cp.Changes)
	}
	c.recheck(ctx, sessionID, c.commands.end(sessionID))
	return cp.Changes, cp.Note, err
}

// Changing records, before Foya's own tools change paths (write, edit,
// delete, a revert), what a live background command of the session
// changed there and no look has found yet, against that command's call,
// as the look before a command does (Before). Without it the tool's
// record would start from the command's change, and the command's
// capture at its end would find the path as that record left it and
// record nothing: the path's records would have a hole. It looks at those
// paths only, and only while such a command lives. The caller holds the
// session's change lock (engine.Config.Changing). A look that fails loses
// the command's change there, as its capture failing would; a record that
// fails is returned, and the tool changes nothing: the store could not
// keep its record either.
func (c *Capture) Changing(ctx context.Context, sessionID, workdir string, paths []string) error {
	if c.d.Commands == nil || len(paths) == 0 {
		return nil
	}
	live := c.d.Commands.Live(sessionID)
	if live == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	cp, err := c.d.Workspace.Look(ctx, sessionID, workdir, paths)
	if err != nil || len(cp.Changes) == 0 {
		return nil
	}
	for i := range cp.Changes {
		cp.Changes[i].Unconfirmed = live.Others
	}
	c.commandChanged(ctx, sessionID, cp.Changes)
	return c.Record(ctx, sessionID, live.RunID, live.CallID, cp.Changes)
}

// runningBackground counts the session's background commands still
// running.
func (c *Capture) runningBackground(sessionID string) int {
	if c.d.Commands == nil {
		return 0
	}
	n := 0
	for _, b := range c.d.Commands.List(sessionID) {
		if b.Running {
			n++
		}
	}
	return n
}

// commandChanged marks the session's records of the files a shell command
// changed (renamed ones at their old path too), and notes what the command
// left there for the watcher.
func (c *Capture) commandChanged(ctx context.Context, sessionID string, changes []tools.FileChange) {
	if len(changes) == 0 {
		return
	}
	read, err := c.readPaths(ctx, sessionID, changes)
	if err != nil {
		return // the guard still compares digests of whole reads
	}
	for _, fc := range changes {
		if fc.IsDir {
			continue
		}
		left := []llm.FileChange{{SessionID: sessionID, Path: fc.Path, ExistsAfter: fc.ExistsAfter, SHAAfter: fc.SHAAfter}}
		if fc.RenamedFrom != "" {
			left = append(left, llm.FileChange{SessionID: sessionID, Path: fc.RenamedFrom})
		}
		for _, rec := range left {
			if !read[rec.Path] {
				continue // not read nor written by the model: the watcher ignores it
			}
			if _, err := c.d.Reads.MarkFileReadOutside(ctx, sessionID, rec.Path); err != nil {
				continue // the guard still compares digests of whole reads
			}
			c.reverted.left(ctx, c.d.Reads, rec)
		}
	}
}

// maxReadLookups is how many changed paths commandChanged asks the
// stale-read records about one by one; past it, it reads them all once.
const maxReadLookups = 32

// readPaths returns which of the changed paths (renamed ones at their old
// path too) the session read or wrote: a command that changed a few files
// asks for those, so the look costs what the command changed, not what
// the session read.
func (c *Capture) readPaths(ctx context.Context, sessionID string, changes []tools.FileChange) (map[string]bool, error) {
	var paths []string
	for _, fc := range changes {
		if fc.IsDir {
			continue
		}
		paths = append(paths, fc.Path)
		if fc.RenamedFrom != "" {
			paths = append(paths, fc.RenamedFrom)
		}
	}
	read := make(map[string]bool, len(paths))
	if len(paths) > maxReadLookups {
		reads, err := c.d.Reads.FileReads(ctx, sessionID)
		if err != nil {
			return nil, err
		}
		for _, r := range reads {
			read[r.Path] = true
		}
		return read, nil
	}
	for _, p := range paths {
		_, ok, err := c.d.Reads.GetRead(ctx, sessionID, p)
		if err != nil {
			return nil, err
		}
		read[p] = ok
	}
	return read, nil
}

// Reverted notes, for the watcher, what a revert change left at its path,
// after the session's record of the path was marked as changed: the
// watcher compares the file with what the revert left instead, so it does
// not take the revert for an outside change and still sees an editor's
// change made after it.
func (c *Capture) Reverted(ctx context.Context, rec llm.FileChange) {
	c.reverted.left(ctx, c.d.Reads, rec)
}

// Record stores a background command's changes against the call that
// started it, with their contents and a file.captured event, through the
// engine's ordering point. The caller holds the session's change lock
// from the look that found them, so no tool changes a path between the
// look and the records. A change that leaves a path as the session's
// newest File Change of it says is not the command's: Foya's own tools
// (write, edit, delete, a revert) made it while the command ran, and the
// index, which looks only when a shell command runs, had not seen it yet;
// it is not blamed on the command.
func (c *Capture) Record(ctx context.Context, sessionID, runID, callID string, changes []tools.FileChange) error {
	paths := make([]string, 0, len(changes))
	for _, ch := range changes {
		paths = append(paths, ch.Path)
	}
	last, err := c.lastChanges(ctx, sessionID, paths)
	if err != nil {
		return fmt.Errorf("record the background command's changes: %w", err)
	}
	changes = notRecorded(ctx, c.d.Records, changes, last)
	if len(changes) == 0 {
		return nil
	}
	var cm llm.Commit
	recs := make([]event.FileChange, 0, len(changes))
	for _, fc := range changes {
		rec := fc.FileChange
		rec.ID, rec.SessionID, rec.RunID, rec.CallID, rec.Tool = c.d.NewID("chg"), sessionID, runID, callID, "bash"
		rec.CreatedAt = time.Now()
		rec.Diff = c.d.Mask(rec.Diff)
		cm.AddChange(rec, fc.Before, fc.After)
		recs = append(recs, rec)
	}
	ev := event.FileCaptured(event.FileCapturedData{CallID: callID, FileChanges: recs})
	ev.RunID = runID
	cm.Events = []llm.Event{ev}
	if _, err := c.d.Timeline.Commit(ctx, sessionID, cm); err != nil {
		return fmt.Errorf("record the background command's changes: %w", err)
	}
	return nil
}

// changesSince returns the session's File Changes stored at or after
// since that no shell command made (with a Records that cannot ask so,
// every one: the caller picks).
func (c *Capture) changesSince(ctx context.Context, sessionID string, since time.Time) ([]llm.FileChange, error) {
	if r, ok := c.d.Records.(RecordsByPath); ok {
		return r.OwnChangesSince(ctx, sessionID, since)
	}
	return c.d.Records.FileChanges(ctx, sessionID)
}

// lastChanges returns the session's newest File Change of each of paths
// that has one: a look asks for the paths it found changed, never for the
// session's whole history, when the Records can (RecordsByPath).
func (c *Capture) lastChanges(ctx context.Context, sessionID string, paths []string) (map[string]llm.FileChange, error) {
	if r, ok := c.d.Records.(RecordsByPath); ok {
		return r.LastFileChanges(ctx, sessionID, paths)
	}
	all, err := c.d.Records.FileChanges(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	last := map[string]llm.FileChange{}
	for _, fc := range all {
		last[fc.Path] = fc
	}
	return last, nil
}

// notRecorded drops the changes that the newest recorded File Change of
// their path (last, by path) explains, and makes the others start where
// that record left their path (tools.Rebase), with its kept content.
func notRecorded(ctx context.Context, rs Records, changes []tools.FileChange, last map[string]llm.FileChange) []tools.FileChange {
	out := changes[:0:0]
	for _, ch := range changes {
		fc, ok := last[ch.Path]
		if ok && tools.Explained(fc, ch.FileChange) {
			continue
		}
		if ok {
			var data []byte
			if fc.ExistsAfter && !fc.IsDir && fc.SHAAfter != "" {
				data, _ = rs.Blob(ctx, fc.SHAAfter) // none kept: not restorable
			}
			tools.Rebase(&ch, fc, data)
		}
		out = append(out, ch)
	}
	return out
}

// Lock takes the session's change lock for a background command's capture
// (engine.LockChanges).
func (c *Capture) Lock(ctx context.Context, sessionID string) (unlock func(), err error) {
	return c.d.Timeline.LockChanges(ctx, sessionID)
}

// Recover returns what differs between the session's saved workspace
// index and the disk, for the recovery of a shell command that was
// running when Foya died (see the bash tool's Recover).
func (c *Capture) Recover(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, error) {
	cp, err := c.d.Workspace.Recover(ctx, sessionID, workdir)
	return cp.Changes, err
}
