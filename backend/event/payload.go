package event

import "time"

// The payloads that were maps before this package keep their JSON names in
// sorted order (see the package doc); do not reorder their fields.

// RunStartData is the payload of run.start: a run begins. Provider is the
// session's provider profile, or "openai-compatible" for a server given by
// URL only. Description and ParentRunID are set on a sub-agent's run only:
// what the task call said the child is for, and the run of that call (the
// envelope's ParentCallID names the call).
type RunStartData struct {
	ApprovalMode string       `json:"approvalMode"`
	Description  string       `json:"description,omitempty"`
	Instructions Instructions `json:"instructions"`
	Model        string       `json:"model"`
	ParentRunID  string       `json:"parentRunId,omitempty"`
	Prompt       string       `json:"prompt"`
	Provider     string       `json:"provider"`
	Workdir      string       `json:"workdir"`
	// Resources are the MCP resources the user attached to the prompt
	// (their contents are in the stored user message, not here).
	Resources []ResourceRef `json:"resources,omitempty"`
	// Images are the images the user pasted or dropped into the message,
	// kept as artifacts of the session; the stored user message refers to
	// them as image parts.
	Images []ImageRef `json:"images,omitempty"`
	// Title is the session's new title when this run gave it one: a
	// session's first run names it after its prompt unless the user gave
	// it a title. Empty otherwise.
	Title string `json:"title,omitempty"`
}

