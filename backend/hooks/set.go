package hooks

// Set is the hooks in effect in a workspace for one turn: the user's own
// first, then the project's approved ones, each file's in its order.
type Set struct {
	Hooks []Hook
	// Skipped are the files whose hooks do not run, with why.
	Skipped []Skip
	// Runner runs them.
	Runner *Runner
}

// Skip is a hooks file whose hooks do not run.
type Skip struct {
	Source Source
	File   string
	Why    string
}

// Matching returns the hooks of s that run at ev for a call of tool, in
// order.
func (s Set) Matching(ev Event, tool string) []Hook {
	if s.Runner == nil {
		return nil
	}
	var out []Hook
	for _, h := range s.Hooks {
		if h.Matches(ev, tool) {
			out = append(out, h)
		}
	}
	return out
}
