package shell

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"foya/backend/tools"
)

// liveLimits cap a live output tail in tool.update events.
var liveLimits = tools.Limits{Lines: 20, Bytes: 2 << 10}

// lastLines returns the tail of out for a live update, cleaned for display.
func lastLines(out []byte) string {
	kept, _ := tools.Tail(string(out), liveLimits)
	if looksBinary([]byte(kept)) {
		return "[binary output]"
	}
	return clean([]byte(kept))
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
func num(n int64) string { return tools.Count(n) }

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
	text           string // cleaned kept tail, empty for binary output
	notice         string // what was left out, or ""
	binary         bool
	binaryBytes    int64
	terminalWanted bool
}

const narrowHint = "Narrow the command (grep, tail -n, head, --quiet) to see other parts."

// showResult caps a finished command's output for the model: the sandbox
// kept res.Output after dropping res.DroppedBytes bytes in res.DroppedLines
// lines (exact); the tail within tools.ShellLimits is kept (spec O2) and the
// notice counts everything left out against the totals (spec O3).
func showResult(out []byte, droppedBytes, droppedLines, totalBytes, totalLines int64) shown {
	kept, c := tools.Tail(string(out), tools.ShellLimits)
	c.Bytes += droppedBytes
	c.Lines += droppedLines
	c.TotalBytes, c.TotalLines = totalBytes, totalLines
	return newShown(kept, c.Notice(narrowHint))
}

// showRead caps new output of a background command: lost bytes before
// data were overwritten in its ring buffer before they could be read, and
// their lines are unknown.
func showRead(data []byte, lost int64) shown {
	kept, c := tools.Tail(string(data), tools.ShellLimits)
	notice := c.Notice(narrowHint)
	if lost > 0 {
		notice = fmt.Sprintf("[%s bytes of new output were overwritten in the bounded buffer before this read (their lines are not counted)", num(lost))
		if c.Truncated() {
			notice += fmt.Sprintf("; then %s lines (%s bytes) of %s lines (%s bytes) left out before this",
				num(c.Lines), num(c.Bytes), num(c.TotalLines), num(c.TotalBytes))
		}
		notice += "] Read more often to see more of it, or have the command write to a file."
	}
	return newShown(kept, notice)
}

func newShown(kept, notice string) shown {
	s := shown{notice: notice}
	if looksBinary([]byte(kept)) {
		s.binary, s.binaryBytes = true, int64(len(kept))
		return s
	}
	s.text = clean([]byte(kept))
	s.terminalWanted = wantsTerminal(s.text)
	return s
}

// body is the notice, then the kept text (or a note on binary output).
func (s shown) body() string {
	var b strings.Builder
	if s.notice != "" {
		b.WriteString(s.notice)
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
