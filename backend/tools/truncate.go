package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits bound a tool's output in lines and bytes (spec O1). Zero means no
// limit of that kind.
type Limits struct {
	Lines int
	Bytes int
}

// Default limits of the built-in tools; docs/limits.md says why.
var (
	// DocumentLimits bound what read, grep and the history reader return;
	// documents keep their head (spec O2).
	DocumentLimits = Limits{Lines: 2000, Bytes: 64 << 10}
	// ShellLimits bound a command's output; it keeps its tail, where
	// errors and summaries are (spec O2).
	ShellLimits = Limits{Lines: 800, Bytes: 32 << 10}
)

// Cut says what truncation left out (spec O3).
type Cut struct {
	// Lines and Bytes are what was left out.
	Lines, Bytes int64
	// TotalLines and TotalBytes are the whole output.
	TotalLines, TotalBytes int64
	// Tail is set when the tail was kept.
	Tail bool
}

// Truncated reports whether anything was left out.
func (c Cut) Truncated() bool { return c.Bytes > 0 }

// Notice is the line that tells the model exactly what was left out, with
// a hint on how to get it ("use offset=2001 to read on").
func (c Cut) Notice(hint string) string {
	if !c.Truncated() {
		return ""
	}
	where := "after this"
	if c.Tail {
		where = "before this"
	}
	s := fmt.Sprintf("[%s lines (%s bytes) of %s lines (%s bytes) left out %s]",
		Count(c.Lines), Count(c.Bytes), Count(c.TotalLines), Count(c.TotalBytes), where)
	if hint != "" {
		s += " " + hint
	}
	return s
}

// Count formats n with thousands separators.
func Count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// lines counts lines as a reader sees them: a last line without a newline
// counts.
func lines(s string) int64 {
	n := int64(strings.Count(s, "\n"))
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// Head keeps the beginning of s within l, cutting only at line ends (or, for
// one line longer than the byte limit, at a rune boundary), and says what it
// left out.
func Head(s string, l Limits) (string, Cut) {
	c := Cut{TotalLines: lines(s), TotalBytes: int64(len(s))}
	end := len(s)
	if l.Lines > 0 {
		pos, n := 0, 0
		for n < l.Lines {
			i := strings.IndexByte(s[pos:], '\n')
			if i < 0 {
				pos = len(s)
				break
			}
			pos += i + 1
			n++
		}
		end = min(end, pos)
	}
	if l.Bytes > 0 && end > l.Bytes {
		cut := strings.LastIndexByte(s[:l.Bytes], '\n') + 1
		if cut == 0 {
			cut = l.Bytes
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		end = cut
	}
	kept := s[:end]
	c.Bytes = int64(len(s) - end)
	c.Lines = c.TotalLines - lines(kept)
	if c.Bytes > 0 && len(kept) > 0 && kept[len(kept)-1] != '\n' {
		c.Lines++ // the cut line is partly left out
	}
	return kept, c
}

// Tail keeps the end of s within l, cutting only at line starts (or inside
// one line longer than the byte limit, at a rune boundary), and says what it
// left out.
func Tail(s string, l Limits) (string, Cut) {
	c := Cut{TotalLines: lines(s), TotalBytes: int64(len(s)), Tail: true}
	start := 0
	if l.Lines > 0 {
		pos, n := len(s), 0
		if pos > 0 && s[pos-1] == '\n' {
			pos-- // the final newline ends the last line
		}
		for n < l.Lines {
			i := strings.LastIndexByte(s[:pos], '\n')
			if i < 0 {
				pos = -1
				break
			}
			pos = i
			n++
		}
		start = max(start, pos+1)
	}
	if l.Bytes > 0 && len(s)-start > l.Bytes {
		from := len(s) - l.Bytes
		cut := strings.IndexByte(s[from:], '\n')
		if cut >= 0 && from+cut+1 < len(s) {
			start = from + cut + 1
		} else {
			start = from
			for start < len(s) && !utf8.RuneStart(s[start]) {
				start++
			}
		}
	}
	kept := s[start:]
	c.Bytes = int64(start)
	c.Lines = c.TotalLines - lines(kept)
	if start > 0 && start < len(s) && s[start-1] != '\n' {
		c.Lines++
	}
	return kept, c
}
