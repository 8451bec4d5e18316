package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTruncate checks Head and Tail on any text and limits: the kept part
// is a prefix (Head) or suffix (Tail) within both limits, cut at a line
// boundary unless one line alone is over the byte limit, never inside a
// UTF-8 sequence; the Cut counts exactly what was left out; and cutting
// again with the same limits changes nothing (idempotence).
//
// spec: O1, O4, B2
func FuzzTruncate(f *testing.F) {
	for _, s := range []string{"", "a", "a\n", "a\nb\nc\n", "a\nb\nc", "héllo wörld\n", "\n\n\n", strings.Repeat("x", 100) + "\ny\n", "日本語\n日本語"} {
		for _, l := range [][2]int{{0, 0}, {1, 0}, {0, 3}, {2, 5}, {1, 1}} {
			f.Add(s, l[0], l[1])
		}
	}
	f.Fuzz(func(t *testing.T, s string, maxLines, maxBytes int) {
		l := Limits{Lines: max(maxLines%5000, 0), Bytes: max(maxBytes%(1<<16), 0)}
		for _, tail := range []bool{false, true} {
			cut, name := Head, "Head"
			if tail {
				cut, name = Tail, "Tail"
			}
			kept, c := cut(s, l)
			if !tail && !strings.HasPrefix(s, kept) || tail && !strings.HasSuffix(s, kept) {
				t.Fatalf("%s(%q, %+v) = %q: not a part of its end", name, s, l, kept)
			}
			if c.TotalBytes != int64(len(s)) || c.TotalLines != lines(s) || c.Bytes != int64(len(s)-len(kept)) || c.Tail != tail {
				t.Fatalf("%s(%q, %+v) = %q, %+v: the counts are wrong", name, s, l, kept, c)
			}
			if c.Lines < 0 || c.Lines > c.TotalLines || (c.Bytes == 0) != (c.Lines == 0) {
				t.Fatalf("%s(%q, %+v) = %q, %+v: lines left out out of range", name, s, l, kept, c)
			}
			if l.Bytes > 0 && len(kept) > l.Bytes {
				t.Fatalf("%s(%q, %+v) kept %d bytes", name, s, l, len(kept))
			}
			if l.Lines > 0 && lines(kept) > int64(l.Lines) {
				t.Fatalf("%s(%q, %+v) kept %d lines", name, s, l, lines(kept))
			}
			if utf8.ValidString(s) && !utf8.ValidString(kept) {
				t.Fatalf("%s(%q, %+v) = %q: cut inside a character", name, s, l, kept)
			}
			if c.Truncated() {
				// A cut at a line boundary, unless the one line
				// there is over the byte limit by itself.
				var boundary bool
				if tail {
					boundary = kept == "" || strings.HasSuffix(s[:len(s)-len(kept)], "\n")
				} else {
					boundary = kept == "" || strings.HasSuffix(kept, "\n")
				}
				if !boundary && (l.Bytes == 0 || strings.Contains(kept, "\n") && !tail) {
					t.Fatalf("%s(%q, %+v) = %q: cut inside a line", name, s, l, kept)
				}
				if c.Notice("") == "" {
					t.Fatalf("%s(%q, %+v): truncated without a notice", name, s, l)
				}
			}
			again, c2 := cut(kept, l)
			if again != kept || c2.Truncated() {
				t.Fatalf("%s twice: %q then %q (%+v)", name, kept, again, c2)
			}
		}
	})
}
