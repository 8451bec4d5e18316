package mcp

import (
	"context"
	"net/url"
	"path/filepath"
	"slices"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Roots: Foya declares the roots capability to every server and answers
// roots/list with the folders the server works for, as file:// URIs.
// A project's server works for its project only: its one root is the
// project's folder, which never changes (a server belongs to one scope for
// its life). The user's own servers are shared by every session, whatever
// its workspace, so their roots are every workspace a session has loaded
// the servers for since the Manager started (Manager.Workspace); a new one
// is told to them with notifications/roots/list_changed. Claiming one
// session's workspace would be wrong for the others' calls, and claiming
// none would hide the folders their calls are about.

// rootsHandler answers a server's roots/list.
type rootsHandler struct{ s *server }

// ListRoots returns the server's roots.
func (h rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: h.s.roots()}, nil
}

// roots are the folders s works for.
func (s *server) roots() []mcp.Root {
	dirs := []string{s.workdir}
	if s.workdir == "" {
		dirs = s.m.workspacesNow()
	}
	out := make([]mcp.Root, 0, len(dirs))
	for _, d := range dirs {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		out = append(out, mcp.Root{URI: u.String(), Name: filepath.Base(d)})
	}
	return out
}

// Workspace records the workspace of a session that uses the servers: it
// becomes a root of the user's own servers, and those connected are told
// their roots changed. A workspace already recorded changes nothing.
func (m *Manager) Workspace(dir string) {
	if dir == "" {
		return
	}
	m.mu.Lock()
	if m.closed || slices.Contains(m.workspaces, dir) {
		m.mu.Unlock()
		return
	}
	m.workspaces = append(m.workspaces, dir)
	var tell []*conn
	for _, s := range m.servers {
		if s.workdir != "" {
			continue
		}
		s.mu.Lock()
		if s.conn != nil {
			tell = append(tell, s.conn)
		}
		s.mu.Unlock()
	}
	m.mu.Unlock()
	for _, c := range tell {
		// Off the caller's path (a run is starting): a server that does
		// not read must not hold it up. A server that connects later asks
		// for its roots itself.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
			defer cancel()
			_ = c.client.RootListChanges(ctx)
		}()
	}
}

func (m *Manager) workspacesNow() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.workspaces)
}

// clientOptions are the options of every client of s.
func (s *server) clientOptions() []client.ClientOption {
	return append([]client.ClientOption{client.WithLegacyProtocolOnly(), client.WithRootsHandler(rootsHandler{s})}, s.elicitOptions()...)
}

var _ client.RootsHandler = rootsHandler{}
