package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"foya/backend/mcp/mcpauth"
)

// Transports of an Entry.
const (
	Stdio = "stdio"
	HTTP  = "http" // streamable HTTP
	SSE   = "sse"
)

// Entry is one server of a configuration file, in the mcpServers format.
type Entry struct {
	// Name is the server's key in the file.
	Name string `json:"-"`
	// Type is stdio, http (streamable HTTP) or sse; empty means stdio with
	// a command, http with a url.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Sandbox runs a stdio server inside the sandbox (workspace writes
	// only, no network).
	Sandbox bool `json:"sandbox,omitempty"`
	// AlwaysLoad keeps the server's tools in every request even when MCP
	// tools are deferred behind tool_search.
	AlwaysLoad bool `json:"alwaysLoad,omitempty"`
	// Timeout bounds how long a call may go without a word from the
	// server (a Go duration such as "30s"): each progress notification of
	// the call starts it again, so a long call that reports progress lives
	// on. Empty means DefaultTimeout.
	Timeout string `json:"timeout,omitempty"`
	// OAuth says how Foya signs in to an HTTP server that asks it to
	// (package mcpauth); none is needed for a server that registers
	// clients itself.
	OAuth *mcpauth.Config `json:"oauth,omitempty"`
	// Disabled servers are kept in the file but not started.
	Disabled bool `json:"disabled,omitempty"`
	// ImportedFrom names the file foya mcp import copied the entry from
	// (Foya's own file only; other programs ignore the field).
	ImportedFrom string `json:"importedFrom,omitempty"`
}

// DefaultTimeout bounds the silence of a call to a server whose entry
// names no timeout.
const DefaultTimeout = 2 * time.Minute

// CallTimeout returns the entry's call timeout.
func (e Entry) CallTimeout() time.Duration {
	if d, err := time.ParseDuration(e.Timeout); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout
}

// Transport returns the entry's transport.
func (e Entry) Transport() string {
	switch t := strings.ToLower(e.Type); {
	case t == "streamable-http" || t == "streamablehttp" || t == "http":
		return HTTP
	case t == SSE:
		return SSE
	case t == Stdio || t == "local":
		return Stdio
	case t == "" && e.Command == "" && e.URL != "":
		return HTTP
	}
	return Stdio
}

// CommandLine is what a person approves: the command and its arguments,
// or the URL, each argument quoted when it needs to be.
func (e Entry) CommandLine() string {
	if e.Transport() != Stdio {
		return e.URL
	}
	words := append([]string{e.Command}, e.Args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`;&|<>()*?[]#~") {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// Fingerprint identifies what a person approved: the name, the transport,
// the command line (or URL), the working folder, the environment's and
// the headers' names and values. Any change makes an approval stale.
func (e Entry) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s", e.Name, e.Transport(), e.CommandLine(), e.Cwd)
	for _, m := range []map[string]string{e.Env, e.Headers} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\x00")
		for _, k := range keys {
			fmt.Fprintf(&b, "\x00%s=%s", k, m[k])
		}
	}
	return b.String()
}

// Validate says what is wrong with an entry, in words a user reads.
func (e Entry) Validate() error {
	if strings.TrimSpace(e.Name) == "" {
		return errors.New("the server has no name")
	}
	switch strings.ToLower(e.Type) {
	case "", Stdio, "local", HTTP, "streamable-http", "streamablehttp", SSE:
	default:
		return fmt.Errorf("unknown type %q: want stdio, http or sse", e.Type)
	}
	if e.Transport() == Stdio {
		if strings.TrimSpace(e.Command) == "" {
			return errors.New(`no "command" (or "url"): say which program to start`)
		}
	} else {
		// A URL that starts with a variable (a project's, expanded when
		// it starts) is checked once expanded.
		if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") && !strings.HasPrefix(e.URL, "${") {
			return fmt.Errorf("url %q: want an http:// or https:// address", e.URL)
		}
		if e.Sandbox {
			return errors.New(`"sandbox" applies to stdio servers only`)
		}
	}
	if e.Timeout != "" {
		if d, err := time.ParseDuration(e.Timeout); err != nil || d <= 0 {
			return fmt.Errorf("timeout %q: want a positive duration such as 30s", e.Timeout)
		}
	}
	return nil
}

// Problem is one thing wrong with a configuration file: the file, where
// in it (line:column, or the server's key), and what.
type Problem struct {
	File  string `json:"file"`
	Where string `json:"where,omitempty"`
	What  string `json:"what"`
}

func (p Problem) Error() string {
	if p.Where == "" {
		return p.File + ": " + p.What
	}
	return p.File + ": " + p.Where + ": " + p.What
}

// ReadFile reads a configuration file (see Parse). A missing file is no
// servers and no problem.
func ReadFile(path string) ([]Entry, []Problem) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []Problem{{File: path, What: err.Error()}}
	}
	return Parse(path, data)
}

// Parse reads servers in the formats users already have: an object with
// "mcpServers" (Claude Desktop, Cursor, Claude Code), "servers" (VS Code's
// mcp.json) or "mcp": {"servers": ...} (VS Code's settings.json). Each
// server is read on its own: a broken entry is a Problem naming the file
// and the server, and the other servers still load. Invalid JSON is one
// Problem with its line and column. Entries come sorted by name.
func Parse(file string, data []byte) ([]Entry, []Problem) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, []Problem{{File: file, Where: where(data, err), What: "not valid JSON: " + jsonMessage(err)}}
	}
	raw, key := top["mcpServers"], "mcpServers"
	if raw == nil {
		raw, key = top["servers"], "servers"
	}
	if raw == nil {
		if nested, ok := top["mcp"]; ok {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(nested, &m); err == nil && m["servers"] != nil {
				raw, key = m["servers"], "mcp.servers"
			}
		}
	}
	if raw == nil {
		return nil, []Problem{{File: file, What: `no "mcpServers" (or VS Code's "servers") object: nothing to load`}}
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, []Problem{{File: file, Where: key, What: "want an object of servers by name: " + jsonMessage(err)}}
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Entry
	var problems []Problem
	for _, n := range names {
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(servers[n]))
		if err := dec.Decode(&e); err != nil {
			problems = append(problems, Problem{File: file, Where: key + "." + n, What: jsonMessage(err)})
			continue
		}
		e.Name = n
		if err := e.Validate(); err != nil {
			problems = append(problems, Problem{File: file, Where: key + "." + n, What: err.Error()})
			continue
		}
		out = append(out, e)
	}
	return out, problems
}

// where returns "line L, column C" for a JSON error with an offset.
func where(data []byte, err error) string {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return ""
	}
	off = min(off, int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("%q is a JSON %s, want %s", te.Field, te.Value, te.Type)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Marshal writes entries as an mcpServers file, the format Parse reads.
func Marshal(entries []Entry) ([]byte, error) {
	m := map[string]Entry{}
	for _, e := range entries {
		m[e.Name] = e
	}
	data, err := json.MarshalIndent(struct {
		MCPServers map[string]Entry `json:"mcpServers"`
	}{m}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode servers: %w", err)
	}
	return append(data, '\n'), nil
}
