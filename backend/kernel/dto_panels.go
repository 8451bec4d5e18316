package kernel

// Values of the settings and background-command panels, in a dto*.go file of their own so the TypeScript generator reads
// them.

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
