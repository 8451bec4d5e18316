package llm

import (
	"encoding/json"
	"errors"
	"time"

	"foya/backend/event"
)

// Session is one conversation with the agent in one working directory.
type Session struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// TitleByUser says the user gave the title (at creation or by a
	// rename): Foya never replaces it with one of its own.
	TitleByUser  bool   `json:"titleByUser"`
	ProjectID    string `json:"projectId"`
	Workdir      string `json:"workdir"`
	ApprovalMode string `json:"approvalMode"`
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	// Tools is the session's tool allowlist; nil allows every registered tool.
	Tools     []string  `json:"tools,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Runs, LastSeq and ToReview are filled in by the store when listing.
	Runs    int   `json:"runs"`
	LastSeq int64 `json:"lastSeq"`
	// ToReview counts the session's changes that wait for review: those
	// not marked as reviewed, reverts left out (a person made them).
	ToReview int `json:"toReview"`
	// ForkedFrom is the session this one was forked from ("" for none),
	// ForkedAt the prompt of it the fork was made before (1-based; 0 when
	// the fork holds the parent's whole history). Set when the fork is
	// created, never changed.
	ForkedFrom string `json:"forkedFrom,omitempty"`
	ForkedAt   int    `json:"forkedAt,omitempty"`
	// Isolation is the session's isolated copy; nil for a session that
	// works in its folder (ProjectID then equals Workdir).
	Isolation *Isolation `json:"isolation,omitempty"`
}

// Isolation is a session's isolated copy as stored (issue 29,
// backend/isolate): a git worktree or a copied folder in Foya's data
// folder, where the session works (Session.Workdir) instead of its
// folder (Session.ProjectID).
type Isolation struct {
	Kind string `json:"kind"` // "worktree" or "copy"
	// Dir is the copy's own folder; Folder where applying writes (for a
	// worktree, its repository's top: Repo).
	Dir    string `json:"dir"`
	Folder string `json:"folder"`
	Repo   string `json:"repo,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Base is a worktree's base commit, moved by each apply.
	Base        string   `json:"base,omitempty"`
	Uncommitted []string `json:"uncommitted,omitempty"`
	Note        string   `json:"note,omitempty"`
	// Setup is the setup command run in the copy when it was made.
	Setup string `json:"setup,omitempty"`
	// DiscardedAt is when the copy was discarded (zero while it is there).
	DiscardedAt time.Time `json:"discardedAt,omitzero"`
}

// RunStatus is the state of a run (event.RunStatus).
type RunStatus = event.RunStatus

const (
	RunRunning     = event.RunStatusRunning
	RunCompleted   = event.RunStatusCompleted
	RunFailed      = event.RunStatusFailed
	RunCancelled   = event.RunStatusCancelled
	RunInterrupted = event.RunStatusInterrupted
)

// Run is one turn: a user prompt and every model step and tool call that
// answered it.
type Run struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	Status    RunStatus `json:"status"`
	Prompt    string    `json:"prompt"`
	Error     string    `json:"error,omitempty"`
	Steps     int       `json:"steps"`
	Usage     Usage     `json:"usage"`
	// Owner identifies the kernel that drives the run by the lock it
	// holds while it lives (see kernel's owner), so that recovery after a
	// crash leaves runs of live kernels alone.
	Owner     string    `json:"owner,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
	// ParentRunID and ParentCallID are set on a sub-agent's run: the run
	// and the task call that started it. Its messages are its own history,
	// never part of the session's.
	ParentRunID  string `json:"parentRunId,omitempty"`
	ParentCallID string `json:"parentCallId,omitempty"`
}

// CallState is the state of one tool call (event.CallState).
type CallState = event.CallState

const (
	CallQueued      = event.CallQueued
	CallRunning     = event.CallRunning
	CallDone        = event.CallDone
	CallError       = event.CallError
	CallCancelled   = event.CallCancelled
	CallInterrupted = event.CallInterrupted
)

// CallRecord is the stored row of one tool call. Index orders the calls of
// its step as the model did (the stream's Delta.Index): unique in the step,
// not necessarily dense.
type CallRecord struct {
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId"`
	ID        string `json:"id"`
	Step      int    `json:"step"`
	Index     int    `json:"index"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// ArgsRef, set for arguments of InlineArgs bytes or more, says where
	// the store keeps them (once, shared with the message); the store then
	// writes no copy of Arguments into the call's row.
	ArgsRef *ArgsRef  `json:"argsRef,omitempty"`
	State   CallState `json:"state"`
	// Result is the stored outcome once the call has ended.
	Result    *ToolResult `json:"result,omitempty"`
	StartedAt time.Time   `json:"startedAt,omitzero"`
	EndedAt   time.Time   `json:"endedAt,omitzero"`
}

// ToolResult is a tool's outcome as stored and fed back (spec T3). Images are
// artifact references by now; the bytes live in the artifact store.
type ToolResult struct {
	Text        string       `json:"text"`
	IsError     bool         `json:"isError,omitempty"`
	Parts       []Part       `json:"parts,omitempty"`
	Artifacts   []string     `json:"artifacts,omitempty"`
	StopBatch   bool         `json:"stopBatch,omitempty"`
	FileChanges []FileChange `json:"fileChanges,omitempty"`
	DisplayDiff string       `json:"displayDiff,omitempty"`
	// ExitCode, Background and Denials: see tools.Result.
	ExitCode   *int           `json:"exitCode,omitempty"`
	Background string         `json:"background,omitempty"`
	Denials    []event.Denial `json:"denials,omitempty"`
}

// FileChange records one change to one path (event.FileChange, spec F1).
type FileChange = event.FileChange

// Artifact is a binary a tool produced (an image), kept in the session's
// artifact store and referred to by ID everywhere else (spec I1).
type Artifact struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	MIME      string `json:"mime"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	// Data is set when the artifact is written; reads leave it nil.
	Data []byte `json:"-"`
}

