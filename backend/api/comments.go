package api

import "foya/backend/kernel"

// The review panel's comments: the user's words on lines of a change,
// sent to the agent as a turn's prompt.

// Comments returns a session's review comments, oldest first, each with
// its state (open, sent, addressed) worked out now.
func (s *Service) Comments(sessionID string) ([]kernel.Comment, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.Comment, error) { return k.Comments(s.ctx, sessionID) })
}

// AddComment keeps a comment on lines of a change's after side.
func (s *Service) AddComment(c kernel.NewComment) (kernel.Comment, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Comment, error) { return k.AddComment(s.ctx, c) })
}

// EditComment replaces a comment's text.
func (s *Service) EditComment(id, text string) (kernel.Comment, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Comment, error) { return k.EditComment(s.ctx, id, text) })
}

// RemoveComment removes a comment.
func (s *Service) RemoveComment(id string) error {
	return do(s, func(k *kernel.Kernel) error { return k.RemoveComment(s.ctx, id) })
}

// SendComments starts the session's next turn with its unsent comments as
// the user's message, and returns the run's ID once the run is stored;
// the comments are then marked sent. It fails at once (sending nothing)
// when there are none to send or the session has a run going (busy).
func (s *Service) SendComments(sessionID string) (string, error) {
	if err := need("sessionId", sessionID); err != nil {
		return "", err
	}
	return s.start(func(k *kernel.Kernel, started func(string)) error {
		_, err := k.SendComments(s.ctx, kernel.RunOptions{SessionID: sessionID, Started: started})
		return err
	})
}
