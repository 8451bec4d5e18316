package kernel

import "time"

// Review comments: the user's words on lines of a file change, kept until
// they are sent to the agent as a turn's prompt (SendComments). Their
// types are in a dto*.go file of their own: tygo.yaml generates the front
// end's types from the dto*.go files alone.

// CommentState is where a comment stands.
type CommentState string

const (
	// CommentOpen: kept, not sent to the agent yet.
	CommentOpen CommentState = "open"
	// CommentSent: sent to the agent, and no change since touched its lines.
	CommentSent CommentState = "sent"
	// CommentAddressed: a change made after the comment touched its lines
	// (worked out each time comments are listed, so every window and a
	// reload show the same).
	CommentAddressed CommentState = "addressed"
)

// MaxCommentText bounds a comment's text, in characters.
const MaxCommentText = 10_000

// Comment is a review comment with its state.
type Comment struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	ChangeID  string `json:"changeId"`
	// Path is the file's absolute path.
	Path string `json:"path"`
	// StartLine and EndLine are the lines commented on, of the change's
	// after side, numbered from 1, both included.
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
	// Quote is those lines as they were when the comment was made.
	Quote string       `json:"quote"`
	Text  string       `json:"text"`
	State CommentState `json:"state"`
	// Sent says the comment went to the agent (in run SentRun), whatever
	// its State says since.
	Sent    bool   `json:"sent"`
	SentRun string `json:"sentRun,omitempty"`
	// AddressedBy is the change that touched the lines (State addressed).
	AddressedBy string `json:"addressedBy,omitempty"`
	// Moved says the lines moved or changed since the change the comment
	// is on (a later change of the file, or an edit outside Foya); the
	// comment is then sent with the file's current lines (Current, at
	// CurrentStart to CurrentEnd; an empty range when they were removed).
	Moved        bool      `json:"moved,omitempty"`
	CurrentStart int       `json:"currentStart,omitempty"`
	CurrentEnd   int       `json:"currentEnd,omitempty"`
	Current      string    `json:"current,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// NewComment is a comment to add on lines of a change's after side.
type NewComment struct {
	ChangeID  string `json:"changeId"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Text      string `json:"text"`
}
