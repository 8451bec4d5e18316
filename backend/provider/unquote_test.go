package provider

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzUnquoteExact: where encoding/json replaced nothing (its result is
// what unquoteExact gives, when that is valid UTF-8), both agree; where it
// would have replaced invalid UTF-8 or a lone surrogate with U+FFFD,
// unquoteExact's result is not valid UTF-8, so the tools' check refuses it
// instead of acting on other content.
func FuzzUnquoteExact(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"q\" \\ \/ \b\f\r"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud800"`,
		`"\udc00x"`, `"\ud83d\u0041"`, `"\ude00\ud83d"`, "\"a\xffb\"", `"{\"content\":\"x\ud800\"}"`, `"\\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		if json.Unmarshal(b, &want) != nil {
			return // the chunk's decoder refuses it before flexArgs sees it
		}
		b = bytes.Trim(b, " \t\r\n") // the decoder hands UnmarshalJSON the value alone
		if len(b) == 0 || b[0] != '"' {
			return
		}
		got, err := unquoteExact(b)
		if err != nil {
			t.Fatalf("unquoteExact(%q): %v", b, err)
		}
		if utf8.ValidString(got) && got != want {
			t.Fatalf("unquoteExact(%q) = %q; encoding/json gives %q", b, got, want)
		}
	})
}

// TestUnquoteExactKeepsWhatJSONWouldReplace pins the two cases.
func TestUnquoteExactKeepsWhatJSONWouldReplace(t *testing.T) {
	for in, want := range map[string]string{
		`"a\ud800b"`:     "a\xed\xa0\x80b",
		"\"a\xffb\"":     "a\xffb",
		`"\ud83d\ude00"`: "😀",
		`"\udc00"`:       "\xed\xb0\x80",
	} {
		got, err := unquoteExact([]byte(in))
		if err != nil || got != want {
			t.Errorf("unquoteExact(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}
