package kernel

// Values of the settings, review and background-command panels, in a
// dto*.go file of their own: tygo.yaml generates the front end's types from
// the dto*.go files alone.

// BackgroundOutput is a background command with the end of its output, for
// a person watching it in a panel (the model reads output with bash_output;
// reading it here does not move what bash_output shows next).
type BackgroundOutput struct {
	Command BackgroundCommand `json:"command"`
	// Text is its last lines (at most the lines asked for and
	// BackgroundTailBytes bytes), terminal escapes removed; empty when it
	// printed nothing or its output is binary.
	Text string `json:"text"`
	// Binary says the output's end is not text, so Text is empty.
	Binary bool `json:"binary,omitempty"`
	// Omitted counts the bytes printed before Text that it leaves out.
	Omitted int64 `json:"omitted"`
}

// MaxShownContent is the largest content ChangeContents hands out whole:
// past it a review shows the diff's hunks only.
const MaxShownContent = 1 << 20

// ChangeContents is a change's text before and after it, for a review that
// shows the whole file around the diff. A side is missing (Known false)
// when there was no file, it is a folder or not UTF-8 text, it was too
// large to keep or to show (MaxShownContent), or its kept copy is gone.
type ChangeContents struct {
	ChangeID    string `json:"changeId"`
	Before      string `json:"before"`
	BeforeKnown bool   `json:"beforeKnown"`
	After       string `json:"after"`
	AfterKnown  bool   `json:"afterKnown"`
}

// WorkspaceUsage is the disk the workspace indexes take (settings, foya
// doctor): the compressed contents (blobs, shared by every session) and
// one saved index per session.
type WorkspaceUsage struct {
	Dir        string `json:"dir"`
	Blobs      int    `json:"blobs"`
	BlobBytes  int64  `json:"blobBytes"`
	Indexes    int    `json:"indexes"`
	IndexBytes int64  `json:"indexBytes"`
	// MaxKeptBytes is the bound on BlobBytes in force
	// (workspace.maxKeptBytes); 0 where it is not known.
	MaxKeptBytes int64 `json:"maxKeptBytes"`
}
