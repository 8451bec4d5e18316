package tools

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var bigText = strings.Repeat("a \"quoted\" line with \\ and é\n", 40000) // over 1 MiB once encoded

func bigDoc(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !isLarge(b) {
		t.Fatalf("a %d-byte document is not large", len(b))
	}
	return b
}

// Large arguments decode in place to exactly what the Decoder gives.
func TestInstanceMatchesTheDecoder(t *testing.T) {
	doc := bigDoc(t, map[string]any{"content": bigText, "n": json.Number("12345678901234567890"), "f": 1.5,
		"list": []any{true, false, nil, "x", map[string]any{"k": bigText}}, "empty": map[string]any{}})
	want, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	got, err := instance(doc)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("instance differs from jsonschema.UnmarshalJSON (err %v)", err)
	}
}

// Decode of large arguments takes the same decisions, with the same words,
// as for small ones.
func TestDecodeLargeIsAsStrict(t *testing.T) {
	type args struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
		Limit   int     `json:"limit"`
	}
	decode := func(raw json.RawMessage) (args, string) {
		var a args
		err := Decode(Call{Arguments: raw}, &a)
		if err != nil {
			return a, err.Error()
		}
		return a, ""
	}
	ok := bigDoc(t, map[string]any{"path": "a.txt", "content": bigText, "limit": 3})
	a, msg := decode(ok)
	if msg != "" || a.Path != "a.txt" || a.Content == nil || *a.Content != bigText || a.Limit != 3 {
		t.Fatalf("Decode = %q, %q; want the values", a.Path, msg)
	}
	for name, raw := range map[string]string{
		"unknown field": `{"path":"a","content":%s,"mode":1}`,
		"wrong type":    `{"path":["x"],"content":%s}`,
		"int as string": `{"limit":%s}`,
		"trailing":      `{"content":%s} {"path":"b"}`,
	} {
		big := strings.Replace(raw, "%s", string(bigDoc(t, bigText)), 1)
		small := strings.Replace(raw, "%s", `"short"`, 1)
		_, wantMsg := decode(json.RawMessage(small))
		_, gotMsg := decode(json.RawMessage(big))
		if wantMsg == "" || gotMsg != wantMsg {
			t.Errorf("%s: large arguments give %q; small ones %q", name, gotMsg, wantMsg)
		}
	}
}
