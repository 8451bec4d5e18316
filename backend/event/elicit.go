package event

import "time"

// States of an MCP elicitation (MCPElicitationData.State).
const (
	// ElicitPending: the server asks and waits for the user's answer.
	ElicitPending = "pending"
	// ElicitAccepted: the user gave the values (or agreed to open the
	// URL).
	ElicitAccepted = "accepted"
	// ElicitDeclined: the user said no, or Foya declined for them (a form
	// it cannot show, no one to ask); Note says why.
	ElicitDeclined = "declined"
	// ElicitCancelled: the user dismissed it, or it ended unanswered (the
	// run was cancelled, the server's call ended).
	ElicitCancelled = "cancelled"
)

// Elicitation modes (MCPElicitationData.Mode).
const (
	// ElicitForm asks for values in a form built from the server's schema.
	ElicitForm = "form"
	// ElicitURL asks the user to open a URL.
	ElicitURL = "url"
)

// Kinds of an elicitation's field (ElicitField.Type).
const (
	FieldString  = "string"
	FieldNumber  = "number"
	FieldInteger = "integer"
	FieldBoolean = "boolean"
)

// ElicitOption is one value of an enumerated field, with the title to show.
type ElicitOption struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// ElicitField is one field of an elicitation's form: one property of the
// server's requestedSchema, a primitive.
type ElicitField struct {
	// Name is the property's name, the key of its value in the answer.
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Type is one of the Field* constants.
	Type     string `json:"type"`
	Required bool   `json:"required,omitempty"`
	// Format is a string's format (email, uri, date, date-time).
	Format string `json:"format,omitempty"`
	// Options are the values of an enumerated string, in order.
	Options   []ElicitOption `json:"options,omitempty"`
	MinLength *int           `json:"minLength,omitempty"`
	MaxLength *int           `json:"maxLength,omitempty"`
	Minimum   *float64       `json:"minimum,omitempty"`
	Maximum   *float64       `json:"maximum,omitempty"`
	// Default is the schema's default, of the field's type.
	Default any `json:"default,omitempty" tstype:"string | number | boolean"`
}

// MCPElicitationData is the payload of mcp.elicitation: an MCP server asks
// the user something during a tool call of a session's run (MCP's
// elicitation/create), and then how it ended. A client shows a pending one
// as a form (or a URL to open) and answers it with AnswerElicitation; the
// notice of its end, with the same ID, removes it.
type MCPElicitationData struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId,omitempty"`
	// CallID is the tool call during which the server asks.
	CallID string `json:"callId,omitempty"`
	// Server is the MCP server's name.
	Server string `json:"server"`
	// Mode is ElicitForm or ElicitURL.
	Mode    string `json:"mode"`
	Message string `json:"message"`
	// Fields are the form's fields, in the schema's order (form mode).
	Fields []ElicitField `json:"fields,omitempty"`
	// URL is the address to open (URL mode).
	URL string `json:"url,omitempty"`
	// State is one of the Elicit* states.
	State string `json:"state"`
	// Note says why Foya declined or cancelled it for the user.
	Note    string    `json:"note,omitempty"`
	AskedAt time.Time `json:"askedAt"`
}

// MCPElicitation is an mcp.elicitation notice.
func MCPElicitation(d MCPElicitationData) Event { return of(TypeMCPElicitation, d) }
