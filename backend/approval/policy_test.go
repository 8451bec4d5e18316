package approval

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// spec: A1, A2, D2, D3, D4, M2, W4 — every cell of the mode table
// (docs/decisions/013-approval-modes.md).
func TestDecidePinsTheModeTable(t *testing.T) {
	type row struct {
		what   string
		action Action
		want   [3]Verdict // manual, auto, full access
	}
	rows := []row{
		{"read inside", Action{Kind: ReadInside, Tool: "read", Paths: []string{"/w/a.go"}}, [3]Verdict{Allow, Allow, Allow}},
		{"read outside", Action{Kind: ReadOutside, Tool: "read", Paths: []string{"/etc/hosts"}}, [3]Verdict{Ask, Ask, Allow}},
		{"write inside", Action{Kind: WriteInside, Tool: "write", Paths: []string{"/w/a.go"}}, [3]Verdict{Ask, Allow, Allow}},
		{"write .git", Action{Kind: WriteProtected, Tool: "edit", Paths: []string{"/w/.git/config"}}, [3]Verdict{Ask, Ask, Allow}},
		{"write outside", Action{Kind: WriteProtected, Tool: "write", Paths: []string{"/tmp/x"}}, [3]Verdict{Ask, Ask, Allow}},
		{"delete inside", Action{Kind: DeleteInside, Tool: "delete", Paths: []string{"/w/a.go"}}, [3]Verdict{Ask, Allow, Allow}},
		{"delete .git", Action{Kind: DeleteProtected, Tool: "delete", Paths: []string{"/w/.git"}}, [3]Verdict{Refuse, Refuse, Allow}},
		{"delete workspace root", Action{Kind: DeleteProtected, Tool: "delete", Paths: []string{"/w"}}, [3]Verdict{Refuse, Refuse, Allow}},
		{"delete outside", Action{Kind: DeleteProtected, Tool: "delete", Paths: []string{"/home/u/x"}}, [3]Verdict{Refuse, Refuse, Allow}},
		{"delete /", Action{Kind: DeleteRoot, Tool: "delete", Paths: []string{"/"}}, [3]Verdict{Refuse, Refuse, Refuse}},
		{"shell command", Action{Kind: Shell, Tool: "bash", Command: "go test ./..."}, [3]Verdict{Ask, Allow, Allow}},
		{"shell command Foya cannot read", Action{Kind: Shell, Tool: "bash", Command: "$(echo rm) victim"}, [3]Verdict{Ask, Ask, Allow}},
		{"shell escalation", Action{Kind: ShellEscalate, Tool: "bash", Command: "curl https://x"}, [3]Verdict{Ask, Ask, Allow}},
		{"shell command, weaker sandbox", Action{Kind: ShellWeakSandbox, Tool: "bash", Command: "chmod +x x"}, [3]Verdict{Ask, Ask, Allow}},
		{"shell rm", Action{Kind: ShellPermanentDelete, Tool: "bash", Command: "rm -rf build"}, [3]Verdict{Refuse, Refuse, Allow}},
		{"web fetch", Action{Kind: Fetch, Tool: "fetch", Host: "go.dev"}, [3]Verdict{Ask, Ask, Allow}},
		{"web fetch of a private address", Action{Kind: FetchPrivate, Tool: "web_fetch", Host: "intranet", Addresses: []string{"10.0.0.1"}}, [3]Verdict{Ask, Ask, Allow}},
		{"MCP read-only", Action{Kind: MCP, Tool: "mcp_db_query", ReadOnly: true}, [3]Verdict{Ask, Allow, Allow}},
		{"MCP", Action{Kind: MCP, Tool: "mcp_db_write"}, [3]Verdict{Ask, Ask, Allow}},
		{"sub-agent", Action{Kind: SubAgent, Tool: "task"}, [3]Verdict{Allow, Allow, Allow}},
	}
	covered := map[Kind]bool{}
	for _, r := range rows {
		covered[r.action.Kind] = true
		for i, m := range Modes {
			got := Decide(m, r.action, nil, nil)
			if got.Verdict != r.want[i] {
				t.Errorf("Decide(%s, %s) = %s; want %s (%s)", m, r.what, got.Verdict, r.want[i], got.Reason)
			}
			if got.Reason == "" || strings.Contains(got.Reason, "%!") {
				t.Errorf("Decide(%s, %s) gives no reason", m, r.what)
			}
		}
	}
	for _, k := range Kinds {
		if !covered[k] {
			t.Errorf("kind %s has no row in the table test", k)
		}
	}
}

