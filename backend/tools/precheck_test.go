package tools

import (
	"encoding/json"
	"testing"
)

// StringLen agrees with json.Unmarshal on the decoded length of a field,
// whatever the escapes and wherever the field is.
func TestStringLenAgreesWithUnmarshal(t *testing.T) {
	for _, raw := range []string{
		`{"content":"abc"}`,
		` { "path" : "a\"b" , "content" : "x\ny\u00e9\u2028" } `,
		`{"n":1,"o":{"content":"inner"},"a":[1,"]",{"b":"}"}],"content":"outer"}`,
		`{"content":"\ud83d\ude00 \ud800 \udc00 \ud800\u0041"}`,
		"{\"content\":\"a\xffb\xc3\"}",
		`{"content":""}`,
		`{"t":true,"f":false,"z":null,"content":"\\\/\b\f\r\t"}`,
	} {
		var v struct{ Content string }
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		n, ok := StringLen(json.RawMessage(raw), "content")
		if !ok || n != int64(len(v.Content)) {
			t.Errorf("StringLen(%s) = %d, %v; want %d", raw, n, ok, len(v.Content))
		}
	}
	for _, raw := range []string{`[]`, `{"content":1}`, `{"other":"x"}`, `{"content":"unterminated`, `{"o":{"content":"x"}}`, ``} {
		if n, ok := StringLen(json.RawMessage(raw), "content"); ok {
			t.Errorf("StringLen(%s) = %d, true; want not found", raw, n)
		}
	}
}

func FuzzStringLen(f *testing.F) {
	f.Add(`{"content":"a\u00e9\ud800"}`)
	f.Add(`{"a":[{"content":"x"}],"content":"\n"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var v map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		var s string
		want, isString := v["content"], false
		if want != nil && json.Unmarshal(want, &s) == nil {
			isString = true
		}
		n, ok := StringLen(json.RawMessage(raw), "content")
		// A duplicated key: json keeps the last, StringLen finds the first.
		if ok && isString && n != int64(len(s)) && countKey(raw) == 1 {
			t.Errorf("StringLen(%q) = %d; want %d", raw, n, len(s))
		}
	})
}

func countKey(raw string) int {
	n := 0
	for i := 0; i+9 <= len(raw); i++ {
		if raw[i:i+9] == `"content"` {
			n++
		}
	}
	return n
}
