package capture

import (
	"context"
	"fmt"
	"time"

	"foya/backend/tools/shell"
)

// Jobs returns the shell's record of its background commands: each is
// stored with this kernel as its owner while it runs, so that a kernel
// started after this one died gives what it changed to its call
// (RecoverJobs).
func (c *Capture) Jobs() shell.Jobs { return jobs{c} }

type jobs struct{ c *Capture }

func (j jobs) Started(ctx context.Context, sessionID, runID, callID string) (string, error) {
	id := j.c.d.NewID("job")
	return id, j.c.d.Jobs.StartJob(ctx, Job{ID: id, SessionID: sessionID, RunID: runID, CallID: callID,
		Owner: j.c.d.Owner, StartedAt: time.Now()})
}

func (j jobs) Ended(ctx context.Context, id string) error {
	return j.c.d.Jobs.EndJobs(ctx, time.Now(), id)
}

// RecoverJobs gives each session's background commands that were alive
// when their owner died (stored, not ended) what differs between the
// session's saved workspace index and the disk, as unconfirmed File
// Changes of the newest one's call, and marks them ended. It runs after
// the runs' recovery, which gives those differences to a command that was
// running in a run left running; what is left was made after, by
// background commands whose run had ended. Commands of live owners are
// left alone.
func (c *Capture) RecoverJobs(ctx context.Context) error {
	alive, err := c.d.Jobs.AliveJobs(ctx)
	if err != nil {
		return fmt.Errorf("recover background commands: %w", err)
	}
	byOwner := map[string][]Job{}
	var owners []string
	for _, j := range alive {
		if _, ok := byOwner[j.Owner]; !ok {
			owners = append(owners, j.Owner)
		}
		byOwner[j.Owner] = append(byOwner[j.Owner], j)
	}
	for _, o := range owners {
		release, gone := c.d.Gone(o)
		if !gone {
			continue
		}
		err := c.recoverOwnerJobs(ctx, byOwner[o])
		release()
		if err != nil {
			return err
		}
	}
	return nil
}

// recoverOwnerJobs recovers the alive jobs (oldest first) of one owner
// that is gone.
func (c *Capture) recoverOwnerJobs(ctx context.Context, alive []Job) error {
	newest := map[string]Job{}
	var sessions []string
	for _, j := range alive {
		if _, ok := newest[j.SessionID]; !ok {
			sessions = append(sessions, j.SessionID)
		}
		newest[j.SessionID] = j
	}
	for _, sid := range sessions {
		j := newest[sid]
		if err := c.d.RecoverJob(ctx, sid, j.RunID, j.CallID); err != nil {
			return fmt.Errorf("recover background commands: %w", err)
		}
	}
	ids := make([]string, len(alive))
	for i, j := range alive {
		ids[i] = j.ID
	}
	if err := c.d.Jobs.EndJobs(ctx, time.Now(), ids...); err != nil {
		return fmt.Errorf("recover background commands: %w", err)
	}
	return nil
}
