package kernel

import "time"

// Hooks are the hooks files of a workspace, as Foya reads them at a
// turn's start (docs/hooks.md): the user's own and the project's.
type Hooks struct {
	// Workdir is the workspace's real path, which approvals are keyed by.
	Workdir string    `json:"workdir"`
	User    HooksFile `json:"user"`
	Project HooksFile `json:"project"`
}

// HooksFile is one hooks file and whether its hooks run.
type HooksFile struct {
	// Source is "user" or "project".
	Source string `json:"source"`
	File   string `json:"file"`
	// Status is one of the Hooks* statuses.
	Status string `json:"status"`
	// Content is the file's exact text and Hash its sha256 (hex): what
	// TrustProjectHooks approves.
	Content string `json:"content,omitempty"`
	Hash    string `json:"hash,omitempty"`
	// Error says why the file's hooks do not run (HooksInvalid,
	// HooksExposed).
	Error string `json:"error,omitempty"`
	// ApprovedAt is when this content was approved (a project's file).
	ApprovedAt *time.Time `json:"approvedAt,omitempty"`
	Hooks      []HookInfo `json:"hooks"`
}

// HookInfo is one hook of a file.
type HookInfo struct {
	Name  string `json:"name"`
	Event string `json:"event"`
	// Match is the glob of tool names; "" for every tool.
	Match          string `json:"match,omitempty"`
	Command        string `json:"command"`
	TimeoutSeconds int    `json:"timeoutSeconds"`
	Sandbox        bool   `json:"sandbox"`
}

// Statuses of a hooks file (HooksFile.Status).
const (
	HooksNone       = "none"       // no file
	HooksActive     = "active"     // the user's file: its hooks run
	HooksApproved   = "approved"   // a project's file whose exact content was approved: its hooks run
	HooksUnapproved = "unapproved" // a project's file never approved: its hooks do not run
	HooksChanged    = "changed"    // a project's file approved once, with other content: its hooks do not run
	HooksInvalid    = "invalid"    // cannot be read or parsed: no hook of it runs
	HooksExposed    = "exposed"    // the user's file lies in a session's workspace: its hooks do not run
)
