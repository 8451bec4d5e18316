package kernel

import (
	"encoding/json"
	"time"

	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/llm"
	"foya/backend/tools/files"
	"foya/backend/tools/shell"
)

// The kernel's exported API speaks the types of this file (and of the other
// dto*.go files), never an inner package's: front ends and the generated
// TypeScript types depend on these names and JSON fields only. Each is
// converted from its inner type in one place, below it. The JSON is the
// inner types' JSON of before, field for field, except that storage
// details (where large arguments are kept) are left out.

// Session is a stored session as front ends see it.
type Session struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// TitleByUser says the user gave the title (at creation or by a
	// rename); a title Foya made (DefaultTitle, the first prompt's line)
	// is not, and a session's first run may replace it.
	TitleByUser  bool   `json:"titleByUser"`
	ProjectID    string `json:"projectId"`
	Workdir      string `json:"workdir"`
	ApprovalMode string `json:"approvalMode"`
	// Provider and Model are the provider profile and model the session
	// runs with (NoProvider for a server given by flags only).
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Tools is the session's tool allowlist; nil allows every tool.
	Tools     []string  `json:"tools,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Runs counts the session's runs; LastSeq is the seq of its last
	// stored event (0 for none).
	Runs    int   `json:"runs"`
	LastSeq int64 `json:"lastSeq"`
	// ToReview counts the session's changes waiting for review: not
	// marked as reviewed (MarkReviewed), reverts left out.
	ToReview int `json:"toReview"`
	// ForkedFrom is the session this one was forked from (ForkSession),
	// "" for a session that is no fork; the parent may since have been
	// deleted. ForkedAt is the parent's prompt the fork was made before
	// (1-based), 0 when the fork holds the parent's whole history.
	ForkedFrom string `json:"forkedFrom,omitempty"`
	ForkedAt   int    `json:"forkedAt,omitempty"`
	// Isolation is the isolated copy the session works in (Workdir is in
	// it, ProjectID is the folder it was made from); nil when the session
	// works in its folder.
	Isolation *Isolation `json:"isolation,omitempty"`
}

func sessionOf(s llm.Session) Session {
	return Session{ID: s.ID, Title: s.Title, TitleByUser: s.TitleByUser, ProjectID: s.ProjectID, Workdir: s.Workdir, ApprovalMode: s.ApprovalMode,
		Provider: s.Provider, Model: s.Model, Tools: s.Tools, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		Runs: s.Runs, LastSeq: s.LastSeq, ToReview: s.ToReview, ForkedFrom: s.ForkedFrom, ForkedAt: s.ForkedAt,
		Isolation: isolationOf(s.Isolation)}
}

func (s Session) record() llm.Session {
	return llm.Session{ID: s.ID, Title: s.Title, TitleByUser: s.TitleByUser, ProjectID: s.ProjectID, Workdir: s.Workdir, ApprovalMode: s.ApprovalMode,
		Provider: s.Provider, Model: s.Model, Tools: s.Tools, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		Runs: s.Runs, LastSeq: s.LastSeq, ToReview: s.ToReview, ForkedFrom: s.ForkedFrom, ForkedAt: s.ForkedAt,
		Isolation: s.Isolation.record()}
}

// RunStatus is the state of a run (the vocabulary of run.end).
type RunStatus = event.RunStatus

// States of a run.
const (
	RunRunning     RunStatus = "running"
	RunCompleted   RunStatus = "completed"
	RunFailed      RunStatus = "failed"
	RunCancelled   RunStatus = "cancelled"
	RunInterrupted RunStatus = "interrupted" // Foya stopped during the run
)

// Usage counts the tokens of a run, as the provider reported them.
type Usage = event.Usage

// Run is one turn: a prompt and every model step and tool call that
// answered it.
type Run struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	Status    RunStatus `json:"status"`
	Prompt    string    `json:"prompt"`
	Error     string    `json:"error,omitempty"`
	Steps     int       `json:"steps"`
	Usage     Usage     `json:"usage"`
	// Owner names the kernel that drives (or drove) the run.
	Owner     string    `json:"owner,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
	// ParentRunID and ParentCallID are set on a sub-agent's run: the run
	// and the task call that started it.
	ParentRunID  string `json:"parentRunId,omitempty"`
	ParentCallID string `json:"parentCallId,omitempty"`
}

func runOf(r llm.Run) Run {
	return Run{ID: r.ID, SessionID: r.SessionID, Status: RunStatus(r.Status), Prompt: r.Prompt, Error: r.Error,
		Steps: r.Steps, Usage: Usage(r.Usage), Owner: r.Owner, StartedAt: r.StartedAt, EndedAt: r.EndedAt,
		ParentRunID: r.ParentRunID, ParentCallID: r.ParentCallID}
}

