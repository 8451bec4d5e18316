package shell

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Caps of the output a result shows the model (spec O1): the tail is kept
// (spec O2).
const (
	MaxResultBytes = 32 << 10
	MaxResultLines = 1000
)

// Caps of a live output tail in tool.update events.
const (
	liveBytes = 2 << 10
	liveLines = 20
)

// cut keeps the tail of out within maxBytes and maxLines. When it must cut
// inside a line and a later line starts in the kept part, it starts there,
// so the kept text begins with a whole line; otherwise it starts at a UTF-8
// boundary inside the one long line (partial). It returns how many bytes it
// left out and how many lines ended in them.
func cut(out []byte, maxBytes, maxLines int) (kept []byte, bytesOut, linesOut int64, partial bool) {
	start := 0
	if len(out) > maxBytes {
		start = len(out) - maxBytes
	}
	// The start of the maxLines-th line from the end: a final newline ends
	// the last line, it does not start another.
	end := len(out)
	if end > 0 && out[end-1] == '\n' {
		end--
	}
	for n, i := 0, end; ; {
		j := bytes.LastIndexByte(out[:i], '\n')
		if j < start {
			break
		}
		n++
		if n == maxLines {
			start = j + 1
			break
		}
		i = j
	}
	if start > 0 && out[start-1] != '\n' {
		if i := bytes.IndexByte(out[start:], '\n'); i >= 0 && start+i+1 < len(out) {
			start += i + 1
		} else {
			partial = true
			for k := 0; k < utf8.UTFMax-1 && start < len(out) && !utf8.RuneStart(out[start]); k++ {
				start++
			}
		}
	}
	return out[start:], int64(start), int64(bytes.Count(out[:start], []byte{'\n'})), partial
}

// lastLines returns the tail of out for a live update: at most liveLines
// lines and liveBytes bytes, cleaned for display.
func lastLines(out []byte) string {
	kept, _, _, _ := cut(out, liveBytes, liveLines)
	if looksBinary(kept) {
		return fmt.Sprintf("[binary output, %s bytes shown so far]", num(int64(len(kept))))
	}
	return clean(kept)
}

// looksBinary reports whether b is not text: more than one byte in ten is
// invalid UTF-8 or a control character other than tab, newline, carriage
// return, backspace, form feed and escape.
func looksBinary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	bad := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			bad++
		case r < 0x20 && !strings.ContainsRune("\t\n\r\b\f\x1b", r), r == 0x7f:
			bad++
		}
		i += size
	}
	return bad*10 > len(b)
}

// clean turns command output into valid UTF-8 text for the model: terminal
// escape sequences go, a carriage return inside a line keeps what was
// written after it (progress bars), invalid bytes and other control
// characters become U+FFFD.
func clean(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	line := make([]byte, 0, 256)
	flush := func() {
		sb.Write(line)
		line = line[:0]
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			i += escapeLen(b[i:])
			continue
		case c == '\n':
			line = append(line, '\n')
			flush()
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				// CRLF: the line ends here.
			} else if i+1 < len(b) {
				line = line[:0] // what follows overwrites the line
			}
		case c == '\t':
			line = append(line, c)
		case c < 0x20 || c == 0x7f:
			line = utf8.AppendRune(line, utf8.RuneError)
		case c < utf8.RuneSelf:
			line = append(line, c)
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				line = utf8.AppendRune(line, utf8.RuneError)
			} else if r >= 0x80 && r < 0xa0 {
				line = utf8.AppendRune(line, utf8.RuneError) // C1 controls
			} else {
				line = append(line, b[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	flush()
	return sb.String()
}

// escapeLen returns the length of the terminal escape sequence at the
// start of b (b[0] is ESC): CSI (ESC [ ... final byte), OSC (ESC ] ...
// BEL or ESC \), or a two-byte escape.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return len(b)
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return len(b)
	case ']', 'P', '_', '^':
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		}
		return len(b)
	}
	return 2
}

