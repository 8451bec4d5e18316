package approval

// Kind is what a tool call is about to do, as the policy sees it. Every row
// of the mode table in docs/decisions/013-approval-modes.md is one Kind.
type Kind string

const (
	// ReadInside reads, lists or searches inside the workspace.
	ReadInside Kind = "read"
	// ReadOutside reads outside the workspace.
	ReadOutside Kind = "read_outside"
	// WriteInside creates or changes files inside the workspace.
	WriteInside Kind = "write"
	// WriteProtected writes .git, .agents or .foya, or outside the workspace.
	WriteProtected Kind = "write_protected"
	// DeleteInside moves workspace files to the trash.
	DeleteInside Kind = "delete"
	// DeleteProtected deletes the workspace root, a protected folder or an
	// outside path (always through the trash).
	DeleteProtected Kind = "delete_protected"
	// DeleteRoot deletes the filesystem root: never allowed.
	DeleteRoot Kind = "delete_root"
	// Shell runs a command in the sandbox (no sandbox in Full Access).
	Shell Kind = "shell"
	// ShellEscalate runs a command outside the sandbox (network, outside writes).
	ShellEscalate Kind = "shell_escalate"
	// ShellWeakSandbox runs a command in a sandbox that guarantees less
	// than the others here (landlock+seccomp: file attributes outside the
	// workspace stay changeable), so Auto asks too.
	ShellWeakSandbox Kind = "shell_weak_sandbox"
	// ShellPermanentDelete runs rm, rmdir, unlink, shred, find -delete,
	// git clean and the like.
	ShellPermanentDelete Kind = "shell_permanent_delete"
	// Fetch reaches a host on the network.
	Fetch Kind = "fetch"
	// FetchPrivate reaches a loopback, private or link-local address (the
	// machine itself, the local network, a cloud's metadata service): the
	// second question of a fetch whose host is, or resolves to, one.
	// Action.Addresses names them. No grant covers it, so a host allowed
	// for the session (or once in Auto) never answers it: a name that
	// resolves to a private address is asked about on every fetch: the
	// answer it got last time says nothing of where it resolves now.
	FetchPrivate Kind = "fetch_private"
	// MCP calls a tool of an MCP server; ReadOnly says whether the server
	// annotates it read-only.
	MCP Kind = "mcp"
	// SubAgent starts a sub-agent (its own calls go through the gateway).
	SubAgent Kind = "subagent"
	// Hook is a call a hook asks the person about (docs/hooks.md): it is
	// asked in every mode, Full Access too, never decided by the mode
	// table or a grant, and answered for this call only.
	Hook Kind = "hook"
)

// Kinds lists every kind, in table order.
var Kinds = []Kind{ReadInside, ReadOutside, WriteInside, WriteProtected, DeleteInside, DeleteProtected, DeleteRoot,
	Shell, ShellEscalate, ShellWeakSandbox, ShellPermanentDelete, Fetch, FetchPrivate, MCP, SubAgent}

// Action is one thing a call wants to do.
type Action struct {
	Kind Kind `json:"kind"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Paths are the absolute paths involved, if any.
	Paths []string `json:"paths,omitempty"`
	// Command is the shell command, as the model wrote it.
	Command string `json:"command,omitempty"`
	// Parsed is Command as ParseCommand read it, set by ShellAction so the
	// command is parsed once per call: the policy (Decide), the scopes
	// offered (Scopes) and the check of an answer (Answer.Validate) read
	// it instead of parsing again. An action built without it (by hand, or
	// read back from JSON) is parsed when needed.
	Parsed *Command `json:"-"`
	// Host is the network host, for Fetch and FetchPrivate.
	Host string `json:"host,omitempty"`
	// Addresses are, for FetchPrivate, the loopback or private addresses
	// the fetch would connect to.
	Addresses []string `json:"addresses,omitempty"`
	// ReadOnly is set for MCP tools their server annotates read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
	// MCPServer and MCPTool name, for an MCP call, the server and the
	// tool's own name on it (Tool is its mcp__server__tool form), so the
	// person who approves sees whose program runs.
	MCPServer string `json:"mcpServer,omitempty"`
	MCPTool   string `json:"mcpTool,omitempty"`
}

// ShellAction returns the action of running the parsed command c, carrying
// the parse with it.
func ShellAction(kind Kind, tool string, c *Command) Action {
	return Action{Kind: kind, Tool: tool, Command: c.Source, Parsed: c}
}

// command returns the action's parsed shell command: Parsed when it is the
// parse of Command, else a fresh parse; nil when there is no command or it
// does not parse.
func (a Action) command() *Command {
	if a.Command == "" {
		return nil
	}
	if a.Parsed != nil && a.Parsed.Source == a.Command {
		return a.Parsed
	}
	c, err := ParseCommand(a.Command)
	if err != nil {
		return nil
	}
	return &c
}

// ParsedCommand is the action's shell command as the policy reads it:
// Parsed when it is the parse of Command (parsed once, by ShellAction),
// else a fresh parse; nil when there is no command or it does not parse.
func (a Action) ParsedCommand() *Command { return a.command() }

// Request is what a tool asks the gateway: the action, a one-line reason
// the user reads, and a preview (the diff a write would make, the command a
// shell call would run, the URL a fetch would get, an MCP call's arguments).
type Request struct {
	CallID  string `json:"callId"`
	Action  Action `json:"action"`
	Why     string `json:"why"`
	Preview string `json:"preview,omitempty"`
}

// Outcome is the gateway's answer to a tool.
type Outcome struct {
	// Allowed says the tool may go on.
	Allowed bool
	// Message says, when not allowed, why, worded for the model (the
	// user's message when they denied with one). Tools return it as an
	// is_error result.
	Message string
	// Reason says, when allowed, what allowed it: the mode ("allowed by
	// Full Access"), a rule (its file and text), a session grant (its
	// scope) or the user's answer ("allowed by your answer 'allow once'").
	// Tools tell the model; empty when nothing was asked (tests of a tool
	// alone).
	Reason string
	// ByMode says the mode table alone allowed it.
	ByMode bool
}

// Noteworthy reports whether a tool's result should say what allowed it:
// whenever a rule, a grant or an answer did, and whenever the mode allowed
// something Auto would ask about (Full Access writing outside, say).
func (o Outcome) Noteworthy(k Kind) bool {
	return o.Allowed && o.Reason != "" && (!o.ByMode || table[k][1] != Allow)
}
