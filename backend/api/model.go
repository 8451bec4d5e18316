package api

import (
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
