package tools

import (
	"strings"
	"testing"
)

// Invalid UTF-8 and lone surrogates in arguments are refused, saying
// where, instead of being decoded as U+FFFD: content is never changed
// silently.
//
// spec: K1, T4
func TestDecodeRefusesWhatJSONWouldReplace(t *testing.T) {
	type args struct {
		Path    string `json:"path"`
		Content string `json:"content"`
		Edits   []struct {
			Old string `json:"old_string"`
			New string `json:"new_string"`
		} `json:"edits"`
	}
	for _, c := range []struct {
		name, args string
		want       []string // parts of the error; none: it decodes
		content    string   // what content decodes to, when it does
	}{
		{name: "raw 0xff", args: "{\"path\":\"a\",\"content\":\"ab\xffc\"}", want: []string{`argument "content"`, "0xff", "line 1, column 3", "not valid UTF-8"}},
		{name: "truncated multibyte", args: "{\"content\":\"x\xe2\x82\"}", want: []string{`argument "content"`, "0xe2 0x82", "truncated"}},
		{name: "overlong", args: "{\"content\":\"\xc0\xaf\"}", want: []string{`argument "content"`, "0xc0 0xaf", "overlong"}},
		{name: "surrogate as utf-8", args: "{\"content\":\"\xed\xa0\x80\"}", want: []string{`argument "content"`, "surrogate encoded as UTF-8"}},
		{name: "lone high", args: `{"path":"a","content":"one\ntwo\nthree\n1234\ud800x"}`, want: []string{`argument "content"`, `lone UTF-16 surrogate \ud800`, "line 4, column 5", "bash"}},
		{name: "lone high at the end", args: `{"content":"\uD83D"}`, want: []string{`\ud83d`, "line 1, column 1"}},
		{name: "high then non-low", args: `{"content":"\ud83d\u0041"}`, want: []string{`\ud83d`}},
		{name: "lone low", args: `{"content":"ab\udc00"}`, want: []string{`lone UTF-16 surrogate \udc00`, "column 3", "low surrogate"}},
		{name: "reversed pair", args: `{"content":"\ude00\ud83d"}`, want: []string{`\ude00`, "column 1"}},
		{name: "in an edit", args: `{"edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"\ud800"}]}`, want: []string{`argument "edits[1].new_string"`}},
		{name: "in a key", args: "{\"con\xfftent\":\"x\"}", want: []string{"0xff"}},
		{name: "outside a string", args: "{\"content\":\"x\"}\xff", want: []string{"outside any string"}},
		{name: "valid pair", args: `{"content":"\ud83d\ude00"}`, content: "😀"},
		{name: "valid emoji", args: `{"content":"a😀b é 中"}`, content: "a😀b é 中"},
		{name: "escaped backslash before u", args: `{"content":"\\ud800"}`, content: `\ud800`},
		{name: "plain escapes", args: `{"content":"a\"b\\c\n\u00e9"}`, content: "a\"b\\c\né"},
		{name: "U+FFFD itself", args: `{"content":"\ufffd �"}`, content: "\ufffd \ufffd"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a args
			err := Decode(Call{Name: "write", Arguments: []byte(c.args)}, &a)
			if len(c.want) == 0 {
				if err != nil || a.Content != c.content {
					t.Fatalf("Decode(%q) = %v, content %q; want nil, %q", c.args, err, a.Content, c.content)
				}
				return
			}
			if err == nil {
				t.Fatalf("Decode(%q) = nil (content %q); want an error", c.args, a.Content)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Decode(%q) = %q; want it to say %q", c.args, err, w)
				}
			}
		})
	}
}

// FuzzCheckUnicode: whatever the arguments, either they are refused or
// decoding changes no string (no U+FFFD appears that was not sent).
func FuzzCheckUnicode(f *testing.F) {
	for _, s := range []string{`{"content":"\ud800"}`, "{\"content\":\"\xff\"}", `{"content":"\ud83d\ude00"}`, `{"a":["\udc00"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v struct {
			Content string `json:"content"`
		}
		if checkUnicode(b) != nil {
			return
		}
		if Decode(Call{Arguments: b}, &v) != nil {
			return
		}
		if strings.ContainsRune(v.Content, '\ufffd') && !strings.Contains(string(b), "\ufffd") && !strings.Contains(strings.ToLower(string(b)), `\ufffd`) {
			t.Fatalf("%q decoded to %q: a replacement character appeared", b, v.Content)
		}
	})
}
