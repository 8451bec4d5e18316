package kernel

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"foya/backend/engine"
	"foya/backend/llm"
	"foya/backend/store"
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
	if atPrompt < 0 {
		return Forked{}, kindf(ErrInvalid, "fork at prompt %d: give a prompt number from 1, or 0 for the whole session", atPrompt)
	}
	parent, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return Forked{}, err
	}
	runs, err := k.store.Runs(ctx, sessionID)
	if err != nil {
		return Forked{}, err
	}
	var prompts []llm.Run
	for _, r := range runs {
		if r.ParentCallID == "" {
			prompts = append(prompts, r)
		}
	}
	f := store.Fork{From: sessionID, NewID: engine.NewID}
	var draft string
	switch {
	case atPrompt > len(prompts) && len(prompts) == 0:
		return Forked{}, kindf(ErrInvalid, "fork at prompt %d: session %s has no prompts yet; fork it whole (0) or send a prompt first", atPrompt, sessionID)
	case atPrompt > len(prompts):
		return Forked{}, kindf(ErrInvalid, "fork at prompt %d: session %s has %d prompt%s; give 1 to %d, or 0 for the whole session",
			atPrompt, sessionID, len(prompts), plural(len(prompts)), len(prompts))
	case atPrompt > 0:
		f.Before, draft = prompts[atPrompt-1].ID, prompts[atPrompt-1].Prompt
	default:
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
	sess, err := k.store.ForkSession(ctx, f)
	if errors.Is(err, store.ErrRunning) {
		return Forked{}, withKind(fmt.Errorf("%w; fork it from a prompt, or once its run has ended", err), ErrBusy)
	}
	if err != nil {
		return Forked{}, err
	}
	return Forked{Session: sessionOf(sess), Draft: draft}, nil
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
