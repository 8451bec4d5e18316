package kernel

import (
	"errors"

	"foya/backend/tools"
	"foya/backend/tools/shell"
)

// Bounds of BackgroundOutput: a panel shows the end of a command's output,
// never all of it (the command may print without end).
const (
	// BackgroundTailLines is how many lines BackgroundOutput returns when
	// asked for 0, and BackgroundMaxTailLines the most it returns.
	BackgroundTailLines    = 100
	BackgroundMaxTailLines = 1000
	// BackgroundTailBytes bounds the text BackgroundOutput returns.
	BackgroundTailBytes = 64 << 10
)

// BackgroundOutput returns a session's background command with its last
// lines of output (0 means BackgroundTailLines; at most
// BackgroundMaxTailLines lines and BackgroundTailBytes bytes). It does not
// move what the model's bash_output shows next.
func (k *Kernel) BackgroundOutput(sessionID, id string, lines int) (BackgroundOutput, error) {
	switch {
	case lines < 0:
		return BackgroundOutput{}, kindf(ErrInvalid, "lines is %d: give how many of the last lines to show (1 to %d), or 0 for %d",
			lines, BackgroundMaxTailLines, BackgroundTailLines)
	case lines == 0:
		lines = BackgroundTailLines
	}
	lines = min(lines, BackgroundMaxTailLines)
	b, t, err := k.shell.Tail(sessionID, id, tools.Limits{Lines: lines, Bytes: BackgroundTailBytes})
	if errors.Is(err, shell.ErrNoCommand) {
		return BackgroundOutput{}, withKind(err, ErrNotFound)
	}
	if err != nil {
		return BackgroundOutput{}, err
	}
	return BackgroundOutput{Command: backgroundOf(b), Text: k.mask(t.Text), Binary: t.Binary, Omitted: t.Omitted}, nil
}
