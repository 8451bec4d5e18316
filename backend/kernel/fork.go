package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"foya/backend/approval"
	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/fspath"
	"foya/backend/isolate"
	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/tools/files"
)

// ForkSession starts a new session from the history of sessionID before
// its prompt atPrompt (1-based, counting the user's prompts, that is the
// session's top-level runs; sub-agents' runs are not prompts). As Codex's
// backtrack and Claude Code's rewind do, the fork holds everything the
// session stored before that prompt was sent, and the prompt's text comes
// back as the fork's Draft, to send again as it is or changed. atPrompt 0
// forks the whole session (which must have no run going: ErrBusy) with no
// draft. The fork has the same approval mode, provider, model and tools;
// its title is the parent's with " (fork)"; it records its parent and
// atPrompt (Session.ForkedFrom, ForkedAt). The parent is not changed. A
// compaction recorded before the fork point stays in force in the fork,
// for the same messages; one made after it is not in the fork. See
// store.Fork for what is copied.
//
// A fork of a session that works in its folder works in the same folder.
// A fork of an isolated session gets an isolated copy of its own (see
// ForkSessionWith).
func (k *Kernel) ForkSession(ctx context.Context, sessionID string, atPrompt int) (Forked, error) {
	return k.ForkSessionWith(ctx, ForkOptions{SessionID: sessionID, AtPrompt: atPrompt})
}

// ForkSessionWith is ForkSession with options. A fork of an isolated
// session gets its own copy of the same kind (isolate.Isolator.Fork: a
// worktree on a branch of its own at the session's base, or a copy), made
// from the session's copy as it is now and then taken back to how its
// files were before prompt o.AtPrompt, from the session's recorded File
// Changes (RestoreForkFiles). Before anything is made, the files that
// cannot be taken back are found (CheckForkFiles): the fork is then
// refused (ErrConflict) naming them, unless o.FilesNow asks for the files
// as they are now. The fork's isolation is recorded with it, in one
// transaction; a crash before that leaves a copy with no session, which
// the next start removes. No setup command runs in the fork's copy: it
// has the session's files, its dependencies included. An isolated session
// is held while it is forked (ErrBusy while it has a run going or its
// setup runs); one whose copy was discarded is refused.
func (k *Kernel) ForkSessionWith(ctx context.Context, o ForkOptions) (Forked, error) {
	sessionID, atPrompt := o.SessionID, o.AtPrompt
	parent, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return Forked{}, err
	}
	before, draft, err := k.forkPoint(ctx, sessionID, atPrompt)
	if err != nil {
		return Forked{}, err
	}
	f := store.Fork{From: sessionID, Before: before, NewID: engine.NewID}
	f.Known = func(last int64) {
		// The copied events are the parent's history: no subscriber is
		// to take them for news (a session list would count their
		// changes twice), here or when the follower sees the fork stored.
		k.eng.KnowStored(map[string]int64{f.To.ID: last})
	}
	switch {
	case parent.Isolation != nil:
		// Its files are copied: no run may change them meanwhile.
		release, err := k.eng.Hold(sessionID, "it is being forked")
		if err != nil {
			return Forked{}, fmt.Errorf("fork session %s: %w; its copy's files are changing: fork it once its run has ended", sessionID, err)
		}
		defer release()
	case before == "":
		// The whole history: no run may add to it while it is copied.
		release, err := k.eng.Hold(sessionID, "it is being forked")
		if err != nil {
			return Forked{}, fmt.Errorf("fork session %s: %w; fork it from a prompt, or once its run has ended", sessionID, err)
		}
		defer release()
	}
	f.To = llm.Session{ID: engine.NewID("ses"), Title: forkTitle(parent.Title), TitleByUser: parent.TitleByUser,
		ProjectID: parent.ProjectID, Workdir: parent.Workdir, ApprovalMode: parent.ApprovalMode,
		Provider: parent.Provider, Model: parent.Model, Tools: parent.Tools, ForkedAt: atPrompt}
	if f.Then, err = k.forkMode(ctx, sessionID, before, parent.ApprovalMode); err != nil {
		return Forked{}, err
	}
	var rec isolate.Record
	if parent.Isolation != nil {
		if rec, err = k.forkCopy(ctx, parent, f.To.ID, atPrompt, o.FilesNow); err != nil {
			return Forked{}, err
		}
		f.To.Workdir = rec.Workdir
		f.Isolation = &llm.Isolation{Kind: string(rec.Kind), Dir: rec.Dir, Folder: rec.Folder, Repo: rec.Repo, Branch: rec.Branch,
			Base: rec.Base, Uncommitted: rec.Uncommitted, Note: rec.Note}
	}
	sess, err := k.store.ForkSession(ctx, f)
	if err != nil && f.Isolation != nil {
		err = errors.Join(err, k.iso.Remove(context.WithoutCancel(ctx), rec))
	}
	if errors.Is(err, store.ErrRunning) {
		return Forked{}, withKind(fmt.Errorf("%w; fork it from a prompt, or once its run has ended", err), ErrBusy)
	}
	if err != nil {
		return Forked{}, err
	}
	k.eng.CatchUp(ctx, sess.ID) // what the fork recorded of itself (f.Then)
	return Forked{Session: sessionOf(sess), Draft: draft}, nil
}

