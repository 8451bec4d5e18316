package capture

import (
	"context"
	"time"

	"foya/backend/llm"
	"foya/backend/tools/files"
	"foya/backend/tools/shell"
	"foya/backend/workspace"
)

// Records are a session's File Changes and their kept contents (the
// store).
type Records interface {
	// FileChanges returns the session's File Changes, oldest first.
	FileChanges(ctx context.Context, sessionID string) ([]llm.FileChange, error)
	// Blob returns the content kept under a sha256.
	Blob(ctx context.Context, sha string) ([]byte, error)
}

// RecordsByPath is what a Records may also offer so that a look costs what
// it finds rather than the session's whole history (the store offers it;
// without it, Capture reads every File Change and picks).
type RecordsByPath interface {
	// OwnChangesSince returns the session's File Changes stored at or
	// after since that no shell command made (Tool is not "bash"),
	// oldest first.
	OwnChangesSince(ctx context.Context, sessionID string, since time.Time) ([]llm.FileChange, error)
	// LastFileChanges returns the session's newest File Change of each of
	// paths that has one, by path.
	LastFileChanges(ctx context.Context, sessionID string, paths []string) (map[string]llm.FileChange, error)
}

// Reads are the stale-read guard's records of the files a session read or
// wrote (the store).
type Reads interface {
	// GetRead returns the session's record of path, and whether there is
	// one.
	GetRead(ctx context.Context, sessionID, path string) (files.Read, bool, error)
	// FileReads returns all the session's records.
	FileReads(ctx context.Context, sessionID string) ([]files.Read, error)
	// MarkFileReadOutside marks the session's record of path as changed
	// since it was made, reporting whether this call marked it first.
	MarkFileReadOutside(ctx context.Context, sessionID, path string) (first bool, err error)
}

// Timeline is the engine's ordering point: every event and record of a
// session is stored and published through it, and its change lock keeps
// a look at the workspace and the records of what it found together.
type Timeline interface {
	Record(ctx context.Context, sessionID string, evs ...llm.Event) error
	// RecordCommit stores a whole commit (events with the state they
	// stand for, such as read marks) through the ordering point.
	RecordCommit(ctx context.Context, sessionID string, c llm.Commit) error
	Commit(ctx context.Context, sessionID string, c llm.Commit) ([]llm.Event, error)
	LockChanges(ctx context.Context, sessionID string) (unlock func(), err error)
}

// Commands are the session's background commands (the shell).
type Commands interface {
	// Live returns the background command a look gives what changed to,
	// nil when none is live.
	Live(sessionID string) *shell.Live
	// List returns the session's background commands.
	List(sessionID string) []shell.Background
}

// Job is a background command on record with the kernel that owns it, so
// that a kernel started after its owner died recovers what it changed.
type Job struct {
	ID, SessionID, RunID, CallID, Owner string
	StartedAt                           time.Time
}

// JobStore keeps the background commands on record (the store).
type JobStore interface {
	StartJob(ctx context.Context, j Job) error
	EndJobs(ctx context.Context, at time.Time, ids ...string) error
	// AliveJobs returns the commands started and not ended, oldest first.
	AliveJobs(ctx context.Context) ([]Job, error)
}

// Deps is what a Capture is handed: the consumer's view of the store, the
// engine and the shell, which it never imports.
type Deps struct {
	// Workspace keeps the sessions' workspace indexes.
	Workspace *workspace.Manager
	Records   Records
	Reads     Reads
	Timeline  Timeline
	// Commands is the shell, made after the Capture it is handed: it is
	// called only once commands run.
	Commands Commands
	// Running reports whether a run of the session is going.
	Running func(sessionID string) bool
	// Mask hides known secrets in a diff before it is stored.
	Mask func(string) string
	// NewID makes a record's ID from a prefix ("chg", "job").
	NewID func(prefix string) string
	// Skip are Foya's own files (its database and side files, the
	// workspace indexes), as given and resolved: the watcher passes over
	// changes at or below them, which are neither a command's nor the
	// user's.
	Skip []string
	// Watch starts a session's watcher; nil means files.Watch (tests give
	// one that fails).
	Watch func(root string, opts files.WatchOptions) (*files.Watcher, error)

	// Jobs keeps the background commands on record, with Owner (this
	// kernel's owner ID) as their owner.
	Jobs  JobStore
	Owner string
	// Gone claims the owner that wrote an ID if it is gone, reporting
	// whether it is; release gives the claim up once its commands are
	// recovered.
	Gone func(owner string) (release func(), gone bool)
	// RecoverJob gives a session's background command (its run and call)
	// what differs between the session's saved workspace index and the
	// disk, as unconfirmed File Changes (engine.RecoverJob).
	RecoverJob func(ctx context.Context, sessionID, runID, callID string) error
}
