package kernel

import (
	"context"

	"foya/backend/tools"
)

// Recover returns what differs between the session's saved workspace
// index and the disk, for the recovery of a shell command that was
// running when Foya died (see the bash tool's Recover).
func (c capture) Recover(ctx context.Context, sessionID, workdir string) ([]tools.FileChange, error) {
	cp, err := c.k.ws.Recover(ctx, sessionID, workdir)
	return cp.Changes, err
}
