package api

import (
	"strings"

	"foya/backend/kernel"
	"foya/backend/mcp/mcpconfig"
)

// MCPServers lists the user's MCP servers and, with a workdir, the
// project's, with their state (connecting, ready, failed, unapproved ...),
// tool count and the end of their standard error; problems name a file
// and the place in it that could not be read.
func (s *Service) MCPServers(workdir string) (mcpconfig.List, error) {
	return call(s, func(k *kernel.Kernel) (mcpconfig.List, error) { return k.MCP().List(s.ctx, workdir) })
}

// AddMCPServer adds (or replaces) one of the user's MCP servers: a
// command to start (stdio) or a URL (streamable HTTP, or SSE with type
// "sse"). It starts at once, without asking: it is the user's own.
func (s *Service) AddMCPServer(c mcpconfig.Config) error {
	return do(s, func(k *kernel.Kernel) error {
		if err := need("name", c.Name); err != nil {
			return err
		}
		return k.MCP().Add(s.ctx, c)
	})
}

// RemoveMCPServer removes one of the user's MCP servers and stops it.
func (s *Service) RemoveMCPServer(name string) error {
	return do(s, func(k *kernel.Kernel) error { return k.MCP().Remove(s.ctx, name) })
}

// ImportMCP copies the servers of a Claude Desktop, Cursor, Claude Code
// or VS Code configuration file into the user's own.
func (s *Service) ImportMCP(file string) (mcpconfig.Imported, error) {
	return call(s, func(k *kernel.Kernel) (mcpconfig.Imported, error) {
		if err := need("file", file); err != nil {
			return mcpconfig.Imported{}, err
		}
		return k.MCP().Import(s.ctx, file)
	})
}

// ApproveMCPServer approves a project's MCP server as it was shown: a
// carries the fingerprint the front end showed (mcpconfig.Server.Fingerprint),
// and the approval is refused when the server changed since. A stdio
// server then runs in the sandbox unless a.Unsandboxed; one that runs
// workspace code leaves it only with a.WorkspaceCode.
func (s *Service) ApproveMCPServer(workdir, name string, a mcpconfig.Approval) (mcpconfig.Server, error) {
	return call(s, func(k *kernel.Kernel) (mcpconfig.Server, error) {
		if err := need("workdir", workdir); err != nil {
			return mcpconfig.Server{}, err
		}
		return k.MCP().Approve(s.ctx, workdir, name, a)
	})
}

// MCPResources lists a server's resources (spec M3: not tools).
func (s *Service) MCPResources(workdir, server string) ([]mcpconfig.Resource, error) {
	return list(s, func(k *kernel.Kernel) ([]mcpconfig.Resource, error) { return k.MCP().Resources(s.ctx, workdir, server) })
}

// ReadMCPResource reads one resource, to show it or attach its text to a
// message.
func (s *Service) ReadMCPResource(workdir, server, uri string) ([]mcpconfig.Content, error) {
	return list(s, func(k *kernel.Kernel) ([]mcpconfig.Content, error) {
		return k.MCP().ReadResource(s.ctx, workdir, server, uri)
	})
}

// MCPPrompts lists a server's prompts.
func (s *Service) MCPPrompts(workdir, server string) ([]mcpconfig.Prompt, error) {
	return list(s, func(k *kernel.Kernel) ([]mcpconfig.Prompt, error) { return k.MCP().Prompts(s.ctx, workdir, server) })
}

// GetMCPPrompt fills a prompt with its arguments.
func (s *Service) GetMCPPrompt(workdir, server, name string, args map[string]string) ([]mcpconfig.Message, error) {
	return list(s, func(k *kernel.Kernel) ([]mcpconfig.Message, error) {
		return k.MCP().GetPrompt(s.ctx, workdir, server, name, args)
	})
}