// CallState is the state of a tool call (the vocabulary of tool.end).
type CallState = event.CallState

// States of a tool call.
const (
	CallQueued      CallState = "queued"
	CallRunning     CallState = "running"
	CallDone        CallState = "done"
	CallError       CallState = "error"
	CallCancelled   CallState = "cancelled"
	CallInterrupted CallState = "interrupted"
)

// Call is one tool call of a run. Index orders the calls of its step as
// the model sent them.
type Call struct {
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId"`
	ID        string `json:"id"`
	Step      int    `json:"step"`
	Index     int    `json:"index"`
	Name      string `json:"name"`
	// Arguments are the raw JSON arguments as the model sent them.
	Arguments string    `json:"arguments"`
	State     CallState `json:"state"`
	// Result is the call's outcome once it has ended.
	Result    *ToolResult `json:"result,omitempty"`
	StartedAt time.Time   `json:"startedAt,omitzero"`
	EndedAt   time.Time   `json:"endedAt,omitzero"`
}

func callOf(c llm.CallRecord) Call {
	out := Call{SessionID: c.SessionID, RunID: c.RunID, ID: c.ID, Step: c.Step, Index: c.Index, Name: c.Name,
		Arguments: c.Arguments, State: CallState(c.State), StartedAt: c.StartedAt, EndedAt: c.EndedAt}
	if c.Result != nil {
		r := toolResultOf(*c.Result)
		out.Result = &r
	}
	return out
}

// ToolResult is a tool's stored outcome. Images are artifact references.
type ToolResult struct {
	Text        string   `json:"text"`
	IsError     bool     `json:"isError,omitempty"`
	Parts       []Part   `json:"parts,omitempty"`
	Artifacts   []string `json:"artifacts,omitempty"`
	StopBatch   bool     `json:"stopBatch,omitempty"`
	FileChanges []Change `json:"fileChanges,omitempty"`
	// DisplayDiff is for people only; the model never sees it.
	DisplayDiff string `json:"displayDiff,omitempty"`
	// ExitCode is a shell command's exit status when it exited by itself
	// (not when it timed out, was cancelled or killed).
	ExitCode *int `json:"exitCode,omitempty"`
	// Background is the ID of the background command the call started.
	Background string `json:"background,omitempty"`
	// Denials say what the sandbox refused a shell command, in words,
	// with what the user may allow (AllowSandbox).
	Denials []event.Denial `json:"denials,omitempty"`
}

func toolResultOf(r llm.ToolResult) ToolResult {
	return ToolResult{Text: r.Text, IsError: r.IsError, Parts: mapSlice(r.Parts, partOf), Artifacts: r.Artifacts,
		StopBatch: r.StopBatch, FileChanges: r.FileChanges, DisplayDiff: r.DisplayDiff, ExitCode: r.ExitCode, Background: r.Background,
		Denials: r.Denials}
}

// Part is a non-text piece of a message: an image, by artifact ID.
type Part struct {
	Type       string `json:"type"` // "image"
	ArtifactID string `json:"artifactId,omitempty"`
	MIME       string `json:"mime,omitempty"`
}

func partOf(p llm.Part) Part {
	return Part{Type: string(p.Type), ArtifactID: p.ArtifactID, MIME: p.MIME}
}

// Change is one change to one path (a write, edit, delete or revert):
// what was there before and after, and a unified diff for people. It is
// the vocabulary of tool.end's fileChanges, so one type serves both.
type Change = event.FileChange

// Conflict is a change a revert stopped at: the file is no longer what
// the change left there.
type Conflict struct {
	ChangeID string `json:"changeId"`
	Path     string `json:"path"`
	// Reason says what differs, for people.
	Reason string `json:"reason"`
	// Expected is what the change left; Found is what is there now.
	ExpectedExists bool   `json:"expectedExists"`
	ExpectedSHA    string `json:"expectedSha,omitempty"`
	FoundExists    bool   `json:"foundExists"`
	FoundSHA       string `json:"foundSha,omitempty"`
	// Diff shows what is there against what was expected, when both are
	// text.
	Diff string `json:"diff,omitempty"`
	// Forceable is false when even a forced revert cannot undo the change.
	Forceable bool `json:"forceable"`
}

func conflictOf(c files.Conflict) Conflict {
	return Conflict{ChangeID: c.ChangeID, Path: c.Path, Reason: c.Reason, ExpectedExists: c.ExpectedExists,
		ExpectedSHA: c.ExpectedSHA, FoundExists: c.FoundExists, FoundSHA: c.FoundSHA, Diff: c.Diff, Forceable: c.Forceable}
}

