package event

import "time"

// RunStatus is the state of a run.
type RunStatus string

const (
	RunStatusRunning     RunStatus = "running"
	RunStatusCompleted   RunStatus = "completed"
	RunStatusFailed      RunStatus = "failed"
	RunStatusCancelled   RunStatus = "cancelled"
	RunStatusInterrupted RunStatus = "interrupted"
)

// Terminal reports whether the run has ended.
func (s RunStatus) Terminal() bool { return s != RunStatusRunning }

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

// Usage counts the tokens of one model step, as the provider reported them.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
	}
}

// File change operations (FileChange.Op).
const (
	OpCreate = "create"
	OpWrite  = "write"
	OpEdit   = "edit"
	OpDelete = "delete"
	OpRevert = "revert"
	// OpRename and OpChmod are recorded for shell commands only: a
	// file that appeared where one with the same content and inode went
	// (RenamedFrom names it), and a file whose mode alone changed.
	OpRename = "rename"
	OpChmod  = "chmod"
)

// Denial kinds (Denial.Kind), as sandbox.DenialKind.
const (
	DenialWrite   = "write"
	DenialNetwork = "network"
	DenialHidden  = "hidden"
	DenialSocket  = "socket"
	DenialOther   = "other"
)

// Denial is one thing the sandbox refused a shell command, in words
// (sandbox.Denial): read from the command's output, so a hint, not a
// record. Kind is one of the Denial constants; Path the refused path
// (write, hidden, socket), Host the refused end point, "host:port" or
// "host" (network, when the message names one); Text one sentence for
// people and the model. Allow is what the user may allow for it, for the
// session or for the next command: "write" (Folder made writable) or
// "network" (the network on, the files still confined); empty when nothing
// may be (a hidden path, a socket, a protected folder such as .git).
type Denial struct {
	Allow  string `json:"allow,omitempty"`
	Folder string `json:"folder,omitempty"`
	Host   string `json:"host,omitempty"`
	Kind   string `json:"kind"`
	Path   string `json:"path,omitempty"`
	Text   string `json:"text"`
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
	// Op is one of the Op constants: create, write, edit, delete, revert.
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
	RevertOf string `json:"revertOf,omitempty"`
	// OfHunks, on a revert of some hunks, are the hunks of RevertOf's diff
	// it reverted (numbered from 1); empty when it reverted the whole
	// change.
	OfHunks []int `json:"ofHunks,omitempty"`
	// Hunks, RevertedHunks, Reverts and Reverted say what of this change
	// is undone now. They are not stored: the kernel works them out from
	// the change and its reverts each time it lists changes, so every
	// window shows the same. Hunks counts the hunks a revert may pick one
	// by one (0 for a folder, binary, deletion or empty diff).
	Hunks int `json:"hunks,omitempty"`
	// RevertedHunks are the hunks reverted now, in order.
	RevertedHunks []int `json:"revertedHunks,omitempty"`
	// Reverts are the reverts of this change that are in force (not
	// undone), oldest first; undoing the last one undoes the last step.
	Reverts []string `json:"reverts,omitempty"`
	// Reverted is true when the whole change is undone now.
	Reverted bool `json:"reverted,omitempty"`
	// Reviewed is true when a person marked the change as reviewed (and
	// has not unmarked it since). Like Hunks it is not part of the stored
	// change: the kernel reads it from the review marks each time it lists
	// changes, and a tool.end's or file.captured's new change is never
	// reviewed.
	Reviewed bool `json:"reviewed,omitempty"`
	// Unconfirmed marks a change Foya could not confirm: it was recorded
	// when Foya started again after stopping in the middle of the call
	// that made it (spec X2), from what the disk showed then.
	Unconfirmed bool `json:"unconfirmed,omitempty"`
	// RenamedFrom is the path a renamed file came from (Op rename); that
	// path's deletion is a change of its own.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// NotRestorable says why Foya kept no copy of the before content (a
	// shell command changed a file too large, ignored, unreadable or
	// changing while read): the change is recorded with its digests, and
	// revert reports it instead of restoring it. Empty when restorable.
	NotRestorable string    `json:"notRestorable,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
}

// Instructions statuses.
const (
	InstructionsUsed    = "used"    // the file is in the system prompt
	InstructionsSkipped = "skipped" // a file is there but was not used; Skipped says why
	InstructionsNone    = "none"    // the working directory has neither file
)

// Instructions says which project instructions file (AGENTS.md, else
// CLAUDE.md, at the root of the working directory) a run put into its
// system prompt, or why none. It is the "instructions" field of the
// run.start event.
type Instructions struct {
	Status string `json:"status"`
	// File is the file's name in the working directory; empty for none.
	File string `json:"file,omitempty"`
	// Size is the file's size in bytes; Bytes the length of the text the
	// system prompt holds (before the truncation notice).
	Size  int64 `json:"size,omitempty"`
	Bytes int   `json:"bytes,omitempty"`
	// Truncated says the file was cut at the bound, with a notice saying so.
	Truncated bool `json:"truncated,omitempty"`
	// InvalidUTF8 says bytes that are not UTF-8 were replaced with U+FFFD.
	InvalidUTF8 bool `json:"invalidUtf8,omitempty"`
	// Skipped is why the file was not used, worded for the user.
	Skipped string `json:"skipped,omitempty"`
}

// Action mirrors approval.Action: what a tool wants to do.
type Action struct {
	// Kind is one of the Kind constants.
	Kind string `json:"kind"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Paths are the absolute paths involved, if any.
	Paths []string `json:"paths,omitempty"`
	// Command is the shell command, as the model wrote it.
	Command string `json:"command,omitempty"`
	// Host is the network host, for a fetch.
	Host string `json:"host,omitempty"`
	// Addresses are, for fetch_private, the loopback or private addresses
	// the fetch would connect to.
	Addresses []string `json:"addresses,omitempty"`
	// ReadOnly is set for MCP tools their server annotates read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
	// MCPServer and MCPTool name, for an MCP call, the server and the
	// tool's own name on it (Tool is its mcp__server__tool form).
	MCPServer string `json:"mcpServer,omitempty"`
	MCPTool   string `json:"mcpTool,omitempty"`
	// Parsed is Command as the approval policy read it to decide, so that
	// the person who answers sees what it would run without a second
	// parser; absent for an action with no command, and in requests
	// stored before it was carried.
	Parsed *ParsedCommand `json:"parsed,omitempty"`
}

