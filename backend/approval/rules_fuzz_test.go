package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseRules reads any bytes as a permissions.json: no panic; an error
// names a line of the file; rules that parse have no empty rule, write
// back (as the rules editor does) to a file that parses to the same rules,
// and are safe to decide with: a deny rule for a tool refuses that tool's
// calls, whatever else the file allows.
//
// spec: K1, A1
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{
		`{"allow":[{"tool":"read"}],"deny":[{"command":"git push"}],"ask":[{"path":"docs/**"}]}`,
		`{"allow":[{"host":"example.org"},{"tool":"bash","command":"go test"}]}`,
		`{"deny":[{}]}`, `{"allow":[{"path":"["}]}`, `{"allow":[{"command":"echo $("}]}`, `{} {}`, `[]`, `null`,
		"{\n\"allow\": [\n{\"tool\": 1}\n]\n}", `{"Allow":[{"TOOL":"x"}]}`, `{"deny":[{"tool":"write"}],"deny":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRules(data, "/w")
		if err != nil {
			if n := bytes.Count(data, []byte("\n")) + 1; lineOf(err) > n {
				t.Fatalf("ParseRules(%q): %v names a line past the file's %d", data, err, n)
			}
			return
		}
		for _, list := range [][]Rule{r.Allow, r.Ask, r.Deny} {
			for _, rule := range list {
				if rule.Tool == "" && rule.Command == "" && rule.Path == "" && rule.Host == "" {
					t.Fatalf("ParseRules(%q) kept an empty rule", data)
				}
			}
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("rules %+v do not marshal: %v", r, err)
		}
		again, err := ParseRules(out, "/w")
		if err != nil {
			t.Fatalf("ParseRules(%q) written back as %s does not parse: %v", data, out, err)
		}
		for i, pair := range [][2][]Rule{{r.Allow, again.Allow}, {r.Ask, again.Ask}, {r.Deny, again.Deny}} {
			if (len(pair[0]) > 0 || len(pair[1]) > 0) && !reflect.DeepEqual(pair[0], pair[1]) {
				t.Fatalf("ParseRules(%q) list %d = %+v; written back and read %+v", data, i, pair[0], pair[1])
			}
		}
		r.User = true
		for _, deny := range r.Deny {
			if deny.Command != "" || deny.Path != "" || deny.Host != "" || deny.Tool == "" {
				continue
			}
			a := Action{Kind: ReadInside, Tool: deny.Tool, Paths: []string{"/w/x"}}
			if d := Decide(FullAccess, a, nil, r); d.Verdict != Refuse {
				t.Fatalf("ParseRules(%q): deny %s, but Decide(full access, %s) = %v", data, deny, deny.Tool, d.Verdict)
			}
		}
	})
}

// lineOf returns the line an error of ParseRules names, 0 for none.
func lineOf(err error) int {
	var n int
	if _, e := fmt.Sscanf(err.Error(), "line %d:", &n); e != nil {
		return 0
	}
	return n
}

// TestParseRulesRefusesHiddenKeys pins what FuzzParseRules found: a key
// given twice replaced the first silently ({"deny":[...],"deny":[]} had no
// deny rule, though a person reading the file sees one), and a stray "}"
// after the object passed. Keys whose case differs from the format's are
// refused too, so that the file means what it says.
//
// spec: A1
func TestParseRulesRefusesHiddenKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"deny":[{"tool":"write"}],"deny":[]}`, `"deny" is given twice`},
		{`{"deny":[{"tool":"write","tool":"read"}]}`, `"deny[0].tool" is given twice`},
		{`{"Deny":[{"tool":"write"}]}`, `unknown key "Deny": keys are case-sensitive (did you mean "deny"?)`},
		{`{"allow":[{"TOOL":"write"}]}`, `unknown key "allow[0].TOOL"`},
		{`{"allow":[{"tool":"read"}]}}`, "unexpected data after the rules object"},
	} {
		if _, err := ParseRules([]byte(c.in), "/w"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseRules(%s) = %v; want an error with %q", c.in, err, c.want)
		}
	}
	if _, err := ParseRules([]byte(`{"allow":[{"tool":"read"}],"deny":[{"command":"git push"}]}`+"\n"), "/w"); err != nil {
		t.Errorf("ParseRules of a good file: %v", err)
	}
}
