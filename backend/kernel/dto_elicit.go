package kernel

// Answers to an MCP server's question (ElicitAnswer.Action).
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitAnswer answers a pending MCP elicitation (an mcp.elicitation
// notice in state pending): the form's values with ElicitAccept (in URL
// mode, none: accepting says the user opens the URL), or ElicitDecline,
// or ElicitCancel (dismissed).
type ElicitAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty" tstype:"{ [name: string]: string | number | boolean }"`
}
