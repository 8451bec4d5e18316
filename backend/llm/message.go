package llm

import (
	"encoding/json"

	"foya/backend/event"
)

// Role is the author of a message in the canonical history.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the canonical history, exactly as it is fed back to
// the model (after the context compiler's projection, see engine).
//
// An assistant message carries the text and the tool calls of one model step.
// A tool message answers one call (ToolCallID) with text and parts; IsError
// marks a business failure the model should read and correct (spec T4).
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
	IsError    bool       `json:"isError,omitempty"`
	Parts      []Part     `json:"parts,omitempty"`
}

// PartType names the kind of a non-text part of a message.
type PartType string

const (
	PartImage PartType = "image"
)

// Part is a non-text piece of a message. Images are kept as artifact
// references, never as bytes, so the history and the event log stay small
// (spec I1, I2).
type Part struct {
	Type       PartType `json:"type"`
	ArtifactID string   `json:"artifactId,omitempty"`
	MIME       string   `json:"mime,omitempty"`
}

// ToolCall is one call proposed by the model: a stable ID, the tool's name
// and the raw JSON arguments as the model sent them (spec T2).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// ArgsRef, set for arguments of InlineArgs bytes or more, says where
	// the store keeps them; Arguments still holds them whole in memory.
	ArgsRef *ArgsRef `json:"argsRef,omitempty"`
}

// ToolSchema is one function offered to the model: its name, description and
// the JSON Schema of its arguments.
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model step: the model name, the projected history and the
// tools visible in this step (sorted by name, spec R2).
type Request struct {
	Model    string       `json:"model"`
	Messages []Message    `json:"messages"`
	Tools    []ToolSchema `json:"tools,omitempty"`
	// Images holds the bytes of image parts referenced by Messages, keyed by
	// artifact ID, for providers that send images inline (spec I3).
	Images map[string][]byte `json:"-"`
	// Keys, when it has one entry per message, names each message's
	// content: within one Encodings, a message at the same position with
	// the same non-zero key is the same message, so a provider may send
	// its earlier encoding again instead of encoding it anew. Zero means
	// "do not reuse". Nil Keys or Encodings: everything is encoded.
	Keys      []uint64   `json:"-"`
	Encodings *Encodings `json:"-"`
}

// Usage counts the tokens of one model step (event.Usage).
type Usage = event.Usage
