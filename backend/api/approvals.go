package api

import "foya/backend/approval"

// ParsedCommand is a shell command as the approval policy reads it, for
// the approval dialog to show what a command would really run.
type ParsedCommand struct {
	// Simple lists each simple command it would run, in order, with its
	// words unquoted: those behind &&, ;, pipes, subshells and $(...),
	// inside sh -c and eval strings, and behind wrappers (sudo, timeout,
	// xargs, find -exec ...). A word that is not a plain literal (a
	// variable, a substitution, a pattern) is kept as written.
	Simple [][]string `json:"simple"`
	// Deletes says what would delete files for good (rm, git clean ...).
	Deletes []string `json:"deletes"`
	// Opaque says why Foya cannot tell what part of it runs; empty when it
	// can tell.
	Opaque []string `json:"opaque"`
}

// ParseCommand reads a shell command with the parser the approval policy
// decides with (approval.ParseCommand). A command that does not parse is an
// invalid error saying why. It needs no open kernel.
func (s *Service) ParseCommand(command string) (ParsedCommand, error) {
	c, err := approval.ParseCommand(command)
	if err != nil {
		return ParsedCommand{}, invalid("%v", err)
	}
	out := ParsedCommand{Simple: make([][]string, 0, len(c.Simple)), Deletes: nonNil(c.PermanentDelete()), Opaque: nonNil(c.Opaque())}
	for _, sc := range c.Simple {
		out.Simple = append(out.Simple, nonNil(sc.Args))
	}
	return out, nil
}

// nonNil makes an empty list [] in JSON, not null.
func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
