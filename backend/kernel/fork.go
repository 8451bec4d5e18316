package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"foya/backend/approval"
	"foya/backend/engine"
	"foya/backend/event"
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
// draft. The fork works in the same folder as its parent, with the same
// approval mode, provider, model and tools; its title is the parent's
// with " (fork)"; it records its parent and atPrompt (Session.ForkedFrom,
// ForkedAt). The parent is not changed. A compaction recorded before the
// fork point stays in force in the fork, for the same messages; one made
// after it is not in the fork. See store.Fork for what is copied.
func (k *Kernel) ForkSession(ctx context.Context, sessionID string, atPrompt int) (Forked, error) {
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
	if before == "" {
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
	sess, err := k.store.ForkSession(ctx, f)
	if errors.Is(err, store.ErrRunning) {
		return Forked{}, withKind(fmt.Errorf("%w; fork it from a prompt, or once its run has ended", err), ErrBusy)
	}
	if err != nil {
		return Forked{}, err
	}
	k.eng.CatchUp(ctx, sess.ID) // what the fork recorded of itself (f.Then)
	return Forked{Session: sessionOf(sess), Draft: draft}, nil
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
