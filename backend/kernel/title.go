package kernel

import (
	"strings"
	"unicode"
)

// DefaultTitle is the title of a session the user named none for, until
// its first run names it after its prompt.
const DefaultTitle = "New session"

// titleMax is the most characters (runes) a title made from a prompt
// keeps before its ellipsis.
const titleMax = 60

// PromptTitle makes a session title from a prompt: its first line that has
// anything to show, with runs of white space and control characters made
// one space, cut at a word boundary to about 60 characters with an
// ellipsis. It is "" for a prompt with nothing to show.
func PromptTitle(prompt string) string {
	var line string
	for l := range strings.Lines(prompt) {
		if line = clean(l); line != "" {
			break
		}
	}
	r := []rune(line)
	if len(r) <= titleMax {
		return line
	}
	cut := titleMax
	// Back to the last space, unless the first word alone is that long.
	for i := titleMax; i > titleMax/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,.;:-") + "…"
}

// clean collapses white space and control characters in s to single
// spaces and trims it. Invalid UTF-8 is dropped.
func clean(s string) string {
	var b strings.Builder
	space := false
	for _, c := range s {
		if c == unicode.ReplacementChar || unicode.IsSpace(c) || unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(c)
	}
	return b.String()
}
