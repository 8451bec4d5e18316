package kernel

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/settings"
	"foya/backend/store"
	"foya/backend/tools"
	"foya/backend/tools/shell"
	"foya/backend/workspace"
)

// WorkspaceDir is the folder, in the data folder, of the workspace
// indexes that let shell commands' changes be reverted (issue 15).
const WorkspaceDir = "workspace"

// newWorkspace makes the kernel's workspace indexes in dataDir. They never
// look at Foya's own files (see foyaFiles).
func (k *Kernel) newWorkspace(dataDir string) *workspace.Manager {
	dir := filepath.Join(dataDir, WorkspaceDir)
	for _, p := range append(k.foyaFiles(), dir) {
		k.skipped = append(k.skipped, p)
		if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && d != filepath.Dir(p) {
			k.skipped = append(k.skipped, filepath.Join(d, filepath.Base(p)))
		}
	}
	return workspace.New(workspace.Options{Dir: dir, Skip: k.skipped,
		Limits: func(ctx context.Context) workspace.Limits { return workspaceLimits(ctx, k.store) }})
}

// foyaFiles are the files Foya keeps beside its database, which may lie in
// a workspace (the home folder holds the default data folder): the
// database with its side files, the ownership locks and the provider keys.
// Sandboxed commands may not reach them (shellTools); the workspace
// indexes and the watcher never look at them. Foya's changes to them are
// not a command's nor the user's, and opening the database here would
// drop SQLite's locks on it (workspace.Options.Skip).
func (k *Kernel) foyaFiles() []string {
	return append(k.databaseFiles(), absPath(k.keys.file))
}

