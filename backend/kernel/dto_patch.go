package kernel

// A session's net change as one patch, and the session folder's own git
// diff, in a dto*.go file of their own: tygo.yaml generates the front
// end's types from the dto*.go files alone.

// SessionPatch is a session's net change as one git-style patch: for each
// path, from what it was before the session first changed it to what the
// session's last change of it left. Paths that end as they began are left
// out.
type SessionPatch struct {
	SessionID string `json:"sessionId"`
	// Name is a file name for the patch: the session's title, made safe
	// for a file system, with ".patch".
	Name string `json:"name"`
	// Text is the patch. It starts with "#" comment lines (which git apply
	// skips) naming the session and, where there are Notes, them.
	Text string `json:"text"`
	// Files counts the paths the patch changes; 0 means the session's
	// changes add up to nothing (or it made none): Text is then comments only.
	Files int `json:"files"`
	// Notes say what the patch leaves out or cannot carry, one line each:
	// a kept copy that is gone, a folder whose files were not recorded, a
	// path outside the session folder, binary contents.
	Notes []string `json:"notes"`
}

// MaxGitDiff bounds the bytes of `git diff HEAD` output GitStatusDiff
// hands out; past it the diff is cut after the last whole file.
const MaxGitDiff = 4 << 20

// GitDiff is what `git diff HEAD` prints in a session's folder: what
// committing everything now would commit, as against the last commit.
type GitDiff struct {
	SessionID string `json:"sessionId"`
	// Root is the repository's top folder.
	Root string `json:"root"`
	// Text is the diff (no color); empty when the working tree matches HEAD.
	Text string `json:"text"`
	// Truncated says git printed more than MaxGitDiff bytes: Text holds
	// the files that fit whole, Omitted counts the bytes left out.
	Truncated bool  `json:"truncated,omitempty"`
	Omitted   int64 `json:"omitted,omitempty"`
	// Untracked are files git does not track yet (and does not ignore),
	// relative to Root: git diff HEAD leaves them out; git add adds them.
	Untracked []string `json:"untracked"`
}
