package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Text from a model or a tool can hold terminal control sequences: OSC 52
// writes the clipboard, OSC 0 sets the window title, CSI clears the screen
// and moves the cursor, DCS/APC/PM strings reach the terminal's parser, C1
// controls (as bytes 0x80-0x9f or as U+0080-U+009F) start the same
// sequences in one character, BEL, backspace and a lone carriage return
// overwrite what the user reads, and bidi overrides (U+202E ...) reorder
// it. Every byte a command writes goes through a termWriter (Run wraps
// the standard streams), so none of them reaches a terminal as itself.
//
// A character that could act is shown instead, visibly, as \uXXXX (and a
// byte that is not UTF-8 as \xXX), so the user sees that something was
// there. Newlines and tabs stay, and so does a carriage return right
// before a newline. The escape form is also JSON's: inside a JSON string,
// where these characters are the only place they can occur in our JSON
// output, \u009b means U+009B, so JSON-lines output stays exact JSON with
// the same values (encoding/json already escapes C0 controls and
// U+2028/U+2029, but not DEL, C1 or bidi controls).

// termWriter writes to w what it is given with every control character
// made visible (see cleanText). A UTF-8 sequence cut by the end of one
// Write is completed by the next.
type termWriter struct {
	w       io.Writer
	pending []byte // the start of a character cut by the end of the last Write
}

// newTermWriter returns w wrapped in a termWriter, unless it is one.
func newTermWriter(w io.Writer) io.Writer {
	if _, ok := w.(*termWriter); ok {
		return w
	}
	return &termWriter{w: w}
}

// raw returns the writer under a termWriter: only Foya's own sequences
// (colors) go there.
func raw(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok {
		return t.w
	}
	return w
}

func (t *termWriter) Write(p []byte) (int, error) {
	b := p
	if len(t.pending) > 0 {
		b = append(t.pending, p...)
		t.pending = nil
	}
	// Keep back the start of a character cut at the end.
	if cut := incompleteTail(b); cut > 0 {
		t.pending = append([]byte(nil), b[len(b)-cut:]...)
		b = b[:len(b)-cut]
	}
	if _, err := io.WriteString(t.w, cleanBytes(b)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incompleteTail returns how many bytes at the end of b start a UTF-8
// character that is not complete yet (0 when none).
func incompleteTail(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// cleanText returns s with every character that could control a terminal
// made visible: C0 controls but newline, tab and the carriage return of a
// CRLF, DEL, C1 controls, bidi formatting characters; bytes that are not
// UTF-8 become \xXX.
func cleanText(s string) string { return cleanBytes([]byte(s)) }

func cleanBytes(b []byte) string {
	clean := true
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 || dangerous(r, b[i+n:]) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&sb, `\x%02X`, b[i])
		case dangerous(r, b[i+n:]):
			fmt.Fprintf(&sb, `\u%04X`, r)
		default:
			sb.Write(b[i : i+n])
		}
		i += n
	}
	return sb.String()
}

// dangerous reports whether r, followed by rest, must not reach a terminal
// as itself.
func dangerous(r rune, rest []byte) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == '\r':
		return len(rest) == 0 || rest[0] != '\n'
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f: // C1: CSI, OSC, DCS, APC, PM, ST as one character
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, // bidi marks
		r >= 0x202a && r <= 0x202e, // embeddings and overrides
		r >= 0x2066 && r <= 0x2069: // isolates
		return true
	}
	return false
}
