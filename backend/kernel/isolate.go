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

	"foya/backend/event"
	"foya/backend/fspath"
	"foya/backend/isolate"
	"foya/backend/llm"
	"foya/backend/sandbox"
	"foya/backend/settings"
)

// Isolated sessions (issue 29, docs/isolated-sessions.md): a session that
// works in a git worktree or a copy of its folder instead of the folder.

// CopiesDir returns the folder isolated sessions' copies are kept in for
// a data folder: beside it ("foya-sessions" beside "foya"), not in it,
// because sandboxed commands and the file tools may not see Foya's data
// folder, and a session must see its copy.
func CopiesDir(dataDir string) string { return filepath.Clean(dataDir) + "-sessions" }

// SetupTimeout bounds a setup command.
const SetupTimeout = 30 * time.Minute

// MaxSetupOutput is how much of a setup command's output its last event
// keeps; output events carry it all as it comes, up to MaxSetupEvents of
// them.
const (
	MaxSetupOutput = 64 << 10
	MaxSetupEvents = 2000
)

// setups are the setup commands running, by session: a run waits for
// its session's.
type setups struct {
	mu      sync.Mutex
	running map[string]chan struct{}
	closed  bool
	wg      sync.WaitGroup
	ctx     context.Context
	stop    context.CancelFunc
}

func newSetups() *setups {
	s := &setups{running: map[string]chan struct{}{}}
	s.ctx, s.stop = context.WithCancel(context.Background())
	return s
}

// close stops the running setups and waits for them.
func (s *setups) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.wg.Wait()
}

// wait waits until session id's setup (if one runs) has ended, or ctx
// ends.
func (s *setups) wait(ctx context.Context, id string) error {
	s.mu.Lock()
	ch := s.running[id]
	s.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// busy reports whether session id's setup runs.
func (s *setups) busy(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[id] != nil
}

// makeCopy makes session id's isolated copy of dir; the caller records it
// with the session, or removes it.
func (k *Kernel) makeCopy(ctx context.Context, id, dir string, ns NewSession) (isolate.Record, *llm.Isolation, error) {
	kind, err := isolate.ParseKind(ns.Isolation)
	if err != nil {
		return isolate.Record{}, nil, err
	}
	if kind == isolate.None {
		if ns.Branch != "" {
			return isolate.Record{}, nil, kindf(ErrInvalid, "a branch (%s) is for an isolated session in a worktree: choose isolation auto or worktree, or leave the branch out", ns.Branch)
		}
		return isolate.Record{}, nil, nil
	}
	if k.info.ReadOnly != "" {
		return isolate.Record{}, nil, kindf(ErrUnavailable, "the database is read-only (%s): no isolated copy is made", k.info.ReadOnly)
	}
	setup, err := k.setupCommand(ctx, dir)
	if err != nil {
		return isolate.Record{}, nil, err
	}
	rec, err := k.iso.Make(ctx, isolate.MakeOptions{SessionID: id, Folder: dir, Kind: kind, Branch: ns.Branch, Owner: k.owner.id,
		Skip: append(slices.Clone(k.skipped), k.dataFolders()...)})
	if err != nil {
		return rec, nil, err
	}
	return rec, &llm.Isolation{Kind: string(rec.Kind), Dir: rec.Dir, Folder: rec.Folder, Repo: rec.Repo, Branch: rec.Branch,
		Base: rec.Base, Uncommitted: rec.Uncommitted, Note: rec.Note, Setup: setup}, nil
}

// setupCommand returns the setup command of a folder ("" for none).
func (k *Kernel) setupCommand(ctx context.Context, dir string) (string, error) {
	v, _, err := k.store.Setting(ctx, settings.SetupPrefix+dir)
	return strings.TrimSpace(v), err
}

// startSetup runs a new copy's setup command in the background, in the
// sandbox of the copy with the network allowed, and records what it
// prints as isolation.setup events; the session's runs wait for it
// (WaitSetup).
func (k *Kernel) startSetup(id, workdir, source, command string) {
	s := k.setups
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	done := make(chan struct{})
	s.running[id] = done
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, id)
			s.mu.Unlock()
			close(done)
		}()
		k.runSetup(s.ctx, id, workdir, source, command)
	}()
}

