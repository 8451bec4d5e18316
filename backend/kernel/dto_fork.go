package kernel

// Forked is a session ForkSession made, with the prompt it was forked
// before.
type Forked struct {
	Session Session `json:"session"`
	// Draft is the text of the prompt the fork was made before (ForkedAt),
	// for the composer: sent as it is or changed, it takes that prompt's
	// place in the fork. Empty for a fork of the whole session.
	Draft string `json:"draft"`
}

// Unrestorable is a file a fork from a prompt could not have as it was
// then (CheckForkFiles), and why.
type Unrestorable struct {
	// ChangeID is the session's change after the fork point at fault;
	// Path is the path it recorded.
	ChangeID string `json:"changeId"`
	Path     string `json:"path"`
	Reason   string `json:"reason"`
}

// ForkOptions say what ForkSessionWith forks.
type ForkOptions struct {
	SessionID string `json:"sessionId"`
	// AtPrompt is the prompt (1-based, the person's prompts) the fork is
	// made before; 0 forks the whole session.
	AtPrompt int `json:"atPrompt"`
	// FilesNow forks an isolated session with its files as they are now:
	// the fork's own copy gets the session's current files, none taken
	// back to the prompt. Without it, the copy's files are taken back to
	// how they were at the prompt, and a fork where some file cannot be
	// is refused (ErrConflict) naming those files, nothing made. A
	// session that works in its folder ignores it: its fork shares the
	// folder.
	FilesNow bool `json:"filesNow,omitempty"`
}
