package mcpconfig

import "foya/backend/mcp"

// The types a front end sees: the configured servers, what a person adds,
// imports or approves, and what a server lists and returns (resources,
// their contents, prompts, filled prompts). The TypeScript of this package
// is generated from this file alone (tygo.yaml), so what a server returns
// has types of its own here, not package mcp's: mcp may change its types
// without a front end noticing.

// States of an MCP server besides the running ones (connecting, ready,
// failed, stopped).
const (
	Unapproved = "unapproved" // a project's server the user has not approved
	Disabled   = "disabled"
)

// Server is one configured MCP server and how it is doing.
type Server struct {
	Name string `json:"name"`
	// Scope is "user" (the user's own file) or "project".
	Scope string `json:"scope"`
	// File is the configuration file it comes from.
	File string `json:"file"`
	// ImportedFrom names the file a user's server was imported from
	// (foya mcp import); empty for servers added by hand and for a
	// project's.
	ImportedFrom string `json:"importedFrom,omitempty"`
	Transport    string `json:"transport"`
	CommandLine  string `json:"commandLine"`
	// State is connecting, ready, failed, stopped, unapproved or disabled.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// Stderr is the end of its standard error.
	Stderr     string `json:"stderr,omitempty"`
	Tools      int    `json:"tools"`
	Deferred   bool   `json:"deferred"`
	Sandbox    bool   `json:"sandbox"`
	AlwaysLoad bool   `json:"alwaysLoad"`
	Restarts   int    `json:"restarts"`
	// SignIn is an HTTP server's sign-in state while it runs: not-needed,
	// signed-in, sign-in-needed or error (SignInError says why); empty
	// for a stdio server or one not running.
	SignIn      string `json:"signIn,omitempty"`
	SignInError string `json:"signInError,omitempty"`
	// What decides what runs, all of it shown before a person approves:
	// the command and its arguments, the working folder, the environment
	// (values that look secret masked), the URL and the headers' names.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers []string          `json:"headers,omitempty"`
	// Code lists the workspace files and folders a project's server runs
	// or loads (its script, the folder of a relative command, files named
	// in its arguments, env paths): part of what an approval covers.
	Code []string `json:"code,omitempty"`
	// Vars are the variables of the environment its command, arguments,
	// cwd and URL read (${VAR}, expanded when it starts): their values are
	// part of what an approval covers. PassVars are those only its env and
	// header values read, passed to the server as they are then.
	Vars     []string `json:"vars,omitempty"`
	PassVars []string `json:"passVars,omitempty"`
	// Fingerprint identifies a project's server as shown (its entry and
	// its code's content): Servers.Approve takes it back and refuses when
	// the server changed since.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// List is the configured servers and what is wrong with their files.
type List struct {
	Servers []Server `json:"servers"`
	// Problems name a file and the place in it that could not be read;
	// the other servers still load.
	Problems []string `json:"problems"`
}

// Config is a server the user adds.
type Config struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// URL is a streamable HTTP (Type "http", the default) or SSE (Type
	// "sse") server's address.
	URL        string            `json:"url,omitempty"`
	Type       string            `json:"type,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	Sandbox    bool              `json:"sandbox,omitempty"`
	AlwaysLoad bool              `json:"alwaysLoad,omitempty"`
	Timeout    string            `json:"timeout,omitempty"`
}

// Imported is what an import did.
type Imported struct {
	Added []string `json:"added"`
	// Skipped are names the user has already (kept as they are).
	Skipped  []string `json:"skipped"`
	Problems []string `json:"problems"`
}

// Approval is what a person approves of a project's MCP server.
type Approval struct {
	// Fingerprint is Server.Fingerprint as it was shown: the approval is
	// refused when the server changed since, so what runs is what the
	// person saw.
	Fingerprint string `json:"fingerprint"`
	// Unsandboxed lets a stdio server run outside the sandbox.
	Unsandboxed bool `json:"unsandboxed,omitempty"`
	// WorkspaceCode confirms the risk of Unsandboxed for a server that
	// runs code from the workspace (Server.Code): whatever is written
	// there, by the model too, then runs with the user's rights, so
	// Unsandboxed alone does not let such a server out.
	WorkspaceCode bool `json:"workspaceCode,omitempty"`
}

// Bounds of what attached resources add to one message: a person picks
// them, but a server decides how large they are.
const (
	// MaxAttached is the most resources one message may attach.
	MaxAttached = 8
	// MaxAttachedText bounds the text all of a message's resources add.
	MaxAttachedText = 256 << 10
)

// Resource is one resource a server lists.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Content is one part of a read resource: Text, or Blob bytes (base64 in
// JSON).
type Content struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// Prompt is one prompt a server lists.
type Prompt struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Arguments   []PromptArg `json:"arguments,omitempty"`
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Message is one message of a filled prompt: its role and its text (other
// content described).
type Message struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

func resourceOf(r mcp.Resource) Resource {
	return Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType}
}

func contentOf(c mcp.Content) Content {
	return Content{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
}

func promptOf(p mcp.Prompt) Prompt {
	return Prompt{Name: p.Name, Description: p.Description,
		Arguments: mapSlice(p.Arguments, func(a mcp.PromptArg) PromptArg {
			return PromptArg{Name: a.Name, Description: a.Description, Required: a.Required}
		})}
}

func messageOf(m mcp.Message) Message { return Message{Role: m.Role, Text: m.Text} }

// mapSlice maps s with f; nil stays nil, so an empty list keeps its JSON.
func mapSlice[T, U any](s []T, f func(T) U) []U {
	if s == nil {
		return nil
	}
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}
