package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

type fake struct{ spec Spec }

func (f fake) Spec() Spec { return f.spec }
func (f fake) Run(context.Context, *RunContext, Call) (Result, error) {
	return Text("ok"), nil
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

// spec: R1, R2, R3, E1 — visible names sorted, filtered by exposure,
// allowlist and read-only mode; schemas compacted and stable.
func TestRegistryVisibleAndSchemas(t *testing.T) {
	r := NewRegistry()
	r.Add(
		fake{Spec{Name: "zeta", Description: "z", Schema: schema(`{ "type": "object" }`)}},
		fake{Spec{Name: "alpha", Description: "a", ReadOnly: true}},
		fake{Spec{Name: "later", Description: "l", Exposure: Deferred}},
		fake{Spec{Name: "ghost", Description: "g", Exposure: Hidden}},
		Search{},
	)
	cases := []struct {
		name string
		f    Filter
		want []string
	}{
		{"all direct", Filter{}, []string{"alpha", "zeta"}},
		{"search offered while deferred wait", Filter{State: State{Deferred: 1}}, []string{"alpha", "tool_search", "zeta"}},
		{"activated", Filter{Active: map[string]bool{"later": true, "ghost": true}}, []string{"alpha", "later", "zeta"}},
		{"allowlist", Filter{Allow: []string{"zeta", "ghost"}}, []string{"zeta"}},
		{"read-only", Filter{ReadOnly: true}, []string{"alpha"}},
	}
	for _, c := range cases {
		if got := r.Visible(c.f); !slices.Equal(got, c.want) {
			t.Errorf("Visible(%s) = %v; want %v", c.name, got, c.want)
		}
	}
	s := r.Schemas([]string{"alpha", "zeta"})
	if string(s[1].Parameters) != `{"type":"object"}` || string(s[0].Parameters) != `{"type":"object","properties":{}}` {
		t.Fatalf("schemas not compacted/defaulted: %s %s", s[0].Parameters, s[1].Parameters)
	}
	if got := r.Candidates(Filter{}); len(got) != 1 || got[0].Name != "later" {
		t.Fatalf("Candidates = %v", got)
	}
}

func TestRegistryRefusesBadTools(t *testing.T) {
	r := NewRegistry()
	r.Add(fake{Spec{Name: "a"}})
	for _, bad := range []Spec{
		{Name: "a"},
		{Name: ""},
		{Name: "has space"},
		{Name: strings.Repeat("x", 65)},
		{Name: "b", Exposure: "sometimes"},
		{Name: "c", Schema: schema(`{not json`)},
		{Name: "d", Schema: schema(`{"type": 12}`)},
	} {
		if err := r.Put(fake{bad}); err == nil {
			t.Errorf("Put(%+v) succeeded; want an error", bad)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Add of a duplicate did not panic")
		}
	}()
	r.Add(fake{Spec{Name: "a"}})
}

// spec: K1 — arguments are checked against the schema with messages the
// model can act on.
func TestValidate(t *testing.T) {
	r := NewRegistry()
	r.Add(fake{Spec{Name: "t", Schema: schema(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`)}})
	for args, want := range map[string]string{
		`{"n": 1}`:         "",
		`{}`:               "missing property 'n'",
		`{"n": "x"}`:       "at /n",
		`{"n": 1, "m": 2}`: "additional properties 'm'",
		`{"n": `:           "not valid JSON",
		`[1]`:              "want object",
	} {
		err := r.Validate("t", json.RawMessage(args))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Validate(%s) = %v; want %q", args, err, want)
		}
	}
	if err := r.Validate("nope", json.RawMessage(`{}`)); err == nil {
		t.Error("Validate of an unknown tool succeeded")
	}
}

// spec: K1
// TestValidateBoundsItsError: arguments with a hundred thousand unknown
// keys get a schema error of a few KiB, not one naming every key (such an
// error was as large as the arguments, and was stored and sent back in
// every later request).
func TestValidateBoundsItsError(t *testing.T) {
	r := NewRegistry()
	r.Add(fake{Spec{Name: "t", Schema: schema(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`)}})
	var b strings.Builder
	b.WriteString(`{"n":1`)
	for i := range 100000 {
		fmt.Fprintf(&b, `,"k%d":1`, i)
	}
	b.WriteString("}")
	err := r.Validate("t", json.RawMessage(b.String()))
	if err == nil || len(err.Error()) > 4<<10 || !strings.Contains(err.Error(), "additional properties") || !strings.Contains(err.Error(), "left out") {
		n := 0
		if err != nil {
			n = len(err.Error())
		}
		t.Fatalf("Validate: an error of %d bytes; want a bounded one that says what was left out", n)
	}
}

// TestErrorfIsBounded: an error that quotes a 20 MiB argument is cut to a
// few KiB, saying how much was left out (grep's invalid-pattern error
// quoted the whole pattern).
func TestErrorfIsBounded(t *testing.T) {
	r := Errorf("grep: the pattern is not valid: %s", strings.Repeat("a", 20<<20))
	if !r.IsError || len(r.Text) > 10<<10 || !strings.Contains(r.Text, "left out") {
		t.Fatalf("Errorf: %d bytes; want at most 10 KiB that say what was left out", len(r.Text))
	}
	if r := Errorf("short %d", 1); r.Text != "short 1" {
		t.Fatalf("Errorf(short) = %q", r.Text)
	}
}

type activator struct {
	cands     []Spec
	activated []string
}

func (a *activator) Candidates() []Spec       { return a.cands }
func (a *activator) Activate(names ...string) { a.activated = append(a.activated, names...) }

// spec: E2 — tool_search ranks by name and description and activates the
// matches.
func TestSearchRanksAndActivates(t *testing.T) {
	a := &activator{cands: []Spec{
		{Name: "browser_screenshot", Description: "Take a screenshot of a web page."},
		{Name: "db_query", Description: "Run a read-only SQL query against the project database."},
		{Name: "screenshot_diff", Description: "Compare two images."},
		{Name: "weather", Description: "Forecast."},
	}}
	rc := &RunContext{Activator: a}
	res, err := Search{}.Run(context.Background(), rc, Call{Arguments: json.RawMessage(`{"query":"screenshot web page"}`)})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	if !slices.Equal(a.activated, []string{"browser_screenshot", "screenshot_diff"}) {
		t.Fatalf("activated %v; want browser_screenshot first, then screenshot_diff", a.activated)
	}
	res, _ = Search{}.Run(context.Background(), rc, Call{Arguments: json.RawMessage(`{"query":"kubernetes"}`)})
	if res.IsError || !strings.Contains(res.Text, "No additional tool") {
		t.Fatalf("no match: %+v", res)
	}
	res, _ = Search{}.Run(context.Background(), rc, Call{Arguments: json.RawMessage(`{"query":"  "}`)})
	if !res.IsError {
		t.Fatal("empty query accepted")
	}
}
