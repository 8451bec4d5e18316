package shell

import (
	"fmt"

	"foya/backend/tools"
)

// Tail is the end of a background command's output as a person reads it in
// a panel: its last lines within the limits, cleaned for display.
type Tail struct {
	// Text is the kept output; empty when there is none or it is binary.
	Text string
	// Binary says the kept output is not text (Text is then empty).
	Binary bool
	// Omitted counts the bytes printed before Text that it leaves out
	// (cut by the limits or already gone from the bounded buffer).
	Omitted int64
}

// Tail returns a session's background command with the end of its output
// within lim, without moving what bash_output shows the model next: a
// person looking does not take new output away from the agent.
func (s *Shell) Tail(sessionID, id string, lim tools.Limits) (Background, Tail, error) {
	j, _ := s.job(sessionID, id)
	if j == nil {
		return Background{}, Tail{}, fmt.Errorf("background command %s of session %s: %w", id, sessionID, ErrNoCommand)
	}
	_, total, _ := j.proc.Read(1 << 62)
	// Read no more than the limits can keep, plus a line's worth, so the
	// first kept line starts at a line break.
	from := max(0, total-int64(lim.Bytes)-1)
	data, _, _ := j.proc.Read(from)
	kept, _ := tools.Tail(string(data), lim)
	t := Tail{Omitted: total - int64(len(kept))}
	if looksBinary([]byte(kept)) {
		t.Binary = true
	} else {
		t.Text = clean([]byte(kept))
	}
	return j.info(), t, nil
}
