package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 9 class 12: every form of terminal control a model or a tool may
// send is shown visibly, never passed to the terminal.
func TestCleanTextShowsEveryControl(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "hello, wörld ✓\n\tindented", "hello, wörld ✓\n\tindented"},
		{"OSC 52 clipboard", "\x1b]52;c;ZWNobyBwd25lZA==\x07", `\u001B]52;c;ZWNobyBwd25lZA==\u0007`},
		{"OSC 0 title, ST", "\x1b]0;owned\x1b\\", `\u001B]0;owned\u001B\`},
		{"CSI clear screen", "\x1b[2J\x1b[H", `\u001B[2J\u001B[H`},
		{"CSI cursor moves", "\x1b[10A\x1b[5;5H\x1b[K", `\u001B[10A\u001B[5;5H\u001B[K`},
		{"DCS", "\x1bP1$qm\x1b\\", `\u001BP1$qm\u001B\`},
		{"APC", "\x1b_Gf=100;AAAA\x1b\\", `\u001B_Gf=100;AAAA\u001B\`},
		{"PM", "\x1b^secret\x1b\\", `\u001B^secret\u001B\`},
		{"SOS", "\x1bXx\x1b\\", `\u001BXx\u001B\`},
		{"C1 CSI as a byte", "a\x9b2Jb", `a\x9B2Jb`},
		{"C1 OSC as a byte", "\x9d52;c;x\x9c", `\x9D52;c;x\x9C`},
		{"C1 CSI as UTF-8", "a\u009b2Jb", `a\u009B2Jb`},
		{"C1 OSC and ST as UTF-8", "\u009d0;t\u009c", `\u009D0;t\u009C`},
		{"every C1 as UTF-8", "\u0080\u009f", `\u0080\u009F`},
		{"BEL", "ding\a", `ding\u0007`},
		{"backspace overwrite", "rm -rf /\b\b\b\b\b\b\b\bls     ", `rm -rf /\u0008\u0008\u0008\u0008\u0008\u0008\u0008\u0008ls     `},
		{"carriage return overwrite", "evil\rgood", `evil\u000Dgood`},
		{"carriage return at the end", "evil\r", `evil\u000D`},
		{"CRLF stays", "one\r\ntwo\r\n", "one\r\ntwo\r\n"},
		{"NUL, DEL, SO", "\x00\x7f\x0e", `\u0000\u007F\u000E`},
		{"bidi override", "file\u202etxt.exe", `file\u202Etxt.exe`},
		{"bidi embeddings and isolates", "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069`},
		{"bidi marks", "\u200e\u200f\u061c", `\u200E\u200F\u061C`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xFFb\xC3`},
		{"line separators are not controls", "a\u2028b\u2029c", "a\u2028b\u2029c"},
	} {
		if got := cleanText(c.in); got != c.want {
			t.Errorf("%s: cleanText(%q) = %q; want %q", c.name, c.in, got, c.want)
		}
	}
}

// A character cut between two writes (a text delta ends in the middle of
// one) is completed, not shown as bytes; controls split across writes stay
// visible.
func TestTermWriterAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	w := newTermWriter(&out)
	for _, piece := range []string{"é"[:1], "é"[1:], "\xc2", "\x9b", "2J", "\x1b", "]0;x", "\u202e"[:2], "\u202e"[2:], "ok\n"} {
		if n, err := w.Write([]byte(piece)); n != len(piece) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", piece, n, err)
		}
	}
	if got, want := out.String(), `é\u009B2J\u001B]0;x\u202Eok`+"\n"; got != want {
		t.Fatalf("through the writer: %q; want %q", got, want)
	}
}

// JSON-lines output stays exact JSON with the same values: the escapes the
// filter writes are JSON's own, and encoding/json already escapes C0
// controls and U+2028/U+2029.
func TestTermWriterKeepsJSONExact(t *testing.T) {
	in := map[string]string{"text": "\x1b]52;c;eA==\x07 \x1b[2J \u009b \u009d \x7f \u202e \u2066 \u2028 \u2029 \r\n\t\b ok ✓"}
	var out bytes.Buffer
	enc := json.NewEncoder(newTermWriter(&out))
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		t.Fatal(err)
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("output %q is not JSON: %v", out.String(), err)
	}
	if back["text"] != in["text"] {
		t.Fatalf("decoded %q; want %q", back["text"], in["text"])
	}
	checkInert(t, out.String())
}

// Whatever goes in, nothing that can control a terminal comes out.
func FuzzTermWriter(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;x\a", "\x9b2J", "\u009b", "a\rb", "\u202e", "\xc2", "é\r\n"} {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		var out bytes.Buffer
		w := newTermWriter(&out)
		if split > 0 && split < len(b) {
			w.Write(b[:split])
			b = b[split:]
		}
		w.Write(b)
		checkInert(t, out.String())
	})
}

func checkInert(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("output %q is not UTF-8", s)
	}
	for i, r := range s {
		if dangerous(r, []byte(s[i+utf8.RuneLen(r):])) {
			t.Fatalf("output %q holds %U at %d", s, r, i)
		}
	}
	if strings.ContainsAny(s, "\x1b\x07\x08") {
		t.Fatalf("output %q holds ESC, BEL or BS", s)
	}
}