// ResourceRef names an MCP resource attached to a message: its server
// and URI.
type ResourceRef struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// ImageRef names an image the user attached to a message: the artifact
// holding its bytes, a small copy of it to show in the transcript (an
// artifact too), the file name the user gave and what it is.
type ImageRef struct {
	ArtifactID string `json:"artifactId"`
	ThumbID    string `json:"thumbId"`
	Name       string `json:"name"`
	MIME       string `json:"mime"`
	Size       int64  `json:"size"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
}

// RunStart is a run.start event.
func RunStart(d RunStartData) Event { return of(TypeRunStart, d) }

// StepStartData is the payload of step.start, before each model request:
// the tools offered to the model, sorted.
type StepStartData struct {
	Step int `json:"step"`
	// Tools is null when no tool is offered.
	Tools []string `json:"tools" tstype:"string[] | null"`
}

// StepStart is a step.start event.
func StepStart(d StepStartData) Event { return of(TypeStepStart, d) }

// TextDeltaData is the payload of text.delta: a piece of the assistant's
// text as it streams (pieces may be coalesced).
type TextDeltaData struct {
	Step int    `json:"step"`
	Text string `json:"text"`
}

// TextDelta is a text.delta event.
func TextDelta(d TextDeltaData) Event { return of(TypeTextDelta, d) }

// ReasoningDeltaData is the payload of reasoning.delta: a piece of the
// model's reasoning as it streams, where the server sends it.
type ReasoningDeltaData struct {
	Step int    `json:"step"`
	Text string `json:"text"`
}

// ReasoningDelta is a reasoning.delta event.
func ReasoningDelta(d ReasoningDeltaData) Event { return of(TypeReasoningDelta, d) }

// ToolBeginData is the payload of tool.begin: a streamed call's name is
// known (spec L1). Index orders the step's calls as the model did; calls
// may begin out of Index order and indexes need not be dense.
type ToolBeginData struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
	Name  string `json:"name"`
	Step  int    `json:"step"`
}

// ToolBegin is a tool.begin event.
func ToolBegin(d ToolBeginData) Event { return of(TypeToolBegin, d) }

// ToolUpdateData is the payload of tool.update, one of three kinds: while
// the arguments stream, ArgsBytes (how many bytes arrived) with ArgsDelta
// (the next piece of their first 4 KiB, may be empty); Status "running"
// when the call starts; Progress, a running tool's live output.
type ToolUpdateData struct {
	ArgsBytes int       `json:"argsBytes,omitempty"`
	ArgsDelta string    `json:"argsDelta,omitempty"`
	ID        string    `json:"id"`
	Progress  *Progress `json:"progress,omitempty"`
	Status    CallState `json:"status,omitempty"`
	Step      int       `json:"step"`
}

// Progress is a running tool's live output. For bash, Tail is the last
// lines of its output: at most 20 lines, 2 KiB. Tools that report how far
// they are (MCP servers' notifications/progress) set Done, with Total when
// they know it, and Message.
type Progress struct {
	Done    *float64 `json:"done,omitempty"`
	Message string   `json:"message,omitempty"`
	Tail    string   `json:"tail"`
	Total   *float64 `json:"total,omitempty"`
}

// ToolUpdate is a tool.update event.
func ToolUpdate(d ToolUpdateData) Event { return of(TypeToolUpdate, d) }

// ToolEndData is the payload of tool.end: a call ended (never coalesced).
// Text is the result the model reads, Artifacts the IDs of what it made,
// DurationMs how long it ran (absent for a call that never ran).
// ExitCode is a shell command's exit status, set only when the command
// exited by itself (not timed out, cancelled or killed by a signal), so a
// front end shows the outcome without reading Text. Background is the ID
// of the background command a call started (bg1, ...), whose status the
// background.changed notices tell from then on. Denials say what the
// sandbox refused a shell command, in words, with what the user may allow.
type ToolEndData struct {
	Artifacts   []string     `json:"artifacts,omitempty"`
	Background  string       `json:"background,omitempty"`
	Denials     []Denial     `json:"denials,omitempty"`
	DisplayDiff string       `json:"displayDiff,omitempty"`
	DurationMs  *int64       `json:"durationMs,omitempty"`
	ExitCode    *int         `json:"exitCode,omitempty"`
	FileChanges []FileChange `json:"fileChanges,omitempty"`
	ID          string       `json:"id"`
	Index       int          `json:"index"`
	IsError     bool         `json:"isError"`
	Name        string       `json:"name"`
	Status      CallState    `json:"status"`
	Step        int          `json:"step"`
	Text        string       `json:"text"`
}

// ToolEnd is a tool.end event.
func ToolEnd(d ToolEndData) Event { return of(TypeToolEnd, d) }

// ToolsActivatedData is the payload of tools.activated: tool_search
// activated deferred tools, offered from the next step, for this turn.
type ToolsActivatedData struct {
	Names []string `json:"names"`
}

// ToolsActivated is a tools.activated event.
func ToolsActivated(d ToolsActivatedData) Event { return of(TypeToolsActivated, d) }

// StepEndData is the payload of step.end, after a step's calls have all
// ended. Either the model's stream failed (Error) or it completed
// (FinishReason and ToolCalls, how many calls it made). FinishReason is
// "length" when a call's arguments were cut off.
type StepEndData struct {
	Error        string `json:"error,omitempty"`
	FinishReason string `json:"finishReason,omitempty"`
	Step         int    `json:"step"`
	ToolCalls    *int   `json:"toolCalls,omitempty"`
	Usage        Usage  `json:"usage"`
}

// StepEnd is a step.end event.
func StepEnd(d StepEndData) Event { return of(TypeStepEnd, d) }

// ApprovalRequestData is the payload of approval.request: a call waits for
// a person. It mirrors approval.Pending. Reason is why the policy asks;
// Scopes are the grants the person may choose for "allow for this
// session".
type ApprovalRequestData struct {
	ID        string    `json:"id"`
	SessionID string    `json:"sessionId"`
	RunID     string    `json:"runId"`
	Request   Ask       `json:"request"`
	Reason    string    `json:"reason"`
	Scopes    []Grant   `json:"scopes" tstype:"Grant[] | null"` // null when none fits
	AskedAt   time.Time `json:"askedAt"`
	// SubAgent is the description of the sub-agent whose call asks, when a
	// child run asks (its run is RunID); empty for the session's own run.
	SubAgent string `json:"subAgent,omitempty"`
}

// ApprovalRequest is an approval.request event.
func ApprovalRequest(d ApprovalRequestData) Event { return of(TypeApprovalRequest, d) }

// Approval request states (ApprovalAnswerData.State).
const (
	ApprovalPending   = "pending"
	ApprovalAllowed   = "allowed"
	ApprovalDenied    = "denied"
	ApprovalCancelled = "cancelled"
)

// ApprovalAnswerData is the payload of approval.answer: the first answer
// to request ID, or the run's cancel. State is allowed, denied or
// cancelled.
type ApprovalAnswerData struct {
	Answer Answer `json:"answer"`
	CallID string `json:"callId"`
	ID     string `json:"id"`
	State  string `json:"state"`
}

// ApprovalAnswer is an approval.answer event.
func ApprovalAnswer(d ApprovalAnswerData) Event { return of(TypeApprovalAnswer, d) }

// Hook run statuses (HookRunData.Status).
const (
	HookOK      = "ok"
	HookFailed  = "failed"
	HookSkipped = "skipped"
)

// HookRunData is the payload of hook.run: a hook ran (docs/hooks.md), or
// a file's hooks were skipped. Event is the hook's event (before_tool,
// after_tool, turn_end, approval); Source is "project" or "user"; CallID
// and Tool name the call it ran for (or whose approval it ran for).
// Status is ok, failed (Error says why; before a call, the call was
// refused) or skipped (a file whose hooks do not run: Error says why, and
// Hook is empty). Decision, Reason and Note are its answer; Output is the
// end of what it printed besides its answer, for a person.
type HookRunData struct {
	Hook       string `json:"hook,omitempty"`
	Event      string `json:"event,omitempty"`
	Source     string `json:"source"`
	File       string `json:"file"`
	CallID     string `json:"callId,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Status     string `json:"status"`
	Decision   string `json:"decision,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Note       string `json:"note,omitempty"`
	Error      string `json:"error,omitempty"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	DurationMs int64  `json:"durationMs"`
	Output     string `json:"output,omitempty"`
	Sandbox    string `json:"sandbox,omitempty"`
}