// forkCopy makes the isolated copy of a fork (id) of the isolated session
// parent, with the files as they were before its prompt atPrompt, or as
// they are now (filesNow). Files that cannot be taken back are said
// before anything is made.
func (k *Kernel) forkCopy(ctx context.Context, parent llm.Session, id string, atPrompt int, filesNow bool) (isolate.Record, error) {
	iso := parent.Isolation
	switch {
	case !iso.DiscardedAt.IsZero():
		return isolate.Record{}, kindf(ErrConflict, "session %s's copy was discarded: a fork of it would have no files to work in; start a new session in %s instead",
			parent.ID, iso.Folder)
	case k.setups.busy(parent.ID):
		return isolate.Record{}, kindf(ErrBusy, "session %s is busy: its setup command is running in its copy; fork it once the setup has ended", parent.ID)
	case k.info.ReadOnly != "":
		return isolate.Record{}, kindf(ErrUnavailable, "the database is read-only (%s): no fork is made", k.info.ReadOnly)
	}
	if _, err := os.Stat(parent.Workdir); err != nil {
		return isolate.Record{}, kindf(ErrConflict, "session %s's copy %s is not there (%v): there are no files to fork; discard the session's copy to clear its record",
			parent.ID, parent.Workdir, err)
	}
	if !filesNow {
		bad, err := k.CheckForkFiles(ctx, parent.ID, atPrompt, parent.Workdir)
		if err != nil {
			return isolate.Record{}, err
		}
		if len(bad) > 0 {
			return isolate.Record{}, unrestorableError(parent, atPrompt, bad)
		}
	}
	rec, err := k.iso.Fork(ctx, isolate.ForkOptions{SessionID: id, From: recordOf(parent), Owner: k.owner.id})
	if err != nil {
		return rec, fmt.Errorf("fork session %s: %w", parent.ID, err)
	}
	if !filesNow {
		bad, err := k.RestoreForkFiles(ctx, parent.ID, atPrompt, rec.Workdir)
		if err == nil && len(bad) > 0 { // changed between the check and the copy
			err = unrestorableError(parent, atPrompt, bad)
		}
		if err != nil {
			return isolate.Record{}, errors.Join(err, k.iso.Remove(context.WithoutCancel(ctx), rec))
		}
	}
	return rec, nil
}

// maxNamed bounds the files a refused fork names.
const maxNamed = 10

