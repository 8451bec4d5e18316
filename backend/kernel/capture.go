package kernel

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/capture"
	"foya/backend/engine"
	"foya/backend/llm"
	"foya/backend/store"
	"foya/backend/tools/files"
	"foya/backend/tools/shell"
)

// The kernel's side of the capture's Deps (wired in Open): the store's
// stale-read records and jobs in the capture's types, and the engine and
// the shell, which are made after the capture.

func (r readLog) FileReads(ctx context.Context, sessionID string) ([]files.Read, error) {
	list, err := r.st.FileReads(ctx, sessionID)
	return mapSlice(list, readOf), err
}

func (r readLog) MarkFileReadOutside(ctx context.Context, sessionID, path string) (bool, error) {
	return r.st.MarkFileReadOutside(ctx, sessionID, path)
}

// engineOf is the kernel's engine as the capture's Timeline.
type engineOf struct{ k *Kernel }

func (e engineOf) Record(ctx context.Context, sessionID string, evs ...llm.Event) error {
	return e.k.eng.Record(ctx, sessionID, evs...)
}

func (e engineOf) RecordCommit(ctx context.Context, sessionID string, c llm.Commit) error {
	return e.k.eng.RecordCommit(ctx, sessionID, c)
}

func (e engineOf) Commit(ctx context.Context, sessionID string, c llm.Commit) ([]llm.Event, error) {
	return e.k.eng.Commit(ctx, sessionID, c)
}

func (e engineOf) LockChanges(ctx context.Context, sessionID string) (func(), error) {
	return e.k.eng.LockChanges(ctx, sessionID)
}

// shellOf is the kernel's shell as the capture's Commands.
type shellOf struct{ k *Kernel }

func (s shellOf) Live(sessionID string) *shell.Live {
	if s.k.shell == nil {
		return nil
	}
	return s.k.shell.Live(sessionID)
}

func (s shellOf) List(sessionID string) []shell.Background {
	if s.k.shell == nil {
		return nil
	}
	return s.k.shell.List(sessionID)
}

// jobStore keeps the capture's background commands in the store.
type jobStore struct{ st *store.Store }

func (j jobStore) StartJob(ctx context.Context, job capture.Job) error {
	return j.st.StartJob(ctx, store.Job{ID: job.ID, SessionID: job.SessionID, RunID: job.RunID, CallID: job.CallID,
		Owner: job.Owner, StartedAt: job.StartedAt})
}

func (j jobStore) EndJobs(ctx context.Context, at time.Time, ids ...string) error {
	return j.st.EndJobs(ctx, at, ids...)
}

func (j jobStore) AliveJobs(ctx context.Context) ([]capture.Job, error) {
	list, err := j.st.AliveJobs(ctx)
	return mapSlice(list, func(j store.Job) capture.Job {
		return capture.Job{ID: j.ID, SessionID: j.SessionID, RunID: j.RunID, CallID: j.CallID, Owner: j.Owner,
			StartedAt: j.StartedAt}
	}), err
}

// gone claims the owner that wrote id for the recovery of its background
// commands: when it is gone (claim), or when its lock file is
// (lockRemoved). release keeps the lock file; the owners' sweep removes
// it.
func (o *owner) gone(id string) (release func(), gone bool) {
	rel, gone := o.claim(id)
	if !gone && !o.lockRemoved(id) {
		return nil, false
	}
	return func() { rel(false) }, true
}

// lockRemoved reports whether the lock file of the owner that wrote id is
// gone: only whoever held its lock removes it (a live owner holds its own
// for as long as it lives), so the owner is gone too. The runs' recovery
// removes the lock of an owner all of whose runs it recovered.
func (o *owner) lockRemoved(id string) bool {
	name, _, _ := strings.Cut(id, "~")
	if !strings.HasPrefix(id, ownerPrefix) || !validOwnerName(name) {
		return false
	}
	_, err := os.Lstat(filepath.Join(o.dir, name+".lock"))
	return errors.Is(err, fs.ErrNotExist)
}

// The store answers the capture's looks by path and by time (so that a
// look costs what it finds, not the session's history).
var _ capture.RecordsByPath = (*store.Store)(nil)

// The engine reads a call's approval mode alone, not the whole session.
var _ engine.ModeStore = (*store.Store)(nil)