// HookRun is a hook.run event.
func HookRun(d HookRunData) Event { return of(TypeHookRun, d) }

// SessionModeData is the payload of session.mode: a session's approval
// mode changed (From is empty when a session starts in Full Access).
type SessionModeData struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// SessionMode is a session.mode event.
func SessionMode(d SessionModeData) Event { return of(TypeSessionMode, d) }

// SessionModelData is the payload of session.model: the user chose the
// provider profile and model the session's next runs use. From* are what
// the session had before (empty when it had none); a run already going
// keeps its model.
type SessionModelData struct {
	FromModel    string `json:"fromModel,omitempty"`
	FromProvider string `json:"fromProvider,omitempty"`
	Model        string `json:"model"`
	Provider     string `json:"provider"`
}

// SessionModel is a session.model event.
func SessionModel(d SessionModelData) Event { return of(TypeSessionModel, d) }

// SessionTitleData is the payload of session.title: after a session's
// first run the model proposed a title, which replaced the one Foya made
// from the first prompt (From). It is stored only while the user has not
// named the session: a rename always wins.
type SessionTitleData struct {
	From  string `json:"from"`
	Title string `json:"title"`
}

// SessionTitle is a session.title event.
func SessionTitle(d SessionTitleData) Event { return of(TypeSessionTitle, d) }

// RunSteerData is the payload of run.steer: a message the user sent to
// the running run, stored as a user message of the run's history before
// its next model request. ID is the sender's, the same for a message sent
// twice (a retry after a lost answer), so it is stored once.
type RunSteerData struct {
	ID   string `json:"id"`
	Step int    `json:"step"`
	Text string `json:"text"`
}

// RunSteer is a run.steer event.
func RunSteer(d RunSteerData) Event { return of(TypeRunSteer, d) }

// TodoUpdatedData is the payload of todo.updated: the model replaced the
// session's task list with todo_write. Todos is the whole list, in the
// model's order; the latest todo.updated of a session is its list.
type TodoUpdatedData struct {
	Todos []Todo `json:"todos"`
}

// Todo is one item of a session's task list.
type Todo struct {
	Content string     `json:"content"`
	Status  TodoStatus `json:"status"`
}

// TodoUpdated is a todo.updated event.
func TodoUpdated(d TodoUpdatedData) Event { return of(TypeTodoUpdated, d) }

