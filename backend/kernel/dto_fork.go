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