func (k *Kernel) runSetup(ctx context.Context, id, workdir, source, command string) {
	record := func(d event.IsolationSetupData) {
		d.Command = command
		d.Output = k.mask(d.Output)
		if err := k.eng.Record(context.WithoutCancel(ctx), id, event.IsolationSetup(d)); err != nil {
			k.log.Warn("isolated session: setup event not stored", "session", id, "err", err)
		}
	}
	record(event.IsolationSetupData{State: event.SetupRunning})
	fail := func(why string) { record(event.IsolationSetupData{State: event.SetupFailed, Error: why}) }
	c := k.shell.Confine(workdir)
	cmd := sandbox.Command{Script: command, Dir: workdir, Policy: c.Policy, Timeout: SetupTimeout, TailBytes: MaxSetupOutput}
	// Installing dependencies needs the network: the user wrote the
	// command, and it still writes only the copy.
	cmd.Policy.Network = true
	env := k.commandEnv()
	if tmp, err := k.shell.TempDir(id); err == nil {
		cmd.Policy.Writable = append(cmd.Policy.Writable, tmp)
		env = append(env, "TMPDIR="+tmp)
	}
	// FOYA_SOURCE_DIR is the folder the copy was made from, readable in
	// the sandbox: a setup can copy what the copy lacks (an untracked
	// .env) from there.
	cmd.Env = append(env, "FOYA_SESSION_ID="+id, "FOYA_PROJECT_DIR="+workdir, "FOYA_SOURCE_DIR="+source)
	more := make(chan struct{}, 1)
	cmd.OnOutput = func([]byte) {
		select {
		case more <- struct{}{}:
		default:
		}
	}
	p, err := sandbox.Start(ctx, cmd)
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			fail("it must run in the sandbox, which is unavailable here: " + err.Error())
		} else {
			fail("it could not start: " + err.Error())
		}
		return
	}
	var next int64
	sent := 0
	flush := func() {
		data, n, dropped := p.Read(next)
		next = n
		if len(data) == 0 || sent >= MaxSetupEvents {
			return
		}
		out := string(data)
		if dropped > 0 {
			out = fmt.Sprintf("[%d bytes not shown]\n", dropped) + out
		}
		sent++
		record(event.IsolationSetupData{State: event.SetupOutput, Output: out})
	}
	for waiting := true; waiting; {
		select {
		case <-more:
			flush()
		case <-p.Done():
			waiting = false
		}
	}
	flush()
	for _, note := range c.Sweep("the setup command") {
		record(event.IsolationSetupData{State: event.SetupOutput, Output: "[Foya: " + note + "]\n"})
	}
	res, _ := p.Result()
	d := event.IsolationSetupData{State: event.SetupFailed, Output: string(res.Output), DurationMs: res.Duration.Milliseconds(), Sandbox: res.Sandbox}
	switch {
	case res.TimedOut:
		d.Error = fmt.Sprintf("it did not end within %s, so Foya stopped it", SetupTimeout)
	case res.Cancelled || ctx.Err() != nil:
		d.Error = "stopped: Foya closed"
	case res.Signal != "":
		d.Error = "it was killed by " + res.Signal
	default:
		code := res.ExitCode
		d.ExitCode = &code
		if code == 0 {
			d.State = event.SetupSucceeded
		} else {
			d.Error = fmt.Sprintf("it exited with status %d", code)
			if res.Denied {
				d.Error += " (the sandbox refused something it tried)"
			}
		}
	}
	record(d)
}

// WaitSetup waits until the setup command of session id's new copy (if
// one is running) has ended, or ctx ends: Run refuses a session whose
// setup runs. foya exec waits so; the UI follows the isolation.setup
// events.
func (k *Kernel) WaitSetup(ctx context.Context, id string) error {
	return k.setups.wait(ctx, id)
}

// SetupRunning reports whether the setup command of session id's copy is
// running.
func (k *Kernel) SetupRunning(id string) bool { return k.setups.busy(id) }

// isolated returns session id with its isolation, refusing a session that
// works in its folder, whose copy is gone, or that is busy.
func (k *Kernel) isolated(ctx context.Context, id, doing string) (llm.Session, func(), error) {
	sess, err := k.store.Session(ctx, id)
	if err != nil {
		return sess, nil, err
	}
	if sess.Isolation == nil {
		return sess, nil, kindf(ErrInvalid, "session %s works in its folder %s, not in an isolated copy: there is nothing to %s", id, sess.Workdir, doing)
	}
	if !sess.Isolation.DiscardedAt.IsZero() {
		return sess, nil, kindf(ErrConflict, "session %s's copy was discarded already: there is nothing to %s", id, doing)
	}
	if k.setups.busy(id) {
		return sess, nil, kindf(ErrBusy, "session %s is busy: its setup command is running; wait for it to end", id)
	}
	release, err := k.eng.Hold(id, "its copy is being "+doing+"d")
	if err != nil {
		return sess, nil, fmt.Errorf("%s: %w; wait for the run to end or cancel it", doing, err)
	}
	return sess, release, nil
}