// unrestorableError refuses a fork of parent at prompt atPrompt whose
// files bad cannot be as they were then, naming them (relative to the
// session's folder) and why.
func unrestorableError(parent llm.Session, atPrompt int, bad []Unrestorable) error {
	var b strings.Builder
	for i, u := range bad {
		if i == maxNamed {
			fmt.Fprintf(&b, "; and %d more", len(bad)-maxNamed)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		p := u.Path
		if rel, ok := fspath.Rel(parent.Workdir, p); ok && rel != "." {
			p = filepath.ToSlash(rel)
		}
		fmt.Fprintf(&b, "%s (%s)", p, u.Reason)
	}
	return kindf(ErrConflict, "fork session %s at prompt %d: %d file%s of its copy cannot be as %s at that prompt, so no fork was made: %s. Fork with the files as they are now (foya fork --files-now), or from a later prompt",
		parent.ID, atPrompt, len(bad), plural(len(bad)), map[bool]string{true: "it was", false: "they were"}[len(bad) == 1], b.String())
}

// forkMode returns the session.mode event a fork records when the mode
// it gets (its parent's now) is not the one its copied history ends in:
// a switch made after the fork point, or Full Access, which every
// session that runs with it has on record from its start (as
// CreateSession records it).
func (k *Kernel) forkMode(ctx context.Context, sessionID, before, mode string) ([]llm.Event, error) {
	cut := int64(math.MaxInt64)
	if before != "" {
		starts, err := k.store.EventsOfType(ctx, sessionID, event.TypeRunStart)
		if err != nil {
			return nil, err
		}
		for _, ev := range starts {
			if ev.RunID == before {
				cut = ev.Seq
				break
			}
		}
	}
	modes, err := k.store.EventsOfType(ctx, sessionID, event.TypeSessionMode)
	if err != nil {
		return nil, err
	}
	last := ""
	for _, ev := range modes {
		var d event.SessionModeData
		if ev.Seq < cut && json.Unmarshal(ev.Data, &d) == nil {
			last = d.To
		}
	}
	if last == mode || (last == "" && mode != string(approval.FullAccess)) {
		return nil, nil
	}
	return []llm.Event{event.SessionMode(event.SessionModeData{From: last, To: mode})}, nil
}

// forkPoint returns the run of a session's prompt atPrompt (1-based) and
// its text; "" for 0 (the whole session).
func (k *Kernel) forkPoint(ctx context.Context, sessionID string, atPrompt int) (run, prompt string, err error) {
	if atPrompt < 0 {
		return "", "", kindf(ErrInvalid, "fork at prompt %d: give a prompt number from 1, or 0 for the whole session", atPrompt)
	}
	runs, err := k.store.Runs(ctx, sessionID)
	if err != nil {
		return "", "", err
	}
	var prompts []llm.Run
	for _, r := range runs {
		if r.ParentCallID == "" {
			prompts = append(prompts, r)
		}
	}
	switch {
	case atPrompt == 0:
		return "", "", nil
	case len(prompts) == 0:
		return "", "", kindf(ErrInvalid, "fork at prompt %d: session %s has no prompts yet; fork it whole (0) or send a prompt first", atPrompt, sessionID)
	case atPrompt > len(prompts):
		return "", "", kindf(ErrInvalid, "fork at prompt %d: session %s has %d prompt%s; give 1 to %d, or 0 for the whole session",
			atPrompt, sessionID, len(prompts), plural(len(prompts)), len(prompts))
	}
	p := prompts[atPrompt-1]
	return p.ID, p.Prompt, nil
}

// CheckForkFiles says, before forking, which files a fork of sessionID
// before its prompt atPrompt could not have as they were then, for a fork
// that gets a copy of the files (an isolated session's): dir holds that
// copy as the session's files are now. Nothing is changed. Every file is
// restorable for atPrompt 0 (the files as they are now). See
// files.CheckRestore for what makes a file unrestorable.
func (k *Kernel) CheckForkFiles(ctx context.Context, sessionID string, atPrompt int, dir string) ([]Unrestorable, error) {
	return k.forkFiles(ctx, sessionID, atPrompt, dir, files.CheckRestore)
}

// RestoreForkFiles brings the files of dir, a copy of sessionID's files
// as they are now, back to how they were before its prompt atPrompt, from
// the session's File Changes after that point (files.RestoreFiles). When
// any file cannot be restored it changes nothing and returns them.
func (k *Kernel) RestoreForkFiles(ctx context.Context, sessionID string, atPrompt int, dir string) ([]Unrestorable, error) {
	return k.forkFiles(ctx, sessionID, atPrompt, dir, files.RestoreFiles)
}

func (k *Kernel) forkFiles(ctx context.Context, sessionID string, atPrompt int, dir string,
	do func(context.Context, files.Blobs, string, string, []llm.FileChange) ([]files.Unrestorable, error)) ([]Unrestorable, error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	before, _, err := k.forkPoint(ctx, sessionID, atPrompt)
	if err != nil || before == "" {
		return []Unrestorable{}, err
	}
	after, err := k.store.ChangesAfterFork(ctx, sessionID, before)
	if err != nil {
		return nil, err
	}
	bad, err := do(ctx, k.store, dir, sess.Workdir, after)
	if err != nil {
		return nil, err
	}
	return mapSlice(bad, func(u files.Unrestorable) Unrestorable { return Unrestorable(u) }), nil
}

// forkTitle is a fork's title: its parent's with " (fork)", kept to a
// title's length.
func forkTitle(parent string) string {
	const mark = " (fork)"
	t := strings.TrimSuffix(parent, mark)
	if r := []rune(t); len(r) > 80-len(mark) {
		t = string(r[:80-len(mark)-1]) + "…"
	}
	return t + mark
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
