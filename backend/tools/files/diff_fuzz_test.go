package files

import (
	"bytes"
	"strings"
	"testing"
)

// applyForward applies diff to before strictly, as patch does without fuzz:
// each hunk's old lines must stand exactly where its header says.
func applyForward(t *testing.T, before []byte, diff string) []byte {
	t.Helper()
	hs, err := parseHunks(diff)
	if err != nil {
		t.Fatalf("parse the diff Unified made: %v\n%s", err, diff)
	}
	lines := splitLines(string(before))
	var out []string
	next := 0 // the first line of before not yet copied
	for i, h := range hs {
		at := h.oldStart - 1
		if h.oldCount == 0 {
			at = h.oldStart
		}
		old := h.side(true)
		if at < next || at+len(old) > len(lines) {
			t.Fatalf("hunk %d starts at line %d, out of place\n%s", i+1, at+1, diff)
		}
		for k, l := range old {
			if lines[at+k] != l {
				t.Fatalf("hunk %d: line %d is %q, the diff says %q\n%s", i+1, at+k+1, lines[at+k], l, diff)
			}
		}
		out = append(out, lines[next:at]...)
		out = append(out, h.side(false)...)
		next = at + len(old)
	}
	out = append(out, lines[next:]...)
	return []byte(strings.Join(out, ""))
}

// FuzzUnifiedRoundTrip checks, for any two texts, that the diff Unified
// makes turns the old into the new when applied (header positions and
// context exact), turns the new back into the old when every hunk is
// reverted (what revert does), counts its added and removed lines right,
// and is empty only for equal contents: a revert must give back exactly
// what the change replaced.
//
// spec: F1, D1
func FuzzUnifiedRoundTrip(f *testing.F) {
	for _, s := range [][2]string{
		{"", "a\n"}, {"a\n", ""}, {"a\nb\nc\n", "a\nB\nc\n"}, {"a", "a\n"}, {"a\n", "a"}, {"x\r\ny\r\n", "x\ny\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10\n"}, {"\n\n\n", "\n"}, {"a\\\nb", "\\ c"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, before, after []byte) {
		if isBinary(before) || isBinary(after) || len(before)+len(after) > MaxDiff {
			return
		}
		d := Unified("a/f", "b/f", before, after, true, true)
		if (d.Text == "") != bytes.Equal(before, after) {
			t.Fatalf("Unified(%q, %q) text %q: empty exactly when equal", before, after, d.Text)
		}
		if d.Text == "" {
			return
		}
		if got := applyForward(t, before, d.Text); !bytes.Equal(got, after) {
			t.Fatalf("the diff applied to %q gives %q; want %q\n%s", before, got, after, d.Text)
		}
		hs, _ := parseHunks(d.Text)
		all := make([]int, len(hs))
		added, removed := 0, 0
		for i, h := range hs {
			all[i] = i + 1
			added, removed = added+h.added, removed+h.removed
		}
		if added != d.Added || removed != d.Removed {
			t.Fatalf("Unified says +%d -%d; its hunks hold +%d -%d\n%s", d.Added, d.Removed, added, removed, d.Text)
		}
		back, err := unapply(after, d.Text, all)
		if err != nil || !bytes.Equal(back, before) {
			t.Fatalf("reverting every hunk of %q gives %q, %v; want %q\n%s", after, back, err, before, d.Text)
		}
	})
}

// FuzzUnapplyAnyDiff feeds revert's hunk parser and applier any stored
// diff text and hunk numbers: a diff from a damaged database must give an
// error, never a panic or a hang.
//
// spec: F1
func FuzzUnapplyAnyDiff(f *testing.F) {
	d := Unified("a/f", "b/f", []byte("a\nb\nc\n"), []byte("a\nB\nc\nd"), true, true)
	f.Add([]byte("a\nB\nc\nd"), d.Text, 1)
	f.Add([]byte(""), "@@ -0,0 +1 @@\n+x\n", 1)
	f.Add([]byte("x"), "@@ -1 +1 @@\n\\ no\n", 1)
	f.Add([]byte("x\n"), "@@ -5,-3 +99999999999999999999 @@\n-x\n", 1)
	f.Add([]byte("x\n"), "@@ - + @@\n", 0)
	f.Fuzz(func(t *testing.T, content []byte, diff string, which int) {
		out, err := unapply(content, diff, []int{which})
		if err == nil && which < 1 {
			t.Fatalf("unapply hunk %d of %q = %q; want an error", which, diff, out)
		}
	})
}
