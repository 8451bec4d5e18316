package sandbox

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refTally computes what a ring of the given size must report for all.
func refTally(all []byte, size int) tally {
	kept := all
	if len(kept) > size {
		kept = kept[len(kept)-size:]
		kept = kept[utf8Start(kept):]
	}
	dropped := all[:len(all)-len(kept)]
	t := tally{output: kept, totalBytes: int64(len(all)), droppedBytes: int64(len(dropped))}
	t.totalLines = int64(bytes.Count(all, []byte("\n")))
	if len(all) > 0 && all[len(all)-1] != '\n' {
		t.totalLines++
	}
	t.droppedLines = int64(bytes.Count(dropped, []byte("\n")))
	return t
}

// TestRingMatchesReference writes random chunks of text, UTF-8 and binary
// into rings of several sizes and compares every count with a plain
// computation over everything written.
//
// spec: O2
// spec: O3
func TestRingMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b\n", "é", "漢", "😀", "\n", "\xff", "\x80", "line\n"}
	for _, size := range []int{1, 2, 3, 4, 7, 64, 1000} {
		for round := 0; round < 50; round++ {
			r := newRing(size)
			var all []byte
			for w := rng.IntN(20); w > 0; w-- {
				var chunk strings.Builder
				for n := rng.IntN(3 * size); n > 0; n-- {
					chunk.WriteString(alphabet[rng.IntN(len(alphabet))])
				}
				r.Write([]byte(chunk.String()))
				all = append(all, chunk.String()...)
			}
			got, want := r.tally(), refTally(all, size)
			if !bytes.Equal(got.output, want.output) || got.totalBytes != want.totalBytes || got.totalLines != want.totalLines ||
				got.droppedBytes != want.droppedBytes || got.droppedLines != want.droppedLines {
				t.Fatalf("size %d: tally %+v; want %+v (all %q)", size, got, want, all)
			}
			if int64(len(got.output))+got.droppedBytes != got.totalBytes {
				t.Fatalf("size %d: kept %d + dropped %d != total %d", size, len(got.output), got.droppedBytes, got.totalBytes)
			}
			// Any offset: data is the stream from there on, or its kept tail.
			off := rng.Int64N(int64(len(all)) + 2)
			data, next, dropped := r.since(off)
			if next != int64(len(all)) {
				t.Fatalf("since(%d): next %d; want %d", off, next, len(all))
			}
			if o := min(off, int64(len(all))); o+dropped+int64(len(data)) != next || !bytes.Equal(data, all[o+dropped:]) {
				t.Fatalf("since(%d) = %q, dropped %d; stream %q", off, data, dropped, all)
			}
		}
	}
}

func TestUTF8Start(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{"abc", 0},
		{"\x80abc", 1},           // the tail of a 2-byte rune
		{"\x98\x80abc", 2},       // the tail of a 4-byte rune
		{"\x9f\x98\x80a", 3},     // the tail of a 4-byte rune
		{"\x80\x80\x80\x80a", 0}, // not UTF-8: binary, kept as it is
		{"\x80", 1},
		{"", 0},
	}
	for _, c := range cases {
		if got := utf8Start([]byte(c.in)); got != c.want {
			t.Errorf("utf8Start(%q) = %d; want %d", c.in, got, c.want)
		}
	}
	tail := []byte("😀😀")[1:]
	if s := tail[utf8Start(tail):]; !utf8.Valid(s) {
		t.Errorf("cut tail %q is not valid", s)
	}
}

// TestPathsIn pins how messages name paths.
func TestPathsIn(t *testing.T) {
	cases := []struct{ line, want string }{
		{"bash: line 1: /a/b: Read-only file system", "/a/b"},
		{"/usr/bin/bash: line 1: ./run.sh: Permission denied", "/w/run.sh"},
		{"bash: line 1: .foya/new: Permission denied", "/w/.foya/new"},
		{"touch: cannot touch '/a/b c': Permission denied", "/a/b c"},
		{"mkdir: cannot create directory ‘x’: Permission denied", "/w/x"},
		{"error: could not lock config file /h/.gitconfig: Permission denied", "/h/.gitconfig"},
		{"ln: failed to create hard link 'hl' => '/o/e': Invalid cross-device link", "/w/hl /o/e"},
	}
	for _, c := range cases {
		if got := strings.Join(pathsIn(c.line, "/w"), " "); got != c.want {
			t.Errorf("pathsIn(%q) = %q; want %q", c.line, got, c.want)
		}
	}
}

func BenchmarkRingWrite(b *testing.B) {
	r := newRing(DefaultTailBytes)
	chunk := bytes.Repeat([]byte("0123456789abcde\n"), 16<<10)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		r.Write(chunk)
	}
}
