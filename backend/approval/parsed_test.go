package approval

import (
	"encoding/json"
	"testing"
	"time"
)

// spec: A2, D2 — a shell command is parsed once per call.
// The action built by ShellAction carries the parse, and the policy, the
// scopes offered and the check of an answer read it without parsing again;
// an action without it (read back from JSON) or whose parse is of another
// command is parsed afresh, so a stale parse never decides.
func TestShellActionIsParsedOnce(t *testing.T) {
	user := mustRules(t, `{"allow":[{"tool":"bash","command":"make"}],"deny":[{"tool":"bash","command":"git push"}]}`, true, time.Time{})
	project := mustRules(t, `{"allow":[{"tool":"bash","command":"go vet"}],"ask":[{"tool":"bash","command":"curl"}]}`, false, time.Now())
	grants := []Grant{{Kind: Shell, Prefix: []string{"go", "build"}}}

	const src = "cd pkg && go test ./..."
	c, err := ParseCommand(src)
	if err != nil {
		t.Fatal(err)
	}
	a := ShellAction(Shell, "bash", &c)
	if a.Command != src || a.Parsed != &c {
		t.Fatalf("ShellAction = %+v; want the command and its parse", a)
	}
	steps := func(a Action) Decision {
		d := Decide(Manual, a, grants, user, project)
		scopes := Scopes(a)
		if len(scopes) == 0 || len(scopes[0].Prefix) == 0 {
			t.Fatalf("Scopes(%q) = %v; want a command prefix first", a.Command, scopes)
		}
		p := Pending{Request: Request{Action: a}}
		if err := (Answer{Choice: AllowSession, Scope: &scopes[0]}).Validate(p); err != nil {
			t.Fatalf("Validate(%v): %v", scopes[0], err)
		}
		return d
	}

	before := parses.Load()
	d := steps(a)
	if n := parses.Load() - before; n != 0 {
		t.Errorf("Decide, Scopes and Validate parsed a carried command %d times; want 0", n)
	}
	if d.Verdict != Ask {
		t.Errorf("Decide(manual, %q) = %s; want ask", src, d.Verdict)
	}

	// Read back from JSON, the parse is gone: each step parses again, and
	// decides the same.
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Action
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Parsed != nil {
		t.Fatalf("Action from JSON carries a parse: %s", b)
	}
	before = parses.Load()
	if d2 := steps(back); d2 != d {
		t.Errorf("decision without the carried parse = %+v; want %+v", d2, d)
	}
	if n := parses.Load() - before; n == 0 {
		t.Errorf("an action without its parse was decided without parsing it")
	}

	// A parse of another command is not trusted: "git push" is denied
	// however the stale parse reads.
	a.Command = "git push"
	if d := Decide(FullAccess, a, nil, user); d.Verdict != Refuse {
		t.Errorf("Decide(full access, %q with the parse of %q) = %s; want refuse by the deny rule", a.Command, src, d.Verdict)
	}
}
