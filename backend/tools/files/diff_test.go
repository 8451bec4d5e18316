package files

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// applyPatch applies diff to before with GNU patch and returns the result.
func applyPatch(t *testing.T, before []byte, diff string) []byte {
	t.Helper()
	patch := needPatch(t)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "before"), filepath.Join(dir, "after")
	if err := os.WriteFile(in, before, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(patch, "--quiet", "--force", "--no-backup-if-mismatch", "-o", out, in)
	cmd.Stdin = strings.NewReader(diff)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\ndiff:\n%s", err, msg, diff)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// spec: F1
// Every diff Unified makes applies with GNU patch to the before content and
// gives exactly the after content: CRLF, no newline at the end, empty
// files, created and deleted files.
func TestUnifiedAppliesWithGNUPatch(t *testing.T) {
	cases := []struct{ name, before, after string }{
		{"edit one line", "a\nb\nc\n", "a\nB\nc\n"},
		{"append", "a\nb\n", "a\nb\nc\n"},
		{"prepend", "b\nc\n", "a\nb\nc\n"},
		{"no newline at end, before", "a\nb", "a\nb\n"},
		{"no newline at end, after", "a\nb\n", "a\nb"},
		{"no newline at end, both", "a\nb", "a\nc"},
		{"no newline, unchanged last line", "x\ny\nz\nw\nv\nlast", "X\ny\nz\nw\nv\nlast"},
		{"crlf", "one\r\ntwo\r\nthree\r\n", "one\r\n2\r\nthree\r\n"},
		{"mixed endings", "one\r\ntwo\nthree\r\n", "one\ntwo\r\nthree\r\n"},
		{"to empty", "a\nb\n", ""},
		{"from empty", "", "a\nb\n"},
		{"single line no newline to empty", "x", ""},
		{"far apart changes", strings.Repeat("l\n", 20) + "mid\n" + strings.Repeat("l\n", 20), "first\n" + strings.Repeat("l\n", 20) + "MID\n" + strings.Repeat("l\n", 19) + "end\n"},
		{"non-UTF-8 bytes", "caf\xe9\nna\xefve\n", "caf\xe9!\nna\xefve\n"},
		{"blank lines", "\n\n\n", "\n\nx\n\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Unified("a/f", "b/f", []byte(c.before), []byte(c.after), true, true)
			if d.Binary {
				t.Fatal("marked binary")
			}
			if got := applyPatch(t, []byte(c.before), d.Text); !bytes.Equal(got, []byte(c.after)) {
				t.Fatalf("patch gives %q; want %q\ndiff:\n%s", got, c.after, d.Text)
			}
		})
	}
}

// spec: F1
// Random contents, random edits: the diff always applies exactly, and its
// counts match the +/- lines.
func TestUnifiedRandomAppliesWithGNUPatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "", " ", "delta\r", "x"}
	text := func() []byte {
		var b bytes.Buffer
		n := r.IntN(30)
		for i := 0; i < n; i++ {
			b.WriteString(words[r.IntN(len(words))])
			if i < n-1 || r.IntN(3) > 0 {
				b.WriteByte('\n')
			}
		}
		return b.Bytes()
	}
	for i := range 60 {
		before := text()
		after := mutate(r, before, words)
		d := Unified("a/f", "b/f", before, after, true, true)
		if bytes.Equal(before, after) {
			if d.Text != "" {
				t.Fatalf("case %d: equal contents, diff %q", i, d.Text)
			}
			continue
		}
		if got := applyPatch(t, before, d.Text); !bytes.Equal(got, after) {
			t.Fatalf("case %d: patch gives %q; want %q\ndiff:\n%s", i, got, after, d.Text)
		}
		plus, minus := 0, 0
		for _, l := range strings.Split(d.Text, "\n") {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			case strings.HasPrefix(l, "+"):
				plus++
			case strings.HasPrefix(l, "-"):
				minus++
			}
		}
		if plus != d.Added || minus != d.Removed {
			t.Fatalf("case %d: counts +%d -%d; diff has +%d -%d", i, d.Added, d.Removed, plus, minus)
		}
	}
}

// mutate changes some lines of b: replaces, inserts, deletes.
func mutate(r *rand.Rand, b []byte, words []string) []byte {
	lines := splitLines(string(b))
	for range r.IntN(4) + 1 {
		switch k := r.IntN(3); {
		case k == 0 && len(lines) > 0:
			i := r.IntN(len(lines))
			lines = append(lines[:i], lines[i+1:]...)
		case k == 1 && len(lines) > 0:
			lines[r.IntN(len(lines))] = words[r.IntN(len(words))] + "!\n"
		default:
			i := r.IntN(len(lines) + 1)
			lines = append(lines[:i], append([]string{words[r.IntN(len(words))] + "\n"}, lines[i:]...)...)
		}
	}
	return []byte(strings.Join(lines, ""))
}

// spec: F1
func TestUnifiedMarksBinaryAndMissingSides(t *testing.T) {
	d := Unified("a/f", "b/f", []byte("x\x00y"), []byte("x\x00z"), true, true)
	if !d.Binary || d.Text != "Binary files a/f and b/f differ\n" {
		t.Fatalf("binary diff = %+v", d)
	}
	d = Unified("a/f", "b/f", nil, []byte("new\n"), false, true)
	if !strings.HasPrefix(d.Text, "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+new\n") || d.Added != 1 {
		t.Fatalf("creation diff = %q", d.Text)
	}
	d = Unified("a/f", "b/f", []byte("old\n"), nil, true, false)
	if !strings.HasPrefix(d.Text, "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n") || d.Removed != 1 {
		t.Fatalf("deletion diff = %q", d.Text)
	}
	if d := Unified("a/f", "b/f", []byte("same"), []byte("same"), true, true); d.Text != "" {
		t.Fatalf("no change gives %q", d.Text)
	}
}

// Hunks revert one at a time: reversing hunk 2 of three leaves 1 and 3.
func TestUnapplyHunks(t *testing.T) {
	var before, after strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&before, "line %d\n", i)
		switch i {
		case 5, 20, 35:
			fmt.Fprintf(&after, "LINE %d\n", i)
		default:
			fmt.Fprintf(&after, "line %d\n", i)
		}
	}
	d := Unified("a/f", "b/f", []byte(before.String()), []byte(after.String()), true, true)
	if n := strings.Count(d.Text, "@@ -"); n != 3 {
		t.Fatalf("%d hunks:\n%s", n, d.Text)
	}
	got, err := unapply([]byte(after.String()), d.Text, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(after.String(), "LINE 20", "line 20", 1)
	if string(got) != want {
		t.Fatalf("unapply 2 gave\n%s", got)
	}
	got, err = unapply([]byte(after.String()), d.Text, []int{1, 2, 3})
	if err != nil || string(got) != before.String() {
		t.Fatalf("unapply all = %v\n%s", err, got)
	}
	if _, err := unapply([]byte(after.String()), d.Text, []int{4}); err == nil {
		t.Fatal("hunk 4 of 3 accepted")
	}
	if _, err := unapply([]byte("something else\n"), d.Text, []int{1}); err == nil {
		t.Fatal("a hunk that is not there applied")
	}
}
