package kernel

import (
	"time"

	"foya/backend/llm"
)

// Isolation choices of NewSession.Isolation (issue 29,
// docs/isolated-sessions.md).
const (
	// IsolationNone works in the folder itself.
	IsolationNone = ""
	// IsolationAuto is a git worktree for a folder in a repository with a
	// commit, else a copy.
	IsolationAuto     = "auto"
	IsolationWorktree = "worktree"
	IsolationCopy     = "copy"
)

// Isolation is the isolated copy an isolated session works in: a git
// worktree on a branch of its own, or a copy of the folder, in a folder
// of Foya's beside its data folder. Session.Workdir is the copy,
// Session.ProjectID the folder it was made from.
type Isolation struct {
	// Kind is "worktree" or "copy".
	Kind string `json:"kind"`
	// Dir is the copy's own folder (the worktree or the copied folder is
	// in it); Folder is where Apply writes: the session's folder, or for a
	// worktree the top of its repository.
	Dir    string `json:"dir"`
	Folder string `json:"folder"`
	// Repo, Branch and Base are a worktree's repository, branch and base
	// commit (the commit it started at, moved by each apply).
	Repo   string `json:"repo,omitempty"`
	Branch string `json:"branch,omitempty"`
	Base   string `json:"base,omitempty"`
	// Uncommitted lists (at most 200) the paths of the repository's
	// uncommitted changes when the worktree was made: the worktree starts
	// at the last commit without them, and they stay in the folder.
	Uncommitted []string `json:"uncommitted,omitempty"`
	// Note says what the copy lacks (submodules not checked out).
	Note string `json:"note,omitempty"`
	// Setup is the project's setup command, run in the copy when it was
	// made; its output is in the session's isolation.setup events.
	Setup string `json:"setup,omitempty"`
	// DiscardedAt is when the copy was removed (DiscardSession), absent
	// while it is there: the session's history stays, and it cannot run
	// again.
	DiscardedAt time.Time `json:"discardedAt,omitzero"`
}

func isolationOf(i *llm.Isolation) *Isolation {
	if i == nil {
		return nil
	}
	return &Isolation{Kind: i.Kind, Dir: i.Dir, Folder: i.Folder, Repo: i.Repo, Branch: i.Branch, Base: i.Base,
		Uncommitted: i.Uncommitted, Note: i.Note, Setup: i.Setup, DiscardedAt: i.DiscardedAt}
}

func (i *Isolation) record() *llm.Isolation {
	if i == nil {
		return nil
	}
	return &llm.Isolation{Kind: i.Kind, Dir: i.Dir, Folder: i.Folder, Repo: i.Repo, Branch: i.Branch, Base: i.Base,
		Uncommitted: i.Uncommitted, Note: i.Note, Setup: i.Setup, DiscardedAt: i.DiscardedAt}
}

// ApplyOptions ask for an isolated session's net change to be brought
// into its folder.
type ApplyOptions struct {
	SessionID string `json:"sessionId"`
	// Take lists conflicting paths (from an earlier ApplyResult) where the
	// session's version is to be written over the folder's all the same.
	Take []string `json:"take,omitempty"`
	// Preview asks what applying would do now, writing nothing: Applied
	// lists what would be written, Conflicts what would be left (Take is
	// ignored).
	Preview bool `json:"preview,omitempty"`
}

// ApplyConflict is a file both the folder and the session changed since
// the base, each its own way: the folder's is left as it is.
type ApplyConflict struct {
	Path string `json:"path"`
	// Folder and Session say what each side did to the file since the
	// base: "added", "changed" or "deleted".
	Folder  string `json:"folder"`
	Session string `json:"session"`
	// FolderDiff and SessionDiff are unified diffs from the base to the
	// folder's file and to the session's.
	FolderDiff  string `json:"folderDiff"`
	SessionDiff string `json:"sessionDiff"`
	Binary      bool   `json:"binary"`
}

// ApplyResult is what ApplySession did. Paths are relative to Folder,
// with forward slashes.
type ApplyResult struct {
	SessionID string `json:"sessionId"`
	Folder    string `json:"folder"`
	// Applied lists the files written into the folder (or removed from
	// it) as the session has them; Same those the folder had as the
	// session has them already.
	Applied []string `json:"applied"`
	Same    []string `json:"same"`
	// Conflicts are left as the folder has them; ApplySession with their
	// paths in Take writes the session's versions.
	Conflicts []ApplyConflict `json:"conflicts"`
}

// SessionCopy is an isolated copy on disk (Settings and foya doctor list
// them with their disk use).
type SessionCopy struct {
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
	Dir       string `json:"dir"`
	// Folder is where the copy was made from; Branch a worktree's branch.
	Folder string `json:"folder"`
	Branch string `json:"branch,omitempty"`
	// Bytes is the disk the copy takes, as du counts it: a file cloned
	// (copy-on-write) counts whole though it shares its blocks until
	// changed, and a worktree's git objects are its repository's.
	Bytes int64 `json:"bytes"`
	// Orphan says no session is recorded for it: the next start of Foya
	// removes it, unless a running Foya is making it right now.
	Orphan bool `json:"orphan"`
}
