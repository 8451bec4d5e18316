package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// ServerTools returns the tools a ready server offers, as it listed them
// (foya mcp tools); a server that is not ready gives why.
func (m *Manager) ServerTools(workdir, name string) ([]mcp.Tool, error) {
	s, err := m.find(workdir, name)
	if err != nil {
		return nil, err
	}
	if _, err := s.current(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools), nil
}

// CallTool calls one tool of a ready server with args (a JSON object, or
// empty for none) and returns the server's result, an isError one
// included (foya mcp call). An error says why there is no result: the
// server has no such tool, is not ready, stopped or did not answer. The
// call goes through no approval: the caller is the person.
func (m *Manager) CallTool(ctx context.Context, workdir, name, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	list, err := m.ServerTools(workdir, name)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(list, func(t mcp.Tool) bool { return t.Name == tool }) {
		names := make([]string, len(list))
		for i, t := range list {
			names[i] = fmt.Sprintf("%q", t.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("MCP server %s has no tool %q: it offers no tools", name, tool)
		}
		return nil, fmt.Errorf("MCP server %s has no tool %q; its tools: %s", name, tool, strings.Join(names, ", "))
	}
	s, err := m.find(workdir, name)
	if err != nil {
		return nil, err
	}
	o := s.call(ctx, tool, args, "foya-mcp-call", nil)
	if o.fail != "" {
		return nil, errors.New(strings.Join(append([]string{o.fail}, o.notes...), "; "))
	}
	return o.res, nil
}

// Ping asks a ready server for a ping and waits for its answer (at most
// the entry's call timeout). The answer comes after what the server
// queued before it on a stdio connection's other writer, in practice: a
// log message it sends as it takes its logging level (foya mcp log asks
// for a ping before it prints, so that such a message is shown).
func (m *Manager) Ping(ctx context.Context, workdir, name string) error {
	s, c, err := m.ready(workdir, name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.entry.CallTimeout())
	defer cancel()
	if err := c.client.Ping(ctx); err != nil {
		return fmt.Errorf("ping %s: %w", name, err)
	}
	return nil
}