// isFoyaFile reports whether path is one of foyaFiles, the workspace
// indexes' folder, or below one of them.
func (k *Kernel) isFoyaFile(path string) bool {
	for _, p := range k.skipped {
		if path == p || strings.HasPrefix(path, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// workspaceLimits reads the index's limits from the settings.
func workspaceLimits(ctx context.Context, st *store.Store) workspace.Limits {
	l := workspace.Limits{MaxFile: workspace.DefaultMaxFile, MaxTotal: workspace.DefaultMaxTotal}
	for key, to := range map[string]*int64{SettingWorkspaceMaxFile: &l.MaxFile, SettingWorkspaceMaxTotal: &l.MaxTotal,
		SettingWorkspaceMaxKept: &l.MaxKept} {
		if v, ok, err := st.Setting(ctx, key); err == nil && ok {
			if n, err := settings.ParseBytes(v); err == nil {
				*to = n
			}
		}
	}
	return l
}

func usageOf(u workspace.Usage, l workspace.Limits) WorkspaceUsage {
	return WorkspaceUsage{Dir: u.Dir, Blobs: u.Blobs, BlobBytes: u.BlobBytes, Indexes: u.Indexes, IndexBytes: u.IndexBytes,
		MaxKeptBytes: l.KeptBound()}
}

// WorkspaceUsage returns the disk the workspace indexes take now, and the
// bound on the kept contents.
func (k *Kernel) WorkspaceUsage() WorkspaceUsage {
	return usageOf(k.ws.Usage(), workspaceLimits(context.Background(), k.store))
}

// WorkspacePruned says what a prune of the workspace blobs removed.
type WorkspacePruned struct {
	Blobs int   `json:"blobs"`
	Bytes int64 `json:"bytes"`
}

// PruneWorkspace removes the workspace blobs no index refers to, except
// those written within grace (another kernel sharing the data folder may
// be indexing them). DeleteSession prunes with a grace of ten minutes.
func (k *Kernel) PruneWorkspace(grace time.Duration) (WorkspacePruned, error) {
	p, err := k.ws.Prune(grace)
	return WorkspacePruned{Blobs: p.Blobs, Bytes: p.Bytes}, err
}

// capture is the shell's Capture over the kernel's workspace indexes.
type capture struct{ k *Kernel }

var _ shell.Capture = capture{}

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
// an outside one. Once it returns nil, the command
// counts as running (see runningCommands) until its After. The caller
// holds the session's change lock.
func (c capture) Before(ctx context.Context, sessionID, workdir string, live *shell.Live) (err error) {
	defer func() {
		if err == nil {
			c.k.commands.start(sessionID, c.k.runningBackground(sessionID))
		}
	}()
	all, err := c.k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return err
	}
	// What Foya's own tools changed since the index last looked: the
	// watcher's events for them may still be on their way. A margin covers
	// clocks that step.
	since := c.k.ws.LastLook(sessionID).Add(-2 * time.Second)
	var also []string
	for _, fc := range all {
		if fc.Tool != "bash" && fc.CreatedAt.After(since) {
			also = append(also, fc.Path)
		}
	}
	if live != nil {
		cp, err := c.k.ws.Settled(ctx, sessionID, workdir, also...)
		if err != nil {
			return err
		}
		if len(cp.Changes) > 0 {
			for i := range cp.Changes {
				cp.Changes[i].Unconfirmed = live.Others
			}
			c.k.commandChanged(ctx, sessionID, cp.Changes)
			// A Record that fails loses them, as one at the command's end
			// would; the index stays unsaved, so a crash before the next
			// look leaves them to recovery.
			if c.Record(context.WithoutCancel(ctx), sessionID, live.RunID, live.CallID, cp.Changes) != nil {
				return nil
			}
		}
		// Only now that the records are stored (see workspace.Manager.Save).
		c.k.ws.Save(sessionID)
		return nil
	}
	changes, err := c.k.ws.Before(ctx, sessionID, workdir, also...)
	if err != nil || len(changes) == 0 {
		return err
	}
	last := map[string]llm.FileChange{}
	for _, fc := range all {
		last[fc.Path] = fc
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
		if _, err := c.k.store.MarkFileReadOutside(ctx, sessionID, ch.Path); err != nil {
			return err
		}
		ev := event.FileChangedOutside(event.FileChangedOutsideData{Path: ch.Path, Exists: ch.After != nil})
		if err := c.k.eng.Record(ctx, sessionID, ev); err != nil {
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
func (c capture) After(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, string, error) {
	cp, err := c.k.ws.After(ctx, sessionID, workdir)
	if err == nil {
		c.k.commandChanged(ctx, sessionID, cp.Changes)
	}
	c.k.recheck(ctx, sessionID, c.k.commands.end(sessionID))
	return cp.Changes, cp.Note, err
}

// changing records, before Foya's own tools change paths (write, edit,
// delete, a revert), what a live background command of the session
// changed there and no look has found yet, against that command's call,
// as the look before a command does (Before). Without it the tool's
// record started from the command's change, and the command's capture at
// its end found the path as that record left it and recorded nothing: the
// path's records had a hole (the crash harness found it, issue 22 item 2).
// It looks at those paths only, and only while such a command lives. The
// caller holds the session's change lock. A look or a record that fails
// loses the command's change there, as its capture failing would.
func (k *Kernel) changing(ctx context.Context, sessionID, workdir string, paths []string) {
	if k.shell == nil || len(paths) == 0 {
		return
	}
	live := k.shell.Live(sessionID)
	if live == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	cp, err := k.ws.Look(ctx, sessionID, workdir, paths)
	if err != nil || len(cp.Changes) == 0 {
		return
	}
	for i := range cp.Changes {
		cp.Changes[i].Unconfirmed = live.Others
	}
	k.commandChanged(ctx, sessionID, cp.Changes)
	_ = capture{k}.Record(ctx, sessionID, live.RunID, live.CallID, cp.Changes)
}

// runningBackground counts the session's background commands still
// running.
func (k *Kernel) runningBackground(sessionID string) int {
	if k.shell == nil {
		return 0
	}
	n := 0
	for _, b := range k.shell.List(sessionID) {
		if b.Running {
			n++
		}
	}
	return n
}

// commandChanged marks the session's records of the files a shell command
// changed (renamed ones at their old path too), and notes what the command
// left there for the watcher.
func (k *Kernel) commandChanged(ctx context.Context, sessionID string, changes []tools.FileChange) {
	if len(changes) == 0 {
		return
	}
	reads, err := k.store.FileReads(ctx, sessionID)
	if err != nil {
		return // the guard still compares digests of whole reads
	}
	read := make(map[string]bool, len(reads))
	for _, r := range reads {
		read[r.Path] = true
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
			if _, err := k.store.MarkFileReadOutside(ctx, sessionID, rec.Path); err != nil {
				continue // the guard still compares digests of whole reads
			}
			k.reverted.left(ctx, k.store, rec)
		}
	}
}

// Record stores a background command's changes against the call that
// started it, with their contents and a file.captured event, through the
// engine's ordering point. The caller holds the session's change lock
// from the look that found them (issue 22 item 2). A change that leaves a
// path as the session's newest File Change of it says is not the
// command's: Foya's own tools
// (write, edit, delete, a revert) made it while the command ran, and the
// index, which looks only when a shell command runs, had not seen it yet
// (the crash harness found these blamed on background commands, issue 16
// item 1).
func (c capture) Record(ctx context.Context, sessionID, runID, callID string, changes []tools.FileChange) error {
	all, err := c.k.store.FileChanges(ctx, sessionID)
	if err != nil {
		return fmt.Errorf("record the background command's changes: %w", err)
	}
	changes = notRecorded(ctx, c.k.store, changes, all)
	if len(changes) == 0 {
		return nil
	}
	var cm llm.Commit
	recs := make([]event.FileChange, 0, len(changes))
	for _, fc := range changes {
		rec := fc.FileChange
		rec.ID, rec.SessionID, rec.RunID, rec.CallID, rec.Tool = engine.NewID("chg"), sessionID, runID, callID, "bash"
		rec.CreatedAt = time.Now()
		rec.Diff = c.k.mask(rec.Diff)
		if fc.Before != nil {
			cm.Blobs = append(cm.Blobs, fc.Before)
		}
		if fc.After != nil {
			cm.Blobs = append(cm.Blobs, fc.After)
		}
		cm.FileChanges = append(cm.FileChanges, rec)
		recs = append(recs, rec)
	}
	ev := event.FileCaptured(event.FileCapturedData{CallID: callID, FileChanges: recs})
	ev.RunID = runID
	cm.Events = []llm.Event{ev}
	if _, err := c.k.eng.Commit(ctx, sessionID, cm); err != nil {
		return fmt.Errorf("record the background command's changes: %w", err)
	}
	return nil
}

// notRecorded drops the changes that the newest of the recorded File
// Changes (all, oldest first) of their path explains, and makes the others
// start where that record left their path (tools.Rebase), with its kept
// content from the store.
func notRecorded(ctx context.Context, st *store.Store, changes []tools.FileChange, all []llm.FileChange) []tools.FileChange {
	last := map[string]llm.FileChange{}
	for _, fc := range all {
		last[fc.Path] = fc
	}
	out := changes[:0:0]
	for _, ch := range changes {
		fc, ok := last[ch.Path]
		if ok && tools.Explained(fc, ch.FileChange) {
			continue
		}
		if ok {
			var data []byte
			if fc.ExistsAfter && !fc.IsDir && fc.SHAAfter != "" {
				data, _ = st.Blob(ctx, fc.SHAAfter) // none kept: not restorable
			}
			tools.Rebase(&ch, fc, data)
		}
		out = append(out, ch)
	}
	return out
}

// Lock takes the session's change lock for a background command's capture
// (engine.LockChanges).
func (c capture) Lock(ctx context.Context, sessionID string) (unlock func(), err error) {
	return c.k.eng.LockChanges(ctx, sessionID)
}