// Grants turn an ask into an allow, within their scope, and never lift a
// refusal.
func TestGrants(t *testing.T) {
	prefix := []Grant{{Kind: Shell, Prefix: []string{"go", "test"}}}
	cases := []struct {
		mode   Mode
		action Action
		grants []Grant
		want   Verdict
	}{
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "go test ./..."}, prefix, Allow},
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "cd pkg && go test -run X ./..."}, prefix, Allow},
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "go test && rm -rf x"}, prefix, Ask},
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "go test; curl https://evil"}, prefix, Ask},
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "go test $(curl x)"}, prefix, Ask},
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "go testify"}, prefix, Ask},
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "go vet"}, prefix, Ask},
		{Manual, Action{Kind: ShellEscalate, Tool: "bash", Command: "go test"}, prefix, Ask},
		{Auto, Action{Kind: ShellPermanentDelete, Tool: "bash", Command: "go test && rm x"}, []Grant{{Kind: ShellPermanentDelete, Tool: "bash"}}, Refuse},
		{Auto, Action{Kind: Fetch, Tool: "fetch", Host: "GO.dev"}, []Grant{{Kind: Fetch, Host: "go.dev"}}, Allow},
		{Auto, Action{Kind: Fetch, Tool: "fetch", Host: "evil.dev"}, []Grant{{Kind: Fetch, Host: "go.dev"}}, Ask},
		{Manual, Action{Kind: ReadOutside, Tool: "read", Paths: []string{"/data/x", "/data/y/z"}}, []Grant{{Kind: ReadOutside, Folder: "/data"}}, Allow},
		{Manual, Action{Kind: ReadOutside, Tool: "read", Paths: []string{"/data/x", "/database"}}, []Grant{{Kind: ReadOutside, Folder: "/data"}}, Ask},
		{Manual, Action{Kind: WriteInside, Tool: "write"}, []Grant{{Kind: WriteInside, Tool: "write"}}, Allow},
		{Manual, Action{Kind: WriteInside, Tool: "edit"}, []Grant{{Kind: WriteInside, Tool: "write"}}, Ask},
	}
	for _, c := range cases {
		got := Decide(c.mode, c.action, c.grants, nil)
		if got.Verdict != c.want {
			t.Errorf("Decide(%s, %s %q%s) with %v = %s; want %s", c.mode, c.action.Kind, c.action.Command, c.action.Host, c.grants, got.Verdict, c.want)
		}
	}
}

func TestRules(t *testing.T) {
	rules, err := ParseRules([]byte(`{
		"allow": [{"tool": "bash", "command": "make test"}, {"tool": "write", "path": "docs/**"}],
		"ask":   [{"command": "git push"}],
		"deny":  [{"path": "secrets/**"}, {"host": "tracker.example"}]
	}`), "/w")
	if err != nil {
		t.Fatal(err)
	}
	rules.Approved = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		mode   Mode
		action Action
		want   Verdict
	}{
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "make test"}, Allow},
		{Manual, Action{Kind: Shell, Tool: "bash", Command: "make test && make clean"}, Ask},
		{Auto, Action{Kind: Shell, Tool: "bash", Command: "git push origin main"}, Ask},
		{FullAccess, Action{Kind: Shell, Tool: "bash", Command: "cd x && sudo git push"}, Ask},
		{Manual, Action{Kind: WriteInside, Tool: "write", Paths: []string{"/w/docs/a.md"}}, Allow},
		{Manual, Action{Kind: WriteInside, Tool: "write", Paths: []string{"/w/docs/a.md", "/w/main.go"}}, Ask},
		{FullAccess, Action{Kind: ReadInside, Tool: "read", Paths: []string{"/w/secrets/key"}}, Refuse},
		{Auto, Action{Kind: Fetch, Tool: "fetch", Host: "tracker.example"}, Refuse},
		{FullAccess, Action{Kind: DeleteRoot, Tool: "delete", Paths: []string{"/"}}, Refuse},
	}
	for _, c := range cases {
		got := Decide(c.mode, c.action, nil, rules)
		if got.Verdict != c.want {
			t.Errorf("Decide(%s, %s %q %v) = %s (%s); want %s", c.mode, c.action.Kind, c.action.Command, c.action.Paths, got.Verdict, got.Reason, c.want)
		}
	}
}

