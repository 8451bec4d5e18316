package files

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// searcher finds the lines of a buffer that match a pattern, one line at a
// time as ripgrep does (a match never spans lines). It is fast where the
// pattern allows: a pattern without meta characters is searched as a
// literal (bytes.Index); a regexp that needs a literal is searched for
// that literal first and checked line by line.
type searcher struct {
	line  *regexp.Regexp // matches one line (without its ending)
	whole *regexp.Regexp // the same pattern in multi-line mode, over a buffer
	// lit is a literal every match contains, or nil; exact says the
	// pattern is that literal and nothing else.
	lit   []byte
	exact bool
	// fold says lit is lower-case ASCII and matched without case, against
	// an ASCII-lowered copy of the buffer.
	fold bool
}

func newSearcher(pattern string, ignoreCase bool) (*searcher, error) {
	flags := ""
	if ignoreCase {
		flags = "(?i)"
	}
	line, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, err
	}
	s := &searcher{line: line, whole: regexp.MustCompile("(?m)" + flags + pattern)}
	plain := regexp.QuoteMeta(pattern) == pattern && pattern != ""
	switch {
	case plain && !ignoreCase:
		s.lit, s.exact = []byte(pattern), true
	case plain && isASCII(pattern):
		s.lit, s.exact, s.fold = lowerASCII(nil, []byte(pattern)), true, true
	case !ignoreCase:
		if re, err := syntax.Parse(pattern, syntax.Perl); err == nil {
			if lit := requiredLiteral(re.Simplify()); len(lit) >= 2 {
				s.lit = []byte(lit)
			}
		}
	}
	return s, nil
}

// requiredLiteral returns a literal that every match of re contains (the
// longest it can find cheaply), or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerASCII writes src with ASCII letters lowered into dst (reused when
// large enough); other bytes keep their place, so offsets stay valid.
func lowerASCII(dst, src []byte) []byte {
	if cap(dst) < len(src) {
		dst = make([]byte, len(src))
	}
	dst = dst[:len(src)]
	for i, c := range src {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

// lineAt returns the bounds of the line holding offset i: start, and end
// before its "\n" (or the buffer's end).
func lineAt(buf []byte, i int) (start, end int) {
	start = bytes.LastIndexByte(buf[:i], '\n') + 1
	if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
		return start, i + j
	}
	return start, len(buf)
}

// each calls fn with the bounds of every matching line of buf, in order,
// until fn returns false. scratch is a buffer the searcher may reuse
// (for case folding); it returns it.
func (s *searcher) each(buf, scratch []byte, fn func(start, end int) bool) []byte {
	hay := buf
	if s.fold {
		scratch = lowerASCII(scratch, buf)
		hay = scratch
	}
	pos := 0
	for pos <= len(buf) {
		var at int
		if s.lit != nil {
			i := bytes.Index(hay[pos:], s.lit)
			if i < 0 {
				return scratch
			}
			at = pos + i
		} else {
			loc := s.whole.FindIndex(buf[pos:])
			if loc == nil {
				return scratch
			}
			at = pos + loc[0]
		}
		if at >= len(buf) && (len(buf) == 0 || buf[len(buf)-1] == '\n') {
			// An empty match after the last line ending: no line is there.
			return scratch
		}
		start, end := lineAt(buf, at)
		if s.exact || s.line.Match(trimCR(buf[start:end])) {
			if !fn(start, end) {
				return scratch
			}
		}
		pos = end + 1
	}
	return scratch
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}