func recordOf(sess llm.Session) isolate.Record {
	i := sess.Isolation
	return isolate.Record{SessionID: sess.ID, Kind: isolate.Kind(i.Kind), Folder: i.Folder, Dir: i.Dir, Workdir: sess.Workdir,
		Repo: i.Repo, Branch: i.Branch, Base: i.Base, Uncommitted: i.Uncommitted, Note: i.Note}
}

// ApplySession brings an isolated session's net change since its base
// into the folder it was made from, file by file with three sides (the
// base, the folder, the session): a file the folder left as it was at the
// base gets the session's version; a file the folder changed too is a
// conflict, returned with both diffs and left as the folder has it unless
// its path is in o.Take. The base then moves to what was applied. With
// o.Preview it only says what applying would do. A
// worktree's changes are committed on its branch first. A session that
// works in its folder, whose copy was discarded, or that is running is
// refused.
func (k *Kernel) ApplySession(ctx context.Context, o ApplyOptions) (ApplyResult, error) {
	sess, release, err := k.isolated(ctx, o.SessionID, "apply")
	if err != nil {
		return ApplyResult{}, err
	}
	defer release()
	rec := recordOf(sess)
	if _, err := os.Stat(rec.Folder); err != nil {
		return ApplyResult{}, kindf(ErrInvalid, "the folder %s to apply to is not there: %v", rec.Folder, err)
	}
	if _, err := os.Stat(filepath.Join(rec.Dir, "work")); err != nil {
		return ApplyResult{}, kindf(ErrConflict, "session %s's copy %s is not there: %v", sess.ID, rec.Dir, err)
	}
	// One apply at a time in this kernel: two sessions applied to one
	// folder at once would each compare before the other writes.
	k.applyMu.Lock()
	defer k.applyMu.Unlock()
	var res isolate.Result
	if o.Preview {
		res, err = k.iso.Preview(ctx, rec)
	} else {
		res, err = k.iso.Apply(ctx, &rec, o.Take)
	}
	out := ApplyResult{SessionID: sess.ID, Folder: rec.Folder, Applied: res.Applied, Same: res.Same,
		Conflicts: mapSlice(res.Conflicts, func(c isolate.Conflict) ApplyConflict {
			return ApplyConflict{Path: c.Path, Folder: c.Folder, Session: c.Session, FolderDiff: c.FolderDiff, SessionDiff: c.SessionDiff, Binary: c.Binary}
		})}
	if out.Applied == nil {
		out.Applied, out.Same, out.Conflicts = []string{}, []string{}, []ApplyConflict{}
	}
	if o.Preview || err != nil && len(out.Applied) == 0 {
		return out, err // nothing written, nothing to record
	}
	iso := *sess.Isolation
	iso.Base = rec.Base
	ev := event.IsolationApplied(event.IsolationAppliedData{Folder: rec.Folder, Applied: out.Applied,
		Conflicts: mapSlice(out.Conflicts, func(c ApplyConflict) string { return c.Path })})
	// Recorded even when a file failed part way: the files written are
	// in the folder, and the base the copy moved to is the record's.
	if rerr := k.eng.RecordCommit(ctx, sess.ID, llm.Commit{Isolation: &iso, IsolationOf: sess.ID, Events: []llm.Event{ev}}); rerr != nil {
		return out, errors.Join(err, rerr)
	}
	return out, err
}

// DiscardSession removes an isolated session's copy: a worktree with its
// branch (and the commits on it), or the copied folder. The session's
// history stays; it cannot run again. A session that works in its folder,
// whose copy was discarded already, or that is running is refused.
func (k *Kernel) DiscardSession(ctx context.Context, id string) error {
	sess, release, err := k.isolated(ctx, id, "discard")
	if err != nil {
		return err
	}
	defer release()
	k.capture.Stop(id)
	shellErr := k.shell.DeleteSession(id) // its background commands work in the copy
	rec := recordOf(sess)
	if err := k.iso.Remove(ctx, rec); err != nil {
		return errors.Join(shellErr, err)
	}
	iso := *sess.Isolation
	iso.DiscardedAt = time.Now()
	ev := event.IsolationDiscarded(event.IsolationDiscardedData{Kind: iso.Kind, Dir: iso.Dir, Branch: iso.Branch})
	return errors.Join(shellErr, k.eng.RecordCommit(ctx, id, llm.Commit{Isolation: &iso, IsolationOf: id, Events: []llm.Event{ev}}))
}

