package api

import "foya/backend/kernel"

// The sandbox grants of a session: what the user allowed its sandboxed
// commands beyond the workspace, from a tool card's denials or the list.

// SandboxGrants lists a session's sandbox grants, oldest first.
func (s *Service) SandboxGrants(sessionID string) ([]kernel.SandboxGrant, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.SandboxGrant, error) {
		if err := need("sessionId", sessionID); err != nil {
			return nil, err
		}
		return k.SandboxGrants(s.ctx, sessionID)
	})
}

// AllowSandbox allows a session's sandboxed commands a folder to write or
// the network, for the session or (Once) its next command. A folder the
// sandbox keeps from commands is refused with the reason (invalid).
func (s *Service) AllowSandbox(sessionID string, allow kernel.SandboxAllow) (kernel.SandboxGrant, error) {
	return call(s, func(k *kernel.Kernel) (kernel.SandboxGrant, error) {
		if err := need("sessionId", sessionID); err != nil {
			return kernel.SandboxGrant{}, err
		}
		return k.AllowSandbox(s.ctx, sessionID, allow)
	})
}

// RevokeSandbox removes one of a session's sandbox grants.
func (s *Service) RevokeSandbox(sessionID string, id int64) error {
	return do(s, func(k *kernel.Kernel) error {
		if err := need("sessionId", sessionID); err != nil {
			return err
		}
		return k.RevokeSandbox(s.ctx, sessionID, id)
	})
}
