package kernel

// The review panel's "reviewed" marks, in a dto*.go file of their own:
// tygo.yaml generates the front end's types from the dto*.go files alone.

// ReviewRequest marks changes of one session as reviewed (Reviewed true)
// or as not reviewed: exactly one of ChangeIDs (those changes) or Path
// (every change of that path in the session, reverts included).
type ReviewRequest struct {
	SessionID string   `json:"sessionId"`
	ChangeIDs []string `json:"changeIds,omitempty"`
	// Path is absolute, as the changes name it.
	Path     string `json:"path,omitempty"`
	Reviewed bool   `json:"reviewed"`
}

// ReviewResult is what MarkReviewed marked: the changes (each once, in the
// session's order), their state now, and how many of the session's
// changes wait for review after it.
type ReviewResult struct {
	ChangeIDs []string `json:"changeIds"`
	Reviewed  bool     `json:"reviewed"`
	ToReview  int      `json:"toReview"`
}
