package kernel

import (
	"context"
	"fmt"
)

// WatchSession watches a session's working directory until stop is called
// or ctx ends (see capture.Capture.Watch): when a file the session read or
// changed is changed by something other than Foya, its stale-read record
// is marked and a file.changed_outside event is stored and published.
// When the watcher cannot cover the whole workspace, a file.watch_degraded
// event says why and the session's files are checked every
// capture.PollEvery instead.
func (k *Kernel) WatchSession(ctx context.Context, sessionID string) (stop func(), err error) {
	sess, err := k.store.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return k.capture.Watch(ctx, sessionID, sess.Workdir)
}

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
