package api

import "foya/backend/kernel"

// Methods of the background-commands panel that methods.go lacks.

// BackgroundOutput returns a session's background command with its last
// lines of output (0 for the default count; the kernel bounds both lines
// and bytes). Reading it does not change what the model's bash_output
// shows next.
func (s *Service) BackgroundOutput(sessionID, id string, lines int) (kernel.BackgroundOutput, error) {
	return call(s, func(k *kernel.Kernel) (kernel.BackgroundOutput, error) {
		if err := need("sessionId", sessionID); err != nil {
			return kernel.BackgroundOutput{}, err
		}
		if err := need("id", id); err != nil {
			return kernel.BackgroundOutput{}, err
		}
		return k.BackgroundOutput(sessionID, id, lines)
	})
}
