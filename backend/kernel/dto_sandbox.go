package kernel

import "time"

// The sandbox grants of a session, in a dto*.go file of their own: tygo.yaml
// generates the front end's types from the dto*.go files alone.

// Sandbox grant kinds (SandboxGrant.Kind, SandboxAllow.Kind).
const (
	// SandboxWrite makes a folder writable for the session's sandboxed
	// commands.
	SandboxWrite = "write"
	// SandboxNetwork turns the network on for them; their files stay
	// confined.
	SandboxNetwork = "network"
)

// SandboxAllow is what the user allows a session's sandboxed commands:
// Kind SandboxWrite with Folder (absolute), or SandboxNetwork; for the
// session, or with Once for its next sandboxed command only.
type SandboxAllow struct {
	Kind   string `json:"kind"`
	Folder string `json:"folder,omitempty"`
	Once   bool   `json:"once"`
}

// SandboxGrant is a stored sandbox grant of a session. Folder is the
// folder as the sandbox uses it (absolute, links resolved); Text says
// what it allows, for people.
type SandboxGrant struct {
	ID        int64     `json:"id"`
	SessionID string    `json:"sessionId"`
	Kind      string    `json:"kind"`
	Folder    string    `json:"folder,omitempty"`
	Once      bool      `json:"once"`
	CreatedAt time.Time `json:"createdAt"`
	Text      string    `json:"text"`
}
