package api

import (
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/profiles"
)

// SetModel makes a session's next runs use a provider profile and model,
// recorded in the session's events (session.model); a run already going
// keeps its model. An unknown profile or an empty model is refused
// (invalid). It returns the session as it is now.
func (s *Service) SetModel(c kernel.ModelChoice) (kernel.Session, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Session, error) { return k.SetModel(s.ctx, c) })
}

// Steer sends a message to a session's running run, stored in its history
// before its next model request ("Send now"). It returns once the message
// is stored (delivered) or no run could take it (not delivered: send it as
// the next prompt). The same message ID sent again is stored once.
func (s *Service) Steer(m kernel.SteerMessage) (kernel.SteerResult, error) {
	return call(s, func(k *kernel.Kernel) (kernel.SteerResult, error) { return k.Steer(s.ctx, m) })
}

// ContextWindow says the context window and output limit of the model a
// session's next run asks, and where they come from: the server ("from
// Ollama's /api/show"), the profile's setting, or a guess (source
// default). A server that is down or answers garbage gives the setting or
// the guess, not an error.
func (s *Service) ContextWindow(sessionID string) (profiles.ContextWindow, error) {
	return call(s, func(k *kernel.Kernel) (profiles.ContextWindow, error) {
		if err := need("sessionId", sessionID); err != nil {
			return profiles.ContextWindow{}, err
		}
		return k.ContextWindow(s.ctx, sessionID)
	})
}

// Compact has the model summarise the older part of a session's history
// now: its next request sends the summary, the session's file changes and
// task list (exact) and the newest messages verbatim; the full history
// stays stored. The session must be idle (busy otherwise). A summary that
// fails changes nothing; the error says why.
func (s *Service) Compact(sessionID string) (event.ContextCompactedData, error) {
	return call(s, func(k *kernel.Kernel) (event.ContextCompactedData, error) {
		if err := need("sessionId", sessionID); err != nil {
			return event.ContextCompactedData{}, err
		}
		return k.Compact(s.ctx, kernel.CompactOptions{SessionID: sessionID})
	})
}

// UndoCompaction undoes a session's compaction in force (the id of its
// context.compacted event): the next request is compiled without it. Only
// the latest compaction not undone can be undone (conflict otherwise);
// the session must be idle (busy otherwise).
func (s *Service) UndoCompaction(sessionID, id string) error {
	return do(s, func(k *kernel.Kernel) error {
		if err := need("sessionId", sessionID); err != nil {
			return err
		}
		if err := need("id", id); err != nil {
			return err
		}
		return k.UndoCompaction(s.ctx, sessionID, id)
	})
}
