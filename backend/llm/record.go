package llm

import (
	"encoding/json"
	"time"
)

// Session is one conversation with the agent in one working directory.
type Session struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	ProjectID    string `json:"projectId"`
	Workdir      string `json:"workdir"`
	ApprovalMode string `json:"approvalMode"`
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	// Tools is the session's tool allowlist; nil allows every registered tool.
	Tools     []string  `json:"tools,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Runs and LastSeq are filled in by the store when listing.
	Runs    int   `json:"runs"`
	LastSeq int64 `json:"lastSeq"`
}

// RunStatus is the state of a run.
type RunStatus string

const (
	RunRunning     RunStatus = "running"
	RunCompleted   RunStatus = "completed"
	RunFailed      RunStatus = "failed"
	RunCancelled   RunStatus = "cancelled"
	RunInterrupted RunStatus = "interrupted"
)

// Terminal reports whether the run has ended.
func (s RunStatus) Terminal() bool { return s != RunRunning }

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
}

// CallState is the state of one tool call.
type CallState string

const (
	CallQueued      CallState = "queued"
	CallRunning     CallState = "running"
	CallDone        CallState = "done"
	CallError       CallState = "error"
	CallCancelled   CallState = "cancelled"
	CallInterrupted CallState = "interrupted"
)

// Terminal reports whether the call has ended.
func (s CallState) Terminal() bool {
	return s != CallQueued && s != CallRunning
}

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
}

// FileChange records one change to one path (spec F1): what was there
// before and after, as content-addressed blobs, and a unified diff for the
// user. The model never sees the diff (spec F2).
type FileChange struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId,omitempty"`
	// CallID is the tool call that made the change; empty for a revert.
	CallID string `json:"callId,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Path is absolute.
	Path string `json:"path"`
	// Op is "create", "write", "edit", "delete" or "revert".
	Op            string `json:"op"`
	ExistedBefore bool   `json:"existedBefore"`
	ExistsAfter   bool   `json:"existsAfter"`
	// IsDir marks a folder (deleted or restored whole); folders have no
	// content blobs, their bytes live in the trash.
	IsDir      bool   `json:"isDir,omitempty"`
	ModeBefore uint32 `json:"modeBefore,omitempty"`
	ModeAfter  uint32 `json:"modeAfter,omitempty"`
	// SHABefore and SHAAfter are the sha256 (hex) of the contents, and the
	// keys of their blobs; empty where there was no file.
	SHABefore string `json:"shaBefore,omitempty"`
	SHAAfter  string `json:"shaAfter,omitempty"`
	// Binary marks contents that are not text; Diff then says so instead.
	Binary bool `json:"binary,omitempty"`
	// Diff is a unified diff from before to after that GNU patch applies.
	Diff string `json:"diff,omitempty"`
	// Added and Removed count the diff's lines.
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	// TrashPath and TrashInfo locate a deleted path in the OS trash, for
	// restoring it.
	TrashPath string `json:"trashPath,omitempty"`
	TrashInfo string `json:"trashInfo,omitempty"`
	// RevertOf is the change this one reverted.
	RevertOf  string    `json:"revertOf,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

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
}

// Commit is everything one step of the engine writes, applied by the store
// in a single transaction: run and call rows, artifacts, messages and the
// events that announce them. Events get their Seq from the store, and the
// store returns them so the engine can publish exactly what was persisted.
type Commit struct {
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
	Events      []Event
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
