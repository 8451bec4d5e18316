package kernel

// The composer's @-mentions, in a dto*.go file of their own: tygo.yaml
// generates the front end's types from the dto*.go files alone.

// MaxMentioned is the most files and folders one message may mention.
const MaxMentioned = 20

// MaxWorkspaceFiles is the most entries WorkspaceFiles returns.
const MaxWorkspaceFiles = 5000

// WorkspaceEntry is a file or folder of a session's folder.
type WorkspaceEntry struct {
	// Path is relative to the session's folder, with forward slashes.
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
}

// WorkspaceFiles lists a session's folder for @-mentions: its files and
// folders as the file tools walk it (no .git, nothing .gitignore ignores,
// no hidden folders), sorted by path, at most MaxWorkspaceFiles.
type WorkspaceFiles struct {
	Entries []WorkspaceEntry `json:"entries"`
	// Truncated says the folder holds more than MaxWorkspaceFiles entries
	// and some were left out.
	Truncated bool `json:"truncated,omitempty"`
}