// num formats n with thousands separators: 1234567 is "1,234,567".
func num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// size formats a byte count for people: "512 bytes", "1.2 KiB", "3.4 MiB".
func size(n int64) string {
	switch {
	case n < 1<<10:
		return plural(n, "byte", "bytes")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(n) + " " + many
}

// bytesText says how many bytes, exactly and for people when large.
func bytesText(n int64) string {
	if n < 1<<10 {
		return plural(n, "byte", "bytes")
	}
	return fmt.Sprintf("%s bytes (%s)", num(n), size(n))
}

// duration rounds d for the model: to milliseconds below a second, to
// hundredths of a second below a minute, then to seconds.
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// shown is output prepared for the model.
type shown struct {
	text           string // cleaned kept tail, or a note on binary output
	omittedBytes   int64  // exact
	omittedLines   int64  // exact when linesKnown
	lostBytes      int64  // of omittedBytes, overwritten before they were read (lines unknown)
	partial        bool   // the kept text starts inside a line
	keptLines      int64
	binary         bool
	binaryBytes    int64
	terminalWanted bool
}

// show caps out for the model. droppedBytes and droppedLines were already
// left out before out (by the ring buffer); lostBytes were overwritten and
// their lines are not known.
func show(out []byte, droppedBytes, droppedLines, lostBytes int64) shown {
	kept, b, l, partial := cut(out, MaxResultBytes, MaxResultLines)
	s := shown{
		omittedBytes: droppedBytes + lostBytes + b,
		omittedLines: droppedLines + l,
		lostBytes:    lostBytes,
		partial:      partial,
		keptLines:    int64(bytes.Count(kept, []byte{'\n'})),
	}
	if len(kept) > 0 && kept[len(kept)-1] != '\n' {
		s.keptLines++
	}
	if looksBinary(kept) {
		s.binary, s.binaryBytes = true, int64(len(kept))
		return s
	}
	s.text = clean(kept)
	s.terminalWanted = wantsTerminal(s.text)
	return s
}

// notice is the line that says what was left out, or "".
func (s shown) notice() string {
	if s.omittedBytes == 0 {
		return ""
	}
	var what string
	switch {
	case s.lostBytes > 0:
		what = fmt.Sprintf("%s omitted: %s were overwritten in the bounded buffer before this read (their lines are not counted)",
			bytesText(s.omittedBytes), num(s.lostBytes))
		if rest := s.omittedBytes - s.lostBytes; rest > 0 {
			what += fmt.Sprintf(", then %s in %s", num(rest), plural(s.omittedLines, "line", "lines"))
		}
	default:
		what = fmt.Sprintf("%s and %s omitted", plural(s.omittedLines, "line", "lines"), bytesText(s.omittedBytes))
	}
	tail := fmt.Sprintf("the last %s lines follow", num(s.keptLines))
	if s.keptLines == 1 {
		tail = "the last line follows"
	}
	if s.partial {
		tail = "what follows is the end of a longer line"
	}
	if s.binary {
		tail = "the rest looks binary"
	}
	return "[… " + what + "; " + tail + " …]"
}

// body is the notice, then the kept text (or a note on binary output).
func (s shown) body() string {
	var b strings.Builder
	if n := s.notice(); n != "" {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	switch {
	case s.binary:
		fmt.Fprintf(&b, "[binary output, %s not shown: pipe it through `xxd | head` or `od -c | head`, or redirect it to a file]\n", bytesText(s.binaryBytes))
	case s.text != "":
		b.WriteString(s.text)
		if !strings.HasSuffix(s.text, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// terminalHints are what programs print when they want a terminal or input.
var terminalHints = []string{
	"/dev/tty", "a terminal is required", "not a tty", "no tty present", "inappropriate ioctl for device",
	"input device is not a tty", "stdin is not a terminal", "not a terminal",
}

func wantsTerminal(text string) bool {
	lower := strings.ToLower(text)
	for _, h := range terminalHints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

const terminalNote = "The command seems to have wanted a terminal or input: there is none here and stdin is closed. " +
	"Use non-interactive flags (-y, --yes, --no-pager, --batch) or pipe the input in (printf 'y\\n' | cmd)."