// Message is an entry of a session's canonical history with its place.
type Message struct {
	SessionID string         `json:"sessionId"`
	RunID     string         `json:"runId"`
	Message   HistoryMessage `json:"message"`
}

// Role is the author of a message of the history.
type Role string

// Authors of messages.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// HistoryMessage is one message as the model is fed it: the user's
// prompt, an assistant step (text and tool calls) or a tool's result.
type HistoryMessage struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
	IsError    bool       `json:"isError,omitempty"`
	Parts      []Part     `json:"parts,omitempty"`
}

// ToolCall is a call an assistant message proposed.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func messageOf(m llm.StoredMessage) Message {
	return Message{SessionID: m.SessionID, RunID: m.RunID, Message: HistoryMessage{Role: Role(m.Message.Role),
		Content: m.Message.Content, Reasoning: m.Message.Reasoning,
		ToolCalls: mapSlice(m.Message.ToolCalls, func(c llm.ToolCall) ToolCall {
			return ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}),
		ToolCallID: m.Message.ToolCallID, ToolName: m.Message.ToolName, IsError: m.Message.IsError,
		Parts: mapSlice(m.Message.Parts, partOf)}}
}

// Artifact is a binary a tool produced (an image), with its bytes when
// read with Kernel.Artifact.
type Artifact struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	MIME      string `json:"mime"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	// Data holds the bytes; never in JSON (transports send them raw).
	Data []byte `json:"-"`
}

func artifactOf(a llm.Artifact) Artifact {
	return Artifact{ID: a.ID, SessionID: a.SessionID, MIME: a.MIME, Width: a.Width, Height: a.Height, Size: a.Size,
		SHA256: a.SHA256, Data: a.Data}
}

// BackgroundCommand is a command a session started in the background.
type BackgroundCommand struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	Command   string    `json:"command"`
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
	Running   bool      `json:"running"`
	// ExitCode and Signal say how it ended, once it has.
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal,omitempty"`
	// Killed says it was ended on request; TimedOut that its timeout
	// ended it.
	Killed   bool `json:"killed,omitempty"`
	TimedOut bool `json:"timedOut,omitempty"`
	// DurationNs is how long it ran, in nanoseconds, once it has ended.
	DurationNs int64 `json:"durationNs,omitempty"`
	// Sandbox names what confined it ("none" without sandbox).
	Sandbox string `json:"sandbox"`
	// OutputBytes counts everything it printed so far.
	OutputBytes int64 `json:"outputBytes"`
}

func backgroundOf(b shell.Background) BackgroundCommand {
	return BackgroundCommand{ID: b.ID, SessionID: b.SessionID, Command: b.Command, PID: b.PID, StartedAt: b.StartedAt,
		Running: b.Running, ExitCode: b.ExitCode, Signal: b.Signal, Killed: b.Killed, TimedOut: b.TimedOut,
		DurationNs: int64(b.Duration), Sandbox: b.Sandbox, OutputBytes: b.OutputBytes}
}

// Answers to an approval request (Answer.Choice).
const (
	AllowOnce    = "allow_once"
	AllowSession = "allow_session" // with a Scope
	Deny         = "deny"
)

// Answer answers a pending approval request.
type Answer struct {
	// Choice is AllowOnce, AllowSession or Deny.
	Choice string `json:"choice"`
	// Scope is the grant to remember with AllowSession: one of the
	// request's Scopes.
	Scope *Grant `json:"scope,omitempty"`
	// Message is an optional note for the model with Deny.
	Message string `json:"message,omitempty"`
}

func (a Answer) inner() approval.Answer {
	out := approval.Answer{Choice: approval.Choice(a.Choice), Message: a.Message}
	if a.Scope != nil {
		g := a.Scope.inner()
		out.Scope = &g
	}
	return out
}

// Grant is a remembered "allow for this session": every action of Kind by
// Tool, or shell commands starting with Prefix, fetches of Host, or
// actions inside Folder.
type Grant struct {
	Kind   string   `json:"kind"`
	Tool   string   `json:"tool,omitempty"`
	Prefix []string `json:"prefix,omitempty"`
	Host   string   `json:"host,omitempty"`
	Folder string   `json:"folder,omitempty"`
}

// String says what the grant allows, for people.
func (g Grant) String() string { return g.inner().String() }

func grantOf(g approval.Grant) Grant {
	return Grant{Kind: string(g.Kind), Tool: g.Tool, Prefix: g.Prefix, Host: g.Host, Folder: g.Folder}
}

func (g Grant) inner() approval.Grant {
	return approval.Grant{Kind: approval.Kind(g.Kind), Tool: g.Tool, Prefix: g.Prefix, Host: g.Host, Folder: g.Folder}
}

