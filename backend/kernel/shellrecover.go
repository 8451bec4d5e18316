package kernel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"foya/backend/engine"
	"foya/backend/store"
	"foya/backend/tools"
)

// Recover returns what differs between the session's saved workspace
// index and the disk, for the recovery of a shell command that was
// running when Foya died (see the bash tool's Recover).
func (c capture) Recover(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, error) {
	cp, err := c.k.ws.Recover(ctx, sessionID, workdir)
	return cp.Changes, err
}

// jobs stores the shell's background commands with this kernel as their
// owner (shell.Jobs).
type jobs struct{ k *Kernel }

func (j jobs) Started(ctx context.Context, sessionID, runID, callID string) (string, error) {
	id := engine.NewID("job")
	return id, j.k.store.StartJob(ctx, store.Job{ID: id, SessionID: sessionID, RunID: runID, CallID: callID,
		Owner: j.k.owner.id, StartedAt: time.Now()})
}

func (j jobs) Ended(ctx context.Context, id string) error {
	return j.k.store.EndJobs(ctx, time.Now(), id)
}

// recoverJobs gives each session's background commands that were alive
// when their owner died (stored, not ended) what differs between the
// session's saved workspace index and the disk, as unconfirmed File
// Changes of the newest one's call, and marks them ended. It runs after
// the runs' recovery, which gives those differences to a command that was
// running in a run left running; what is left was made after, by
// background commands whose run had ended (issue 16 item 1). Commands of
// live owners are left alone.
func (k *Kernel) recoverJobs(ctx context.Context) error {
	alive, err := k.store.AliveJobs(ctx)
	if err != nil {
		return fmt.Errorf("recover background commands: %w", err)
	}
	byOwner := map[string][]store.Job{}
	var owners []string
	for _, j := range alive {
		if _, ok := byOwner[j.Owner]; !ok {
			owners = append(owners, j.Owner)
		}
		byOwner[j.Owner] = append(byOwner[j.Owner], j)
	}
	for _, o := range owners {
		release, gone := k.owner.claim(o)
		if !gone && !k.owner.lockRemoved(o) {
			continue
		}
		err := k.recoverOwnerJobs(ctx, byOwner[o])
		release(false) // the owners' sweep removes its lock file
		if err != nil {
			return err
		}
	}
	return nil
}

// recoverOwnerJobs recovers the alive jobs (oldest first) of one owner
// that is gone.
func (k *Kernel) recoverOwnerJobs(ctx context.Context, alive []store.Job) error {
	newest := map[string]store.Job{}
	var sessions []string
	for _, j := range alive {
		if _, ok := newest[j.SessionID]; !ok {
			sessions = append(sessions, j.SessionID)
		}
		newest[j.SessionID] = j
	}
	for _, sid := range sessions {
		j := newest[sid]
		if _, err := k.eng.RecoverJob(ctx, sid, j.RunID, j.CallID); err != nil {
			return fmt.Errorf("recover background commands: %w", err)
		}
	}
	ids := make([]string, len(alive))
	for i, j := range alive {
		ids[i] = j.ID
	}
	if err := k.store.EndJobs(ctx, time.Now(), ids...); err != nil {
		return fmt.Errorf("recover background commands: %w", err)
	}
	return nil
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
