package mcpconfig

import (
	"context"

	"foya/backend/fault"
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
	wctx, cancel := context.WithTimeout(ctx, loadWait)
	s.m.Wait(wctx, scope)
	cancel()
	list, err := s.List(ctx, wd)
	if err != nil {
		return Server{}, err
	}
	want := "user"
	if scope != "" {
		want = "project"
	}
	for _, v := range list.Servers {
		if v.Name == name && v.Scope == want {
			return v, nil
		}
	}
	return Server{}, notFound("no MCP server %q", name)
}