// FileRevertedData is the payload of file.reverted, one per file: ChangeID
// is the revert (itself a file change), RevertOf the change it reverted.
type FileRevertedData struct {
	ChangeID string `json:"changeId"`
	Op       string `json:"op"`
	Path     string `json:"path"`
	RevertOf string `json:"revertOf"`
}

// FileReverted is a file.reverted event.
func FileReverted(d FileRevertedData) Event { return of(TypeFileReverted, d) }

// FileCapturedData is the payload of file.captured: the file changes a
// background command made, found when it ended, recorded against the call
// that started it. A foreground command's changes are in its
// tool.end instead.
type FileCapturedData struct {
	CallID      string       `json:"callId"`
	FileChanges []FileChange `json:"fileChanges"`
}

// FileCaptured is a file.captured event.
func FileCaptured(d FileCapturedData) Event { return of(TypeFileCaptured, d) }

// FileChangedOutsideData is the payload of file.changed_outside: a file the
// session read or changed was changed by something other than Foya.
type FileChangedOutsideData struct {
	Exists bool   `json:"exists"`
	Path   string `json:"path"`
}

// FileChangedOutside is a file.changed_outside event.
func FileChangedOutside(d FileChangedOutsideData) Event { return of(TypeFileChangedOutside, d) }

// FileWatchDegradedData is the payload of file.watch_degraded: the
// workspace cannot be watched whole, so the session's files are polled.
type FileWatchDegradedData struct {
	Reason string `json:"reason"`
}

// FileWatchDegraded is a file.watch_degraded event.
func FileWatchDegraded(d FileWatchDegradedData) Event { return of(TypeFileWatchDegraded, d) }

// ChangeReviewedData is the payload of change.reviewed: a person marked
// the session's changes ChangeIDs as reviewed (Reviewed true) or as not
// reviewed. ToReview is how many of the session's changes wait for review
// once the marks are made, as the kernel counted when it stored them (the
// session list shows it). A change made later is a change of its own, not
// reviewed.
type ChangeReviewedData struct {
	ChangeIDs []string `json:"changeIds"`
	Reviewed  bool     `json:"reviewed"`
	ToReview  int      `json:"toReview"`
}

// ChangeReviewed is a change.reviewed event.
func ChangeReviewed(d ChangeReviewedData) Event { return of(TypeChangeReviewed, d) }

// RunInterruptedData is the payload of run.interrupted, at start-up, for a
// run whose process died (spec X2): how many unfinished calls were marked.
type RunInterruptedData struct {
	Calls int `json:"calls"`
}

// RunInterrupted is a run.interrupted event.
func RunInterrupted(d RunInterruptedData) Event { return of(TypeRunInterrupted, d) }

// RunEndData is the payload of run.end, the last event of a run.
type RunEndData struct {
	Error  string    `json:"error"`
	Status RunStatus `json:"status"`
	Steps  int       `json:"steps"`
	Usage  Usage     `json:"usage"`
}

// RunEnd is a run.end event.
func RunEnd(d RunEndData) Event { return of(TypeRunEnd, d) }

// Who asked for a compaction (ContextCompactedData.By).
const (
	CompactAuto = "auto" // the next request would have passed context.compactAt of the window
	CompactUser = "user" // a person asked for it (Compact)
)

