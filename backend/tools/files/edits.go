package files

// Edit is one run of changed lines of a diff, without its context lines:
// OldCount lines from OldStart of the before side became NewCount lines
// from NewStart of the after side. Lines are numbered from 1; an edit that
// removes nothing (OldCount 0) inserts its lines before old line
// OldStart, one that adds nothing (NewCount 0) leaves the lines after it
// starting at NewStart.
type Edit struct {
	OldStart, OldCount int
	NewStart, NewCount int
}

// Edits returns the runs of changed lines of a unified diff made by
// Unified, in order.
func Edits(diff string) ([]Edit, error) {
	hs, err := parseHunks(diff)
	if err != nil {
		return nil, err
	}
	var out []Edit
	for _, h := range hs {
		// An empty side's start is the line before it (diff -u's rule).
		oldAt, newAt := h.oldStart, h.newStart
		if h.oldCount == 0 {
			oldAt++
		}
		if h.newCount == 0 {
			newAt++
		}
		var cur *Edit
		for _, op := range h.ops {
			if op.kind == ' ' {
				cur = nil
				oldAt++
				newAt++
				continue
			}
			if cur == nil {
				out = append(out, Edit{OldStart: oldAt, NewStart: newAt})
				cur = &out[len(out)-1]
			}
			if op.kind == '-' {
				cur.OldCount++
				oldAt++
			} else {
				cur.NewCount++
				newAt++
			}
		}
	}
	return out, nil
}