// ParsedCommand is a shell command as the approval policy reads it
// (approval.Command).
type ParsedCommand struct {
	// Simple lists each simple command it would run, in order, with its
	// words unquoted: those behind &&, ;, pipes, subshells and $(...),
	// inside sh -c and eval strings, and behind wrappers (sudo, timeout,
	// xargs, find -exec ...). A word that is not a plain literal (a
	// variable, a substitution, a pattern) is kept as written.
	Simple [][]string `json:"simple"`
	// Deletes says what would delete files for good (rm, git clean ...).
	Deletes []string `json:"deletes"`
	// Opaque says why Foya cannot tell what part of it runs; empty when it
	// can tell.
	Opaque []string `json:"opaque"`
}

// Action kinds (Action.Kind, Grant.Kind), as approval.Kind.
const (
	KindRead                 = "read"
	KindReadOutside          = "read_outside"
	KindWrite                = "write"
	KindWriteProtected       = "write_protected"
	KindDelete               = "delete"
	KindDeleteProtected      = "delete_protected"
	KindDeleteRoot           = "delete_root"
	KindShell                = "shell"
	KindShellEscalate        = "shell_escalate"
	KindShellWeakSandbox     = "shell_weak_sandbox"
	KindShellPermanentDelete = "shell_permanent_delete"
	KindFetch                = "fetch"
	KindFetchPrivate         = "fetch_private"
	KindMCP                  = "mcp"
	KindSubAgent             = "subagent"
	// KindHook is a call a hook asked the person about (approval.Hook):
	// not a row of the mode table, so not in Kinds.
	KindHook = "hook"
)

// Kinds lists every action kind, in approval.Kinds' order.
var Kinds = []string{KindRead, KindReadOutside, KindWrite, KindWriteProtected, KindDelete, KindDeleteProtected,
	KindDeleteRoot, KindShell, KindShellEscalate, KindShellWeakSandbox, KindShellPermanentDelete, KindFetch,
	KindFetchPrivate, KindMCP, KindSubAgent}

// Ask mirrors approval.Request: what a tool asks the approval gateway.
type Ask struct {
	CallID string `json:"callId"`
	Action Action `json:"action"`
	// Why is a one-line reason the user reads.
	Why string `json:"why"`
	// Preview is the diff a write would make, the command a shell call
	// would run.
	Preview string `json:"preview,omitempty"`
}

// Grant mirrors approval.Grant: a remembered "allow for this session",
// scoped to one kind of action and one of a tool, a command prefix, a host,
// a folder.
type Grant struct {
	// Kind is one of the Kind constants.
	Kind   string   `json:"kind"`
	Tool   string   `json:"tool,omitempty"`
	Prefix []string `json:"prefix,omitempty"`
	Host   string   `json:"host,omitempty"`
	Folder string   `json:"folder,omitempty"`
}

// Approval answers (Answer.Choice), as approval.Choice.
const (
	ChoiceAllowOnce    = "allow_once"
	ChoiceAllowSession = "allow_session"
	ChoiceDeny         = "deny"
)

// Answer mirrors approval.Answer: a person's answer.
type Answer struct {
	// Choice is one of the Choice constants.
	Choice string `json:"choice"`
	// Scope is the grant to remember with allow_session.
	Scope *Grant `json:"scope,omitempty"`
	// Message is an optional note for the model with deny.
	Message string `json:"message,omitempty"`
}

// Approval modes (SessionModeData, RunStartData.ApprovalMode), as
// approval.Mode.
const (
	ModeManual     = "manual"
	ModeAuto       = "auto"
	ModeFullAccess = "full_access"
)

// Modes lists every approval mode, in approval.Modes' order.
var Modes = []string{ModeManual, ModeAuto, ModeFullAccess}

// Choices lists every answer choice.
var Choices = []string{ChoiceAllowOnce, ChoiceAllowSession, ChoiceDeny}

// TodoStatus is the state of one item of a session's task list.
type TodoStatus string

const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
)
