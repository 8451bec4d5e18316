package mcp

import (
	"context"
	"fmt"
)

// SignIn signs in to an HTTP server of a scope (a project's of workdir
// wins over the user's of the same name): a person in the browser, or the
// client credentials its entry names; then the server starts again with
// the token. It returns the server's scope.
func (m *Manager) SignIn(ctx context.Context, workdir, name string) (string, error) {
	s, err := m.find(workdir, name)
	if err != nil {
		return "", err
	}
	if s.auth == nil {
		return "", fmt.Errorf("MCP server %s is not reached over HTTP: it has no sign-in", name)
	}
	if err := s.auth.SignIn(ctx); err != nil {
		return "", err
	}
	return m.Restart(workdir, name)
}

// SignOut forgets the token of an HTTP server and starts it again
// without: a server that needs one then shows that it needs a sign-in.
func (m *Manager) SignOut(ctx context.Context, workdir, name string) (string, error) {
	s, err := m.find(workdir, name)
	if err != nil {
		return "", err
	}
	if s.auth == nil {
		return "", fmt.Errorf("MCP server %s is not reached over HTTP: it has no sign-in", name)
	}
	if err := s.auth.SignOut(ctx); err != nil {
		return "", err
	}
	return m.Restart(workdir, name)
}