// ContextCompactedData is the payload of context.compacted: the context
// compiler replaced the oldest messages of the session's history, in the
// requests it sends from then on, by one note: the model's summary of
// them, then the session's file changes and task list as Foya's records
// hold them (exact, not summarised). Note holds the note's exact bytes,
// which every later request sends again, so prompt caches keep hitting
// (spec R2). The canonical history is not changed: messages r1 to
// r{Upto} stay stored and their tool results readable with
// history_read_tool_result. A later compaction covers an earlier one's
// messages too (it summarises its note and what came after).
type ContextCompactedData struct {
	ID string `json:"id"`
	// By is CompactAuto or CompactUser.
	By string `json:"by"`
	// Upto is how many messages of the history, from the first, the note
	// stands for; the messages after it are sent verbatim.
	Upto int `json:"upto"`
	// Turns is how many of the user's turns (prompts) it covers.
	Turns int `json:"turns"`
	// Summary is the model's structured note (goal, decisions, files,
	// open tasks, the user's constraints).
	Summary string `json:"summary"`
	// Note is the whole text sent in place of the covered messages.
	Note string `json:"note"`
	// Files and Tasks count the file changes' paths and the tasks the
	// note lists exactly.
	Files int `json:"files"`
	Tasks int `json:"tasks"`
	// TokensBefore and TokensAfter estimate the request's size without
	// and with the compaction.
	TokensBefore int `json:"tokensBefore"`
	TokensAfter  int `json:"tokensAfter"`
	// Window is the context window it was sized for (tokens; 0 unknown).
	Window int `json:"window,omitempty"`
}

// ContextCompacted is a context.compacted event.
func ContextCompacted(d ContextCompactedData) Event { return of(TypeContextCompacted, d) }

// ContextUncompactedData is the payload of context.uncompacted: a person
// undid compaction ID; the next request is compiled without it (with the
// compaction before it, if any, still in force).
type ContextUncompactedData struct {
	ID string `json:"id"`
}

// ContextUncompacted is a context.uncompacted event.
func ContextUncompacted(d ContextUncompactedData) Event { return of(TypeContextUncompacted, d) }

// ContextCompactFailedData is the payload of context.compact_failed: a
// compaction was due or asked for and did not happen (the model's summary
// failed, was empty or a refusal). Error says why. Stopped tells whether
// the run stopped for it (the conversation no longer fit the window) or
// went on uncompacted. Nothing of the history is lost either way.
type ContextCompactFailedData struct {
	By      string `json:"by"`
	Error   string `json:"error"`
	Stopped bool   `json:"stopped,omitempty"`
}

// ContextCompactFailed is a context.compact_failed event.
func ContextCompactFailed(d ContextCompactFailedData) Event {
	return of(TypeContextCompactFailed, d)
}

// Setup states of isolation.setup.
const (
	SetupRunning   = "running"   // the command started
	SetupOutput    = "output"    // more of what it printed
	SetupSucceeded = "succeeded" // it exited with status 0
	SetupFailed    = "failed"    // it could not start, failed, timed out or was stopped
)

// IsolationSetupData is the payload of isolation.setup: the project's
// setup command running in an isolated session's new copy
// (docs/isolated-sessions.md). A running event comes first, output events
// carry what it prints as it prints it (Output, the new part only), and
// one succeeded or failed event ends it with the end of its output.
type IsolationSetupData struct {
	Command string `json:"command"`
	State   string `json:"state"`
	Output  string `json:"output,omitempty"`
	// ExitCode is the command's exit status once it ended by itself.
	ExitCode   *int   `json:"exitCode,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs,omitempty"`
	Sandbox    string `json:"sandbox,omitempty"`
}

// IsolationSetup is an isolation.setup event.
func IsolationSetup(d IsolationSetupData) Event { return of(TypeIsolationSetup, d) }

// IsolationAppliedData is the payload of isolation.applied: an isolated
// session's net change was brought into its folder. Applied lists the
// paths written (or removed) there, Conflicts those the folder had changed
// too and that were left as the folder has them.
type IsolationAppliedData struct {
	Folder    string   `json:"folder"`
	Applied   []string `json:"applied"`
	Conflicts []string `json:"conflicts"`
}

// IsolationApplied is an isolation.applied event.
func IsolationApplied(d IsolationAppliedData) Event { return of(TypeIsolationApplied, d) }

// IsolationDiscardedData is the payload of isolation.discarded: an
// isolated session's copy was removed (with a worktree, its branch).
type IsolationDiscardedData struct {
	Kind   string `json:"kind"`
	Dir    string `json:"dir"`
	Branch string `json:"branch,omitempty"`
}

// IsolationDiscarded is an isolation.discarded event.
func IsolationDiscarded(d IsolationDiscardedData) Event { return of(TypeIsolationDiscarded, d) }
