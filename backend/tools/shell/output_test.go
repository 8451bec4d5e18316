package shell

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// spec: O1, O2, O3 — the tail is kept within both caps, starting at a whole
// line when one starts in the kept part, and the counts of what was left out
// are exact.
func TestCut(t *testing.T) {
	seq := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "%d\n", i)
		}
		return b.String()
	}
	long := strings.Repeat("x", 100)
	tests := []struct {
		name               string
		in                 string
		maxBytes, maxLine  int
		want               string
		bytesOut, linesOut int64
		partial            bool
	}{
		{"empty", "", 10, 10, "", 0, 0, false},
		{"fits", "a\nb\n", 10, 10, "a\nb\n", 0, 0, false},
		{"fits without final newline", "a\nb", 10, 10, "a\nb", 0, 0, false},
		{"line cap", seq(1, 10), 1000, 3, seq(8, 10), int64(len(seq(1, 7))), 7, false},
		{"line cap without final newline", "1\n2\n3\n4", 1000, 2, "3\n4", 4, 2, false},
		{"byte cap at a line start", "aaaa\nbbbb\n", 5, 10, "bbbb\n", 5, 1, false},
		{"byte cap mid-line moves to the next line", "aaaa\nbbbb\ncc\n", 6, 10, "cc\n", 10, 2, false},
		{"one long line", long, 10, 10, long[90:], 90, 0, true},
		{"long last line after short ones", "a\nb\n" + long, 10, 10, long[90:], 94, 2, true},
		{"long line ending in a newline", long + "\n", 11, 10, long[90:] + "\n", 90, 0, true},
		{"one line cap", "a\nb\nc\n", 100, 1, "c\n", 4, 2, false},
		{"utf-8 boundary", strings.Repeat("é", 10), 5, 10, "éé", 16, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, b, l, partial := cut([]byte(tt.in), tt.maxBytes, tt.maxLine)
			if string(got) != tt.want || b != tt.bytesOut || l != tt.linesOut || partial != tt.partial {
				t.Errorf("cut(%q, %d, %d) = %q, %d bytes, %d lines, partial %v; want %q, %d, %d, %v",
					tt.in, tt.maxBytes, tt.maxLine, got, b, l, partial, tt.want, tt.bytesOut, tt.linesOut, tt.partial)
			}
			if int64(len(got))+b != int64(len(tt.in)) {
				t.Errorf("kept %d + left out %d != %d", len(got), b, len(tt.in))
			}
			if int64(bytes.Count([]byte(tt.in[:b]), []byte{'\n'})) != l {
				t.Errorf("lines left out %d do not match the newlines in the bytes left out", l)
			}
		})
	}
}

// Output for the model is valid UTF-8 without terminal control sequences.
func TestClean(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello\nworld\n", "hello\nworld\n"},
		{"colours", "\x1b[1;31merror\x1b[0m: bad\n", "error: bad\n"},
		{"title (OSC)", "\x1b]0;title\x07ok\n", "ok\n"},
		{"progress bar", "10%\r50%\r100%\ndone\n", "100%\ndone\n"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"trailing CR", "a\r", "a"},
		{"invalid UTF-8", "caf\xe9 ok\n", "caf\uFFFD ok\n"},
		{"control characters", "a\x00b\x07c\td\n", "a\uFFFDb\uFFFDc\td\n"},
		{"C1 control", "a\u0085b", "a\uFFFDb"},
		{"cut escape", "ok\x1b[", "ok"},
		{"multibyte kept", "日本語\n", "日本語\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clean([]byte(tt.in))
			if got != tt.want {
				t.Errorf("clean(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("clean(%q) is not valid UTF-8", tt.in)
			}
		})
	}
}

func TestLooksBinary(t *testing.T) {
	tests := []struct {
		in   []byte
		want bool
	}{
		{[]byte("plain text\n"), false},
		{[]byte("\x1b[31mred\x1b[0m\n"), false},
		{[]byte("a\x00b\x00c\x00"), true},
		{bytes.Repeat([]byte{0xff, 0xfe, 'a'}, 10), true},
		{append(bytes.Repeat([]byte("text "), 100), 0), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := looksBinary(tt.in); got != tt.want {
			t.Errorf("looksBinary(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

// spec: O3 — the notice names exact numbers.
func TestNotice(t *testing.T) {
	tests := []struct {
		s    shown
		want string
	}{
		{shown{}, ""},
		{shown{omittedBytes: 1234567, omittedLines: 12345, keptLines: 1000},
			"[… 12,345 lines and 1,234,567 bytes (1.2 MiB) omitted; the last 1,000 lines follow …]"},
		{shown{omittedBytes: 500, omittedLines: 1, keptLines: 1},
			"[… 1 line and 500 bytes omitted; the last line follows …]"},
		{shown{omittedBytes: 90000, omittedLines: 0, partial: true},
			"[… 0 lines and 90,000 bytes (87.9 KiB) omitted; what follows is the end of a longer line …]"},
		{shown{omittedBytes: 3000000, lostBytes: 2000000, omittedLines: 10, keptLines: 5},
			"[… 3,000,000 bytes (2.9 MiB) omitted: 2,000,000 were overwritten in the bounded buffer before this read (their lines are not counted), then 1,000,000 in 10 lines; the last 5 lines follow …]"},
	}
	for _, tt := range tests {
		if got := tt.s.notice(); got != tt.want {
			t.Errorf("notice(%+v) =\n%q; want\n%q", tt.s, got, tt.want)
		}
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := num(in); got != want {
			t.Errorf("num(%d) = %q; want %q", in, got, want)
		}
	}
}
