package workspace

import "context"

// Recover is After for a kernel that starts after a crash: the session's
// index is read from where it was saved, and what differs between it and
// the disk (what the build found against the saved index and what a new
// walk finds) is returned as records with their contents. At that moment
// no command of the session runs, so those are the changes of the
// commands that were running when the process died, and of anyone who
// changed the workspace since (the caller tells Foya's own tools' changes
// from them).
func (m *Manager) Recover(ctx context.Context, sessionID, workdir string) (Capture, error) {
	ix, err := m.built(ctx, sessionID, workdir)
	if err != nil {
		return Capture{}, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.err != nil {
		m.forget(ix)
		return Capture{}, ix.err
	}
	changes := ix.pending
	ix.pending = nil
	// Not saved: the caller stores the records first (see Save); the next
	// look, or Close, saves.
	more, err := ix.sync(ctx, false, false)
	if err != nil {
		return Capture{}, err
	}
	return ix.capture(ctx, append(changes, more...)), nil
}