// RunWithResources is Run with MCP resources attached to the message
// (spec M3): each names a server and a resource URI; their text goes into
// the user message after the message, bounded, and their images as image
// parts. A resource that cannot be read fails at once, starting nothing.
func (s *Service) RunWithResources(sessionID, message string, resources []kernel.ResourceRef) (string, error) {
	if err := need("sessionId", sessionID); err != nil {
		return "", err
	}
	if strings.TrimSpace(message) == "" {
		return "", invalid("the message is empty: type what the agent should do")
	}
	return s.start(func(k *kernel.Kernel, started func(string)) error {
		_, err := k.Run(s.ctx, kernel.RunOptions{SessionID: sessionID, Prompt: message, Resources: resources, Started: started})
		return err
	})
}

// start runs a turn in the background through run, which calls started
// with the run's ID once it is stored, and returns that ID then, or run's
// error when it ends without having started one.
func (s *Service) start(run func(k *kernel.Kernel, started func(string)) error) (string, error) {
	k, err := s.kernel()
	if err != nil {
		return "", err
	}
	started := make(chan string, 1)
	ended := make(chan error, 1)
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		ended <- run(k, func(id string) { started <- id })
	}()
	select {
	case id := <-started:
		return id, nil
	case err := <-ended:
		select {
		case id := <-started:
			// It started and ended at once; its end is in its events.
			return id, nil
		default:
		}
		if err == nil {
			return "", &Error{Code: kernel.CodeInternal, Message: "the run ended before it was stored"}
		}
		return "", AsError(err)
	}
}

// SetMCPAlwaysLoad sets whether one of the user's MCP servers keeps its
// tools in every request even when MCP tools are deferred behind
// tool_search.
func (s *Service) SetMCPAlwaysLoad(name string, on bool) error {
	return do(s, func(k *kernel.Kernel) error {
		if err := need("name", name); err != nil {
			return err
		}
		return k.MCP().SetAlwaysLoad(s.ctx, name, on)
	})
}

// RestartMCPServer stops an MCP server (a project's of workdir wins over
// the user's of the same name) and starts it again at once; it returns
// the server as it is after a brief wait for it to be ready.
func (s *Service) RestartMCPServer(workdir, name string) (mcpconfig.Server, error) {
	return call(s, func(k *kernel.Kernel) (mcpconfig.Server, error) {
		if err := need("name", name); err != nil {
			return mcpconfig.Server{}, err
		}
		return k.MCP().Restart(s.ctx, workdir, name)
	})
}

// MCPServerLog returns a running MCP server's recent log messages
// (notifications/message, the last 200, oldest first) and the end of its
// standard error; a project's server of workdir wins over the user's of
// the same name.
func (s *Service) MCPServerLog(workdir, name string) (mcpconfig.ServerLog, error) {
	return call(s, func(k *kernel.Kernel) (mcpconfig.ServerLog, error) {
		if err := need("name", name); err != nil {
			return mcpconfig.ServerLog{}, err
		}
		return k.MCP().Log(s.ctx, workdir, name)
	})
}

// SignInMCPServer signs in to an HTTP MCP server that asks for it (a
// project's of workdir wins over the user's of the same name): the
// authorization page opens in the system browser (or the command
// FOYA_OAUTH_OPENER names), the token goes to the keyring, and the server
// starts again with it. It returns once the browser answered (or the
// wait ended), with the server as it is then.
func (s *Service) SignInMCPServer(workdir, name string) (mcpconfig.Server, error) {
	return call(s, func(k *kernel.Kernel) (mcpconfig.Server, error) {
		if err := need("name", name); err != nil {
			return mcpconfig.Server{}, err
		}
		return k.MCP().SignIn(s.ctx, workdir, name)
	})
}

// SignOutMCPServer forgets an HTTP MCP server's token and starts it
// again without one.
func (s *Service) SignOutMCPServer(workdir, name string) (mcpconfig.Server, error) {
	return call(s, func(k *kernel.Kernel) (mcpconfig.Server, error) {
		if err := need("name", name); err != nil {
			return mcpconfig.Server{}, err
		}
		return k.MCP().SignOut(s.ctx, workdir, name)
	})
}