// StoredMessage is a message of the canonical history with its place.
type StoredMessage struct {
	SessionID string  `json:"sessionId"`
	RunID     string  `json:"runId"`
	Message   Message `json:"message"`
	// Child marks a message of a sub-agent's run: it belongs to that run's
	// own history, never to the session's.
	Child bool `json:"-"`
}

// Commit is everything one step of the engine writes, applied by the store
// in a single transaction: the session's row, run and call rows, artifacts,
// messages, read marks and the events that announce them. An event and
// the state it stands for are stored together or not at all (a session.mode
// event and the session's mode, a file.reverted event and the read marks
// of the reverted files). Events get their Seq from the store, and the
// store returns them so the engine can publish exactly what was persisted.
type Commit struct {
	// Session, if set, is the session's row as it is to be stored: its
	// title, approval mode, provider, model and tool allowlist. It is
	// written before the events, so a new session's events can follow it
	// in the same commit. The row must exist unless NewSession is set,
	// which creates it (its CreatedAt and UpdatedAt default to now, and
	// are filled in).
	Session    *Session
	NewSession bool
	// Isolation, if set, is stored as the isolation of the session named
	// by IsolationOf (replacing what it had), after Session is.
	Isolation   *Isolation
	IsolationOf string
	// Title, if set, becomes the title of Run's session unless the user
	// gave it one (Session.TitleByUser); the run.start that tells it comes
	// in the same commit.
	Title string
	// Retitle, if set, makes Retitle.Title the title of its session if
	// the user has not named the session and the title differs; otherwise
	// nothing of the commit is stored and the store returns an error
	// wrapping ErrTitleKept. The check and the change are one statement,
	// so a rename made at any moment before wins.
	Retitle   *Retitle
	Run       *Run
	Calls     []CallRecord
	Artifacts []Artifact
	// Blobs are stored content-addressed: the contents of file changes and
	// the pieces of large arguments (ArgsRef). Bytes already stored are not
	// written again.
	Blobs       [][]byte
	FileChanges []FileChange
	Approvals   []ApprovalRecord
	Grants      []GrantRecord
	Messages    []StoredMessage
	// ReadMarks name files whose stale-read records are marked as
	// changed since the session saw them, so the model reads them again
	// before it writes them. A mark of a file the session has no record
	// of changes nothing.
	ReadMarks []ReadMark
	// Reviews mark changes of a session as reviewed or as not reviewed.
	Reviews []ReviewMark
	Events  []Event
}

// Retitle names a session and the title a commit gives it (Commit.Retitle).
type Retitle struct {
	SessionID string
	Title     string
}

// ErrTitleKept is the store's answer to a Commit.Retitle of a session the
// user named (or that has that title already): nothing was stored.
var ErrTitleKept = errors.New("the session keeps its title")

// ReviewMark marks one change of a session as reviewed (Reviewed true) or
// as not reviewed (see Commit.Reviews).
type ReviewMark struct {
	SessionID string
	ChangeID  string
	Reviewed  bool
}

// ReadMark names one file of a session whose stale-read record is marked
// as changed (see Commit.ReadMarks).
type ReadMark struct {
	SessionID string
	Path      string
}

// AddChange adds a File Change to c with the contents before and after it
// (nil where there was no file), which are stored as blobs in the same
// transaction: a stored change can always be reverted (spec F1).
func (c *Commit) AddChange(fc FileChange, before, after []byte) {
	if before != nil {
		c.Blobs = append(c.Blobs, before)
	}
	if after != nil {
		c.Blobs = append(c.Blobs, after)
	}
	c.FileChanges = append(c.FileChanges, fc)
}

// ApprovalRecord is one approval request and, once answered, its answer.
// Request and Answer are the approval package's types as JSON.
type ApprovalRecord struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionId"`
	RunID      string          `json:"runId"`
	CallID     string          `json:"callId"`
	State      string          `json:"state"` // pending, allowed, denied, cancelled
	Request    json.RawMessage `json:"request"`
	Answer     json.RawMessage `json:"answer,omitempty"`
	AskedAt    time.Time       `json:"askedAt"`
	AnsweredAt time.Time       `json:"answeredAt,omitzero"`
}

// GrantRecord is a remembered "allow for this session" (an approval.Grant
// as JSON).
type GrantRecord struct {
	SessionID string          `json:"sessionId"`
	Grant     json.RawMessage `json:"grant"`
}

// Data marshals v as an event payload. It panics if v cannot be marshalled,
// which is a programmer error: payloads are plain structs and maps.
func Data(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("llm: event payload: " + err.Error())
	}
	return b
}