// Action is what a tool call is about to do, as the approval policy sees
// it.
type Action struct {
	// Kind is the policy's name for it ("read", "write", "shell", ...).
	Kind    string   `json:"kind"`
	Tool    string   `json:"tool"`
	Paths   []string `json:"paths,omitempty"`
	Command string   `json:"command,omitempty"`
	Host    string   `json:"host,omitempty"`
	// Addresses are, for "fetch_private", the loopback or private
	// addresses the fetch would connect to.
	Addresses []string `json:"addresses,omitempty"`
	ReadOnly  bool     `json:"readOnly,omitempty"`
	// MCPServer and MCPTool name, for an MCP call, the server and the
	// tool's own name on it.
	MCPServer string `json:"mcpServer,omitempty"`
	MCPTool   string `json:"mcpTool,omitempty"`
}

// ApprovalRequest is what a tool asks the user: the action, a one-line
// reason and a preview (the diff a write would make, the command a shell
// call would run).
type ApprovalRequest struct {
	CallID  string `json:"callId"`
	Action  Action `json:"action"`
	Why     string `json:"why"`
	Preview string `json:"preview,omitempty"`
}

func requestOf(r approval.Request) ApprovalRequest {
	a := r.Action
	return ApprovalRequest{CallID: r.CallID, Why: r.Why, Preview: r.Preview, Action: Action{Kind: string(a.Kind),
		Tool: a.Tool, Paths: a.Paths, Command: a.Command, Host: a.Host, Addresses: a.Addresses,
		ReadOnly: a.ReadOnly, MCPServer: a.MCPServer, MCPTool: a.MCPTool}}
}

// Approval is a request waiting for the user's answer.
type Approval struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionId"`
	RunID     string          `json:"runId"`
	Request   ApprovalRequest `json:"request"`
	// Reason says why it is asked (the mode, a rule).
	Reason string `json:"reason"`
	// Scopes are the grants an AllowSession answer may name.
	Scopes  []Grant   `json:"scopes"`
	AskedAt time.Time `json:"askedAt"`
	// SubAgent is the description of the sub-agent that asks, when the call
	// belongs to a child run (RunID is the child's); empty otherwise.
	SubAgent string `json:"subAgent,omitempty"`
}

func approvalOf(p approval.Pending) Approval {
	return Approval{ID: p.ID, SessionID: p.SessionID, RunID: p.RunID, Request: requestOf(p.Request), Reason: p.Reason,
		Scopes: mapSlice(p.Scopes, grantOf), AskedAt: p.AskedAt, SubAgent: p.SubAgent}
}

// ApprovalRecord is one approval request of a session's history and, once
// answered, its answer.
type ApprovalRecord struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId"`
	CallID    string `json:"callId"`
	// State is "pending", "allowed", "denied" or "cancelled".
	State      string          `json:"state"`
	Request    ApprovalRequest `json:"request"`
	Answer     *Answer         `json:"answer,omitempty"`
	AskedAt    time.Time       `json:"askedAt"`
	AnsweredAt time.Time       `json:"answeredAt,omitzero"`
}

// approvalRecordOf reads a stored record; request and answer are the
// approval package's JSON, so they decode into the DTOs field for field.
func approvalRecordOf(r llm.ApprovalRecord) ApprovalRecord {
	out := ApprovalRecord{ID: r.ID, SessionID: r.SessionID, RunID: r.RunID, CallID: r.CallID, State: r.State,
		AskedAt: r.AskedAt, AnsweredAt: r.AnsweredAt}
	var req approval.Request
	if json.Unmarshal(r.Request, &req) == nil {
		out.Request = requestOf(req)
	}
	var ans approval.Answer
	if len(r.Answer) > 0 && json.Unmarshal(r.Answer, &ans) == nil && ans.Choice != "" {
		a := Answer{Choice: string(ans.Choice), Message: ans.Message}
		if ans.Scope != nil {
			g := grantOf(*ans.Scope)
			a.Scope = &g
		}
		out.Answer = &a
	}
	return out
}

// Rule is one rule of a rules file, as written there.
type Rule struct {
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command,omitempty"`
	// Path is a doublestar pattern, relative to the workspace unless
	// absolute.
	Path string `json:"path,omitempty"`
	Host string `json:"host,omitempty"`
}

// String is the rule as written in the file: {"tool":"write"}.
func (r Rule) String() string {
	b, _ := json.Marshal(r) // strings only: it cannot fail
	return string(b)
}

func ruleOf(r approval.Rule) Rule {
	return Rule{Tool: r.Tool, Command: r.Command, Path: r.Path, Host: r.Host}
}

// mapSlice converts a list; nil stays nil (JSON null, as before) and an
// empty list stays empty.
func mapSlice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
