package kernel

// ModelChoice is what SetModel gives a session: a configured provider
// profile and one of its models (a name the user may type when the
// profile's server cannot list its models).
type ModelChoice struct {
	SessionID string `json:"sessionId"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
}

// SteerMessage is a message sent to a session's running run (Steer). ID
// is the sender's, one per message: a message sent again with the same ID
// (a retry after an answer was lost) is stored once.
type SteerMessage struct {
	SessionID string `json:"sessionId"`
	ID        string `json:"id"`
	Text      string `json:"text"`
}

// SteerResult says what became of a SteerMessage: Delivered when it is in
// the running run's history (stored with a run.steer event); otherwise no
// run could take it, nothing was stored, and the sender sends it as the
// session's next prompt.
type SteerResult struct {
	Delivered bool `json:"delivered"`
}
