package kernel

import (
	"context"
	"fmt"
)

// WaitWatcher returns once the watcher of a session's workspace has taken
// in every change made there before the call: the next shell command's look
// knows of them, and the session's files among them are marked as changed
// outside Foya (with their file.changed_outside events). For callers that
// change files themselves and then go on, such as tests standing in for a
// person at an editor. It fails when the session's workspace is not watched
// (no run started in it since this kernel opened) or its watcher cannot
// confirm that it has seen everything.
func (k *Kernel) WaitWatcher(ctx context.Context, sessionID string) error {
	if err := k.ws.WaitWatcher(ctx, sessionID); err != nil {
		return fmt.Errorf("wait for the watcher of session %s: %w", sessionID, err)
	}
	return nil
}
