package kernel

import "foya/backend/mcp"

// The MCP types front ends see: configured servers, what a person approves
// or attaches, and what a server lists and returns (resources, their
// contents, prompts, filled prompts). They are the kernel's own, not
// package mcp's, so that the TypeScript generated from the DTO files is the
// whole contract and mcp may change its types without a front end noticing.

// States of an MCP server besides the running ones (connecting, ready,
// failed, stopped).
const (
	MCPUnapproved = "unapproved" // a project's server the user has not approved
	MCPDisabled   = "disabled"
)

// MCPServer is one configured MCP server and how it is doing.
type MCPServer struct {
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
	// What decides what runs, as approving shows it, so that a person
	// approves all of what will run: the command and its arguments, the
	// working folder, the environment (values that look secret masked),
	// the URL and the headers' names.
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
	// Fingerprint identifies a project's server as shown (its entry and
	// its code's content): ApproveMCPServer takes it back and refuses
	// when the server changed since.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// MCPList is the configured servers and what is wrong with their files.
type MCPList struct {
	Servers []MCPServer `json:"servers"`
	// Problems name a file and the place in it that could not be read;
	// the other servers still load.
	Problems []string `json:"problems"`
}

// MCPServerConfig is a server the user adds.
type MCPServerConfig struct {
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

// MCPImport is what an import did.
type MCPImport struct {
	Added []string `json:"added"`
	// Skipped are names the user has already (kept as they are).
	Skipped  []string `json:"skipped"`
	Problems []string `json:"problems"`
}

// MCPApprove is what a person approves of a project's MCP server.
type MCPApprove struct {
	// Fingerprint is MCPServer.Fingerprint as it was shown: the approval
	// is refused when the server changed since, so that what runs is what
	// the person saw.
	Fingerprint string `json:"fingerprint"`
	// Unsandboxed lets a stdio server run outside the sandbox.
	Unsandboxed bool `json:"unsandboxed,omitempty"`
	// WorkspaceCode confirms the risk of Unsandboxed for a server that
	// runs code from the workspace (MCPServer.Code): whatever is written
	// there, by the model too, then runs with the user's rights, so it
	// is never lifted without this explicit confirmation.
	WorkspaceCode bool `json:"workspaceCode,omitempty"`
}

// ResourceRef names an MCP resource a user attaches to a message: a
// server (a project's server of the session's folder wins over the
// user's of the same name) and the resource's URI.
type ResourceRef struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// Bounds of what attached resources add to one message: a person picks
// them, but a server decides how large they are.
const (
	// MaxAttached is the most resources one message may attach.
	MaxAttached = 8
	// MaxAttachedText bounds the text all of a message's resources add.
	MaxAttachedText = 256 << 10
)

// MCPResource is one resource a server lists.
type MCPResource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// MCPContent is one part of a read resource: Text, or Blob bytes (base64
// in JSON).
type MCPContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// MCPPrompt is one prompt a server lists.
type MCPPrompt struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Arguments   []MCPPromptArg `json:"arguments,omitempty"`
}

// MCPPromptArg is one argument of a prompt.
type MCPPromptArg struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// MCPMessage is one message of a filled prompt: its role and its text
// (other content described).
type MCPMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

func mcpResourceOf(r mcp.Resource) MCPResource {
	return MCPResource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType}
}

func mcpContentOf(c mcp.Content) MCPContent {
	return MCPContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
}

func mcpPromptOf(p mcp.Prompt) MCPPrompt {
	return MCPPrompt{Name: p.Name, Description: p.Description,
		Arguments: mapSlice(p.Arguments, func(a mcp.PromptArg) MCPPromptArg {
			return MCPPromptArg{Name: a.Name, Description: a.Description, Required: a.Required}
		})}
}

func mcpMessageOf(m mcp.Message) MCPMessage {
	return MCPMessage{Role: m.Role, Text: m.Text}
}
