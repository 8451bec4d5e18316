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
