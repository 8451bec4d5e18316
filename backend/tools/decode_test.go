package tools

import (
	"strings"
	"testing"
)

// TestDecodeRefusesWhatTheSchemaRefuses pins what FuzzToolArgs found
// Decode letting through that every tool's schema refuses: null (decoded
// as "no arguments"), a key that matches a field only when case is ignored
// (encoding/json matches names case-insensitively), a key given twice (the
// last one won, unseen by a person reading the first) and a stray closing
// brace after the object (json.Decoder.More is false before it). What a
// person reads in the JSON must be what the tool acts on.
//
// spec: K1
func TestDecodeRefusesWhatTheSchemaRefuses(t *testing.T) {
	type edit struct {
		Old string `json:"old_string"`
	}
	type args struct {
		Path  string `json:"path"`
		Limit *int   `json:"limit"`
		Edits []edit `json:"edits"`
	}
	for _, c := range []struct{ in, want string }{
		{`null`, "not a valid JSON object: they are null"},
		{` [1]`, "not a valid JSON object: they are an array"},
		{`"x"`, "not a valid JSON object: they are a string"},
		{`7`, "not a valid JSON object: they are a number"},
		{`{"pAth":"a"}`, `unknown argument "pAth": argument names are case-sensitive (did you mean "path"?)`},
		{`{"edits":[{"OLD_STRING":"a"}]}`, `unknown argument "edits[0].OLD_STRING"`},
		{`{"path":"a","path":"/etc/passwd"}`, `argument "path" is given twice`},
		{`{"path":"a","PATH":"/etc/passwd"}`, `unknown argument "PATH"`},
		{`{"edits":[{"old_string":"a","old_string":"b"}]}`, `argument "edits[0].old_string" is given twice`},
		{`{}}`, "more than one JSON value"},
		{`{} ]`, "more than one JSON value"},
	} {
		var a args
		err := Decode(Call{Name: "t", Arguments: []byte(c.in)}, &a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%s) = %v; want an error with %q", c.in, err, c.want)
		}
	}
	for _, in := range []string{``, ` `, `{}`, `{"path":"a","limit":2,"edits":[{"old_string":"x"}]}`, "{\"path\":\"a\"}\n"} {
		var a args
		if err := Decode(Call{Name: "t", Arguments: []byte(in)}, &a); err != nil {
			t.Errorf("Decode(%q) = %v; want nil", in, err)
		}
	}
}

// TestSearchValidatesItsArguments: tool_search decoded its arguments with
// plain json.Unmarshal, so unknown arguments and a limit outside the
// schema's 1 to 20 ran (FuzzToolArgs found both). Every built-in tool's
// arguments go through Decode, tool_search's included.
//
// spec: K1
func TestSearchValidatesItsArguments(t *testing.T) {
	rc := &RunContext{Activator: searchFake{{Name: "git_status", Description: "Shows the status."}}}
	for _, c := range []struct{ in, want string }{
		{`{"query":"git","extra":1}`, `unknown argument "extra"`},
		{`{"query":"git","limit":50}`, "limit is 50; give 1 to 20"},
		{`{"query":"git","limit":0}`, "limit is 0"},
		{`{"Query":"git"}`, `unknown argument "Query"`},
	} {
		res, err := Search{}.Run(t.Context(), rc, Call{Name: SearchName, Arguments: []byte(c.in)})
		if err != nil || !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("tool_search(%s) = %q, %v, %v; want an error result with %q", c.in, res.Text, res.IsError, err, c.want)
		}
	}
	res, err := Search{}.Run(t.Context(), rc, Call{Name: SearchName, Arguments: []byte(`{"query":"git","limit":20}`)})
	if err != nil || res.IsError || !strings.Contains(res.Text, "git_status") {
		t.Errorf("tool_search(limit 20) = %q, %v, %v; want git_status activated", res.Text, res.IsError, err)
	}
}

type searchFake []Spec

func (s searchFake) Candidates() []Spec { return s }
func (searchFake) Activate(...string)   {}