// SessionCopies lists the isolated copies on disk with their disk use,
// those whose session is not recorded (orphans) included.
func (k *Kernel) SessionCopies(ctx context.Context) ([]SessionCopy, error) {
	list, err := k.iso.List()
	if err != nil {
		return nil, err
	}
	out := make([]SessionCopy, 0, len(list))
	for _, c := range list {
		_, err := k.store.Session(ctx, c.SessionID)
		if err != nil && !IsNotFound(err) {
			return nil, err
		}
		out = append(out, SessionCopy{SessionID: c.SessionID, Kind: string(c.Kind), Dir: c.Dir, Folder: c.Folder, Branch: c.Branch,
			Bytes: c.Bytes, Orphan: err != nil})
	}
	return out, nil
}

// RemoveOrphanCopy removes a copy on disk whose session is not recorded
// (SessionCopy.Orphan), now rather than at the next start. A copy whose
// session is recorded is refused (discard it, or delete the session), as
// is one a running Foya is making.
func (k *Kernel) RemoveOrphanCopy(ctx context.Context, id string) error {
	if strings.ContainsAny(id, `/\.`) || strings.TrimSpace(id) == "" {
		return kindf(ErrInvalid, "%q is not a session ID", id)
	}
	if _, err := k.store.Session(ctx, id); err == nil {
		return kindf(ErrConflict, "session %s has that copy: discard the session's copy or delete the session", id)
	} else if !IsNotFound(err) {
		return err
	}
	dir := filepath.Join(k.iso.Dir, id)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return kindf(ErrNotFound, "no copy of session %s in %s", id, k.iso.Dir)
	}
	rec, err := k.iso.Load(id)
	if err != nil {
		if !strings.HasPrefix(id, "ses_") {
			return kindf(ErrInvalid, "%s in %s is not a session's copy (no %s): Foya leaves it alone", id, k.iso.Dir, isolate.RecordFile)
		}
		rec = isolate.Record{SessionID: id, Dir: dir} // no record: a crash before it was written
	}
	if rec.Owner != "" && !k.owner.goneOrMissing(rec.Owner) {
		return kindf(ErrBusy, "the copy of session %s is being made by a Foya that is running: it records the session in a moment", id)
	}
	return k.iso.Remove(ctx, rec)
}

// approvalsDir maps a folder in an isolated session's copy to the same
// folder of the folder the copy was made from, whose approvals of project
// files (rules, hooks, MCP servers) it shares (trust.Ledger.MapDir): an
// approval covers exact content, so a copy's unchanged file is approved
// where the folder's is, and a changed one is not. Other folders map to
// themselves. dir is resolved (trust.Dir); the session's record is read
// from the database, which no session can write.
func (k *Kernel) approvalsDir(dir string) string {
	root := k.iso.Dir
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, ok := fspath.Rel(root, dir)
	if !ok || rel == "." {
		return dir
	}
	parts := strings.SplitN(rel, string(filepath.Separator), 3)
	if len(parts) < 2 || parts[1] != "work" {
		return dir
	}
	sess, err := k.store.Session(context.Background(), parts[0])
	if err != nil || sess.Isolation == nil || sess.Isolation.Folder == "" {
		return dir
	}
	out := sess.Isolation.Folder
	if len(parts) == 3 {
		out = filepath.Join(out, parts[2])
	}
	if real, err := filepath.EvalSymlinks(out); err == nil {
		return real
	}
	return out
}

// removeCopy removes a deleted session's copy, if it has one still.
func (k *Kernel) removeCopy(ctx context.Context, sess llm.Session) error {
	if sess.Isolation == nil || !sess.Isolation.DiscardedAt.IsZero() {
		return nil
	}
	return k.iso.Remove(ctx, recordOf(sess))
}

// sweepCopies removes the copies on disk whose session is not recorded
// (a crash between making the copy and recording the session, or a
// deletion whose removal failed) and prunes their repositories' worktree
// lists; a copy that a running kernel is making is left to it.
func (k *Kernel) sweepCopies(ctx context.Context) ([]string, error) {
	return k.iso.Sweep(ctx, func(id string) (bool, error) {
		_, err := k.store.Session(ctx, id)
		if IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}, k.owner.goneOrMissing)
}
