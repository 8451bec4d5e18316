package shell

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

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

// spec: O2, O3 — the notice counts what the ring buffer dropped and what
// the cut dropped against the command's totals; background reads say what
// the buffer overwrote.
func TestShowCounts(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	out := b.String() // 8,893 bytes
	// As if the ring had dropped 100 lines of 1,000 bytes before out.
	s := showResult([]byte(out), 1000, 100, int64(len(out))+1000, 2100)
	want := fmt.Sprintf("[1,300 lines (%s bytes) of 2,100 lines (9,893 bytes) left out before this] %s", num(int64(1000+len(out)-len(s.text))), narrowHint)
	if s.notice != want || !strings.HasPrefix(s.text, "1201\n") || !strings.HasSuffix(s.text, "\n2000\n") {
		t.Errorf("notice %q, text starts %q; want %q", s.notice, s.text[:10], want)
	}
	if s := showResult([]byte("ok\n"), 0, 0, 3, 1); s.notice != "" || s.text != "ok\n" {
		t.Errorf("short output: %+v", s)
	}
	s = showRead([]byte(out), 5000)
	if !strings.HasPrefix(s.notice, "[5,000 bytes of new output were overwritten in the bounded buffer before this read (their lines are not counted); then 1,200 lines") {
		t.Errorf("read notice %q", s.notice)
	}
	s = showRead([]byte("x\x00\x01\x02\x03"), 0)
	if !s.binary || s.text != "" || !strings.Contains(s.body(), "binary output, 5 bytes not shown") {
		t.Errorf("binary read: %+v", s)
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := num(in); got != want {
			t.Errorf("num(%d) = %q; want %q", in, got, want)
		}
	}
}
