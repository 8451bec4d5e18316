package tools

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// spec: O1, O2, O3 — documents keep their head, shell output its tail; both
// limits apply; the notice counts exactly what was left out.
func TestHeadAndTail(t *testing.T) {
	s := numbered(100) // "line 1\n" … 7 to 9 bytes a line
	head, c := Head(s, Limits{Lines: 10})
	if !strings.HasPrefix(head, "line 1\n") || !strings.HasSuffix(head, "line 10\n") || c.Lines != 90 || c.Bytes != int64(len(s)-len(head)) {
		t.Fatalf("Head lines: %q %+v", head[len(head)-10:], c)
	}
	tail, c := Tail(s, Limits{Lines: 10})
	if !strings.HasPrefix(tail, "line 91\n") || c.Lines != 90 || c.Bytes != int64(len(s)-len(tail)) || !c.Tail {
		t.Fatalf("Tail lines: %q %+v", tail[:10], c)
	}
	head, c = Head(s, Limits{Bytes: 50})
	if strings.Count(head, "\n") != 7 || c.Lines != 93 {
		t.Fatalf("Head bytes: %q %+v", head, c)
	}
	tail, c = Tail(s, Limits{Lines: 1000, Bytes: 20})
	if tail != "line 99\nline 100\n" || c.Lines != 98 {
		t.Fatalf("Tail bytes: %q %+v", tail, c)
	}
	if _, c := Head(s, Limits{Lines: 1000, Bytes: 1 << 20}); c.Truncated() || c.Notice("x") != "" {
		t.Fatalf("nothing to cut: %+v", c)
	}
	n := c.Notice("see more with bash_output")
	if n != "[98 lines (775 bytes) of 100 lines (792 bytes) left out before this] see more with bash_output" {
		t.Fatalf("notice = %q", n)
	}
}

// Cuts never split a UTF-8 character, even inside one very long line.
func TestCutsKeepRunesWhole(t *testing.T) {
	long := strings.Repeat("日本語", 100) // 900 bytes, no newline
	for _, b := range []int{1, 2, 4, 5, 100, 899} {
		h, hc := Head(long, Limits{Bytes: b})
		tl, tc := Tail(long, Limits{Bytes: b})
		if !utf8.ValidString(h) || !utf8.ValidString(tl) || len(h) > b || len(tl) > b {
			t.Fatalf("bytes %d: head %q tail %q", b, h, tl)
		}
		if hc.Lines != 1 || tc.Lines != 1 || hc.Bytes+int64(len(h)) != 900 || tc.Bytes+int64(len(tl)) != 900 {
			t.Fatalf("bytes %d: cuts %+v %+v", b, hc, tc)
		}
	}
	if Count(1234567) != "1,234,567" || Count(12) != "12" {
		t.Fatal("Count")
	}
}
