package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func encode(v any, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func blobsOf(blobs [][]byte) func(string) ([]byte, error) {
	m := map[string][]byte{}
	for _, b := range blobs {
		m[sum(b)] = b
	}
	return func(sha string) ([]byte, error) {
		b, ok := m[sha]
		if !ok {
			return nil, fmt.Errorf("no blob %s", sha)
		}
		return b, nil
	}
}

// roundTrip splits raw and joins it back; it fails unless the bytes are
// the same.
func roundTrip(t *testing.T, raw string) (*ArgsRef, [][]byte) {
	t.Helper()
	ref, blobs := SplitArgs(raw)
	if ref == nil {
		if len(raw) >= InlineArgs {
			t.Fatalf("SplitArgs of %d bytes = nil; want a reference", len(raw))
		}
		return nil, nil
	}
	got, err := JoinArgs(ref, blobsOf(blobs))
	if err != nil {
		t.Fatalf("JoinArgs: %v", err)
	}
	if got != raw {
		t.Fatalf("JoinArgs(SplitArgs(raw)) differs from raw (%d and %d bytes)", len(got), len(raw))
	}
	return ref, blobs
}

// A write's content becomes a blob of exactly its bytes, so the file
// change's "after" blob is the same blob: one copy of large content.
func TestSplitArgsKeepsContentAsItsBytes(t *testing.T) {
	content := strings.Repeat("line <one> & \"two\"\t\\ \u2028 é ✓\x01\n", 4000)
	for _, html := range []bool{false, true} {
		raw := encode(map[string]string{"path": "a.txt", "content": content}, html)
		ref, blobs := roundTrip(t, raw)
		if len(ref.Pieces) != 1 || string(blobs[0]) != content {
			t.Fatalf("html=%v: %d pieces; want one that is the content", html, len(ref.Pieces))
		}
		want := EscapeJSONLS // Go escapes U+2028 even without HTML escaping
		if html {
			want = EscapeJSONHTML
		}
		if ref.Pieces[0].Escape != want || len(ref.Skeleton) > 64 {
			t.Errorf("html=%v: escape %q, skeleton %q; want %q and a short skeleton", html, ref.Pieces[0].Escape, ref.Skeleton, want)
		}
		var v map[string]string
		if err := json.Unmarshal([]byte(ref.Placeholder()), &v); err != nil || v["path"] != "a.txt" || !strings.Contains(v["content"], "bytes left out") {
			t.Errorf("Placeholder() = %q (%v); want JSON with the path and a note", ref.Placeholder(), err)
		}
	}
}

// Arguments a model escaped its own way, or that are not JSON at all, still
// come back byte for byte.
func TestSplitArgsExactForAnyText(t *testing.T) {
	big := strings.Repeat("abc", 30000)
	for name, raw := range map[string]string{
		"escaped slash":    `{"content":"` + strings.Repeat(`a\/b`, 20000) + `"}`,
		"upper-case hex":   `{"content":"` + strings.Repeat(`a\u000Ab`, 20000) + `"}`,
		"escaped letter":   `{"content":"` + strings.Repeat(`\u0041`, 20000) + `"}`,
		"surrogates":       `{"content":"` + strings.Repeat(`\ud83d\ude00\ud800`, 10000) + `"}`,
		"mixed modes":      `{"content":"` + strings.Repeat(`<\u003c`, 20000) + `"}`,
		"html and raw ls":  `{"content":"` + strings.Repeat("\\u003c\u2028", 20000) + `"}`,
		"plain":            encode(map[string]string{"content": strings.Repeat("<a & b>\n", 20000)}, false),
		"invalid utf-8":    `{"content":"` + strings.Repeat("a\xff\xfeb", 20000) + `"}`,
		"not json":         strings.Repeat(`{"a": "b", oops`, 10000),
		"unterminated":     `{"content":"` + big,
		"many small":       encode(strings.Split(strings.Repeat("word ", 40000), " "), false),
		"two large":        encode(map[string]string{"old": big, "new": big + "x"}, false),
		"large key":        `{"` + big + `":1}`,
		"control raw":      "{\"content\":\"" + strings.Repeat("a\x01b", 30000) + "\"}",
		"trailing escape":  `{"content":"` + big + `\`,
		"short u escape":   `{"content":"` + big + `\u00"}`,
		"exactly inline":   `{"c":"` + strings.Repeat("x", InlineArgs-8) + `"}`,
		"just under limit": `{"c":"` + strings.Repeat("x", InlineArgs-9) + `"}`,
	} {
		t.Run(name, func(t *testing.T) { roundTrip(t, raw) })
	}
}

func FuzzSplitArgs(f *testing.F) {
	f.Add(`{"path":"a","content":"x\ny"}`, 3000)
	f.Add(`{"content":"\u003c\u2028<"}`, 2000)
	f.Add("\"\\", 5000)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = 1 + abs(n)%8000
		raw := strings.Repeat(s, (InlineArgs/max(len(s), 1))+1)
		if len(raw) > 4*InlineArgs {
			raw = raw[:4*InlineArgs]
		}
		roundTrip(t, raw)
		// and as a string value of a JSON object, in both of Go's modes
		v := strings.Repeat(s, n/max(len(s), 1)+1)
		roundTrip(t, encode(map[string]string{"path": s, "content": v + strings.Repeat("z", InlineArgs)}, n%2 == 0))
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