// A malformed rules file names its line, and Foya falls back to asking,
// never to allowing.
func TestBrokenRulesAsk(t *testing.T) {
	for src, want := range map[string]string{
		"{\n  \"allow\": [\n    {\"tool\": \"bash\",}\n  ]\n}": "line 3",
		"{\n  \"allow\": [{\"tool\": 7}]\n}":                   "line 2",
		"{\n  \"allow\": [{\"tol\": \"x\"}]\n}":                "unknown field",
		`{"deny": [{}]}`:                                       "empty",
		`{"deny": [{"command": "rm $X"}]}`:                     "plain words",
		`{"allow": []} {}`:                                     "after the rules",
	} {
		_, err := ParseRules([]byte(src), "/w")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRules(%q) = %v; want an error mentioning %q", src, err, want)
		}
	}
	broken := &Rules{Err: fmt.Errorf("line 3: bad")}
	for _, m := range Modes {
		for _, k := range []Kind{ReadInside, WriteInside, Shell, SubAgent} {
			if got := Decide(m, Action{Kind: k, Tool: "t"}, []Grant{{Kind: k, Tool: "t"}}, broken); got.Verdict != Ask || !strings.Contains(got.Reason, "line 3") {
				t.Errorf("Decide(%s, %s) with broken rules = %s (%s); want ask naming the line", m, k, got.Verdict, got.Reason)
			}
		}
		if got := Decide(m, Action{Kind: DeleteRoot}, nil, broken); got.Verdict != Refuse {
			t.Errorf("broken rules lifted a refusal in %s", m)
		}
	}
}

// TestPrivateFetchIsAskedEachTime: the private-address question of a fetch
// is answered by no grant (the host's, the tool's, even one of its own
// kind), by no project rule and by no rule that names no host; only the
// user's own rule naming the host, an answer, or Full Access allow it. It
// offers no "allow for this session", and such an answer is refused with
// why: a name allowed for the session may resolve to a private address
// later.
// spec: A1, A2
func TestPrivateFetchIsAskedEachTime(t *testing.T) {
	a := Action{Kind: FetchPrivate, Tool: "web_fetch", Host: "attacker.example", Addresses: []string{"169.254.169.254"}}
	grants := []Grant{{Kind: Fetch, Host: "attacker.example"}, {Kind: Fetch, Tool: "web_fetch"},
		{Kind: FetchPrivate, Host: "attacker.example"}, {Kind: FetchPrivate, Tool: "web_fetch"}}
	for _, m := range []Mode{Manual, Auto} {
		if d := Decide(m, a, grants); d.Verdict != Ask {
			t.Errorf("Decide(%s, private fetch, host grants) = %s (%s); want ask", m, d.Verdict, d.Reason)
		}
	}
	rules := func(user bool, rule Rule) *Rules {
		r := &Rules{Allow: []Rule{rule}, User: user, File: "rules.json"}
		if !user {
			r.Approved = time.Now()
		}
		return r
	}
	for _, c := range []struct {
		rules *Rules
		want  Verdict
	}{
		{rules(false, Rule{Host: "attacker.example"}), Ask},
		{rules(true, Rule{Tool: "web_fetch"}), Ask},
		{rules(true, Rule{Host: "attacker.example"}), Allow},
	} {
		d := Decide(Auto, a, nil, c.rules)
		if d.Verdict != c.want {
			t.Errorf("Decide(auto, private fetch, user %v rule %s) = %s (%s); want %s", c.rules.User, c.rules.Allow[0], d.Verdict, d.Reason, c.want)
		}
		if c.rules.User && c.want == Ask && !strings.Contains(d.Reason, "names no host") {
			t.Errorf("a hostless rule's ask says %q; want it to say the rule names no host", d.Reason)
		}
	}
	if s := Scopes(a); len(s) != 0 {
		t.Errorf("Scopes(private fetch) = %v; want none", s)
	}
	p := Pending{Request: Request{Action: a}}
	for _, g := range grants {
		err := Answer{Choice: AllowSession, Scope: &g}.Validate(p)
		if err == nil || !strings.Contains(err.Error(), "allow once") {
			t.Errorf("allow for this session with %s: %v; want a refusal saying to allow once", g, err)
		}
	}
	if err := (Answer{Choice: AllowOnce}).Validate(p); err != nil {
		t.Errorf("allow once: %v", err)
	}
}
