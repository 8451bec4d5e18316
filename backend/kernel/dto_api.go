package kernel

import (
	"time"

	"foya/backend/engine"
)

// The values front ends send to and get from kernel methods besides the
// records of dto.go: kept in dto*.go files so the TypeScript generator
// reads every type of the API, and nothing else.

// Info describes a running kernel for front ends.
type Info struct {
	Version string `json:"version"`
	// Commit and Date are the commit the binary was built from and its
	// date, "" when unknown (see BuildInfo).
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	DataDir string `json:"dataDir"`
	DBPath  string `json:"dbPath"`
	// ReadOnly says why the database was opened read-only (a read-only
	// file system, a file this user may not write), "" when it is
	// writable: sessions can be read, nothing can be changed.
	ReadOnly string `json:"readOnly,omitempty"`
}

// NewSession describes a session to create.
type NewSession struct {
	// Workdir is the folder to work in (it must exist).
	Workdir string `json:"workdir"`
	// ApprovalMode is "manual", "auto" or "full_access" (also written
	// "full-access" or "Full Access").
	ApprovalMode string `json:"approvalMode"`
	// Provider and Model are a provider profile and its model; empty
	// means the default profile when the session first runs.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Title is the user's name for the session; without one it is called
	// "New session" until its first run names it after its prompt.
	Title string `json:"title,omitempty"`
	// Tools is a tool allowlist; nil allows every tool.
	Tools []string `json:"tools,omitempty"`
	// Isolation is where the session works (docs/isolated-sessions.md):
	// "" in the folder itself, "auto" in a git worktree when the folder is
	// in a repository with a commit else in a copy, "worktree", or "copy".
	Isolation string `json:"isolation,omitempty"`
	// Branch is an isolated worktree's new branch; "foya/<session ID>"
	// when empty. A branch that exists already is refused (conflict).
	Branch string `json:"branch,omitempty"`
}

// ResourceRef names an MCP resource a user attaches to a message: a
// server (a project's server of the session's folder wins over the
// user's of the same name) and the resource's URI.
type ResourceRef struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// CompactOptions ask for a session's history to be compacted now.
type CompactOptions struct {
	SessionID string `json:"sessionId"`
	// Model summarises; nil means the session's provider profile and
	// model, as for a run. Go callers only.
	Model engine.Model `json:"-"`
	// Window is what is known of Model's context window. Go callers only.
	Window engine.Window `json:"-"`
}

// RunOptions ask for one turn.
type RunOptions struct {
	SessionID string `json:"sessionId"`
	Prompt    string `json:"prompt"`
	// Model is the model to ask; nil means the one of the session's
	// provider profile and model (see profiles.Service.Client), so a front end
	// need not know about providers. Go callers only.
	Model engine.Model `json:"-"`
	// Window is what is known of Model's context window; unset, a run
	// given its own Model checks nothing against a window (a run of the
	// session's profile asks the profile). Go callers only.
	Window engine.Window `json:"-"`
	// MaxSteps bounds the model steps of this turn; 0 means the
	// run.max_steps setting, else engine.DefaultMaxSteps.
	MaxSteps int `json:"maxSteps,omitempty"`
	// Started, if set, is called with the run's ID once it is stored.
	// Go callers only.
	Started func(runID string) `json:"-"`
	// Resources are MCP resources attached to the message (spec M3):
	// their text, bounded by MaxAttachedText, goes into the user message
	// after the prompt and their images as image parts; stored with it.
	Resources []ResourceRef `json:"resources,omitempty"`
	// Files are files and folders of the session's folder the message
	// mentions (@path, relative, forward slashes; at most MaxMentioned):
	// each one's content, bounded as one read is, goes into the user
	// message after the prompt. One that is gone fails the message before
	// its run starts.
	Files []string `json:"files,omitempty"`
	// Images are images stored with AddImage (at most
	// MaxImagesPerMessage): they go with the user message as image parts,
	// to a model that takes images; one that does not gets a note that
	// each was left out. Only ID, ThumbID and Name are read: the rest is
	// read again from the store.
	Images []PastedImage `json:"images,omitempty"`
}

// RevertRequest says what to revert: exactly one of ChangeIDs (with Hunks,
// exactly one change), RunID or ToChangeID.
type RevertRequest struct {
	// ChangeIDs are changes to revert, whatever order they are given in:
	// they are undone newest first.
	ChangeIDs []string `json:"changeIds,omitempty"`
	// RunID reverts every change of a run ("undo this turn").
	RunID string `json:"runId,omitempty"`
	// ToChangeID restores the session to just after this change: every
	// later change is undone, newest first.
	ToChangeID string `json:"toChangeId,omitempty"`
	// Hunks, with one change, reverts only these hunks of its diff
	// (numbered from 1, in the diff's order).
	Hunks []int `json:"hunks,omitempty"`
	// Force overwrites what is there now instead of stopping at a
	// conflict; what it overwrites is kept as the revert's before content.
	Force bool `json:"force,omitempty"`
	// DryRun computes the revert without doing it: the result holds the
	// revert changes it would record (without IDs or trash locations) or
	// the conflicts that would stop it, and nothing is changed on disk or
	// in the store.
	DryRun bool `json:"dryRun,omitempty"`
}

// RevertResult is what Revert did: the revert changes it recorded, in the
// order it made them, or the conflicts that stopped it (then nothing was
// changed). For a dry run it is what Revert would do, and DryRun is set.
type RevertResult struct {
	Reverted  []Change   `json:"reverted"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
	DryRun    bool       `json:"dryRun,omitempty"`
}

// ProjectRules is a project's rules file as the user reviews it.
type ProjectRules struct {
	// Workdir is the workspace's real path, which approvals are keyed by.
	Workdir string `json:"workdir"`
	// File is the rules file's path.
	File string `json:"file"`
	// Status is one of RulesNone, RulesApproved, RulesUnapproved,
	// RulesChanged and RulesInvalid.
	Status string `json:"status"`
	// Content is the file's exact text and Hash its sha256 (hex): what
	// TrustProjectRules approves.
	Content string `json:"content,omitempty"`
	Hash    string `json:"hash,omitempty"`
	// Error says why the file cannot be used (RulesInvalid).
	Error string `json:"error,omitempty"`
	// ApprovedAt is when this content was approved (RulesApproved).
	ApprovedAt *time.Time `json:"approvedAt,omitempty"`
	// Allow, Ask and Deny are the parsed rules.
	Allow []Rule `json:"allow,omitempty"`
	Ask   []Rule `json:"ask,omitempty"`
	Deny  []Rule `json:"deny,omitempty"`
}

// Error codes, as Code returns them.
const (
	CodeNotFound    = "not_found"
	CodeInvalid     = "invalid"
	CodeConflict    = "conflict"
	CodeBusy        = "busy"
	CodeUnavailable = "unavailable"
	CodeInternal    = "internal"
)

// Statuses of a project's rules file.
const (
	RulesNone       = "none"       // no .foya/permissions.json
	RulesApproved   = "approved"   // this exact content was approved
	RulesUnapproved = "unapproved" // never approved
	RulesChanged    = "changed"    // approved once, with other content
	RulesInvalid    = "invalid"    // cannot be read or parsed
)
