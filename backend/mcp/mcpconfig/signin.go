package mcpconfig

import (
	"context"

	"foya/backend/fault"
	"foya/backend/mcp/mcpauth"
)

// SignIn signs in to an HTTP server (a project's of workdir wins over the
// user's of the same name): the authorization page opens in the browser,
// and the server starts again with the token. It returns the server as it
// is after a brief wait for it to be ready.
func (s *Servers) SignIn(ctx context.Context, workdir, name string) (Server, error) {
	return s.signInOut(ctx, workdir, name, s.m.SignIn)
}

// SignOut forgets an HTTP server's token and starts it again without.
func (s *Servers) SignOut(ctx context.Context, workdir, name string) (Server, error) {
	return s.signInOut(ctx, workdir, name, s.m.SignOut)
}

func (s *Servers) signInOut(ctx context.Context, workdir, name string, do func(context.Context, string, string) (string, error)) (Server, error) {
	wd := s.scope(ctx, workdir)
	scope, err := do(ctx, wd, name)
	if err != nil {
		return Server{}, fault.Wrap(err, fault.ErrUnavailable)
	}
	return s.settled(ctx, wd, scope, name)
}

// projectOAuth is what a project's entry may say of signing in: a client
// ID and scopes. A secret, a private key file or the client-credentials
// grant are the user's to give (foya mcp tools|call flags, the user's own
// file): a project naming the user's key file would have Foya sign
// assertions with it for an authorization server the project chose.
func projectOAuth(c *mcpauth.Config) *mcpauth.Config {
	if c == nil {
		return nil
	}
	return &mcpauth.Config{ClientID: c.ClientID, Scopes: c.Scopes}
}
