package approval

import (
	"strings"
	"testing"
	"time"
)

// spec: D2 — scripts inside scripts are read exactly maxNesting deep: a
// permanent delete wrapped in maxNesting `sh -c` is found, one more wrapper
// makes the command opaque (so Auto asks), never silently allowed.
// (gremlins' CONDITIONALS_BOUNDARY on the nesting check survived before.)
func TestNestingLimitIsExact(t *testing.T) {
	s := "rm victim"
	for range maxNesting {
		s = "sh -c '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	c, err := ParseCommand(s)
	if err != nil || len(c.PermanentDelete()) != 1 || len(c.Opaque()) != 0 {
		t.Errorf("%d deep: err %v, deletes %q, opaque %q; want the rm found", maxNesting, err, c.PermanentDelete(), c.Opaque())
	}
	s = "sh -c '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	c, err = ParseCommand(s)
	if err != nil || len(c.Opaque()) == 0 {
		t.Errorf("%d deep: err %v, opaque %q; want it opaque", maxNesting+1, err, c.Opaque())
	}
	if d := Decide(Auto, Action{Kind: Shell, Tool: "bash", Command: s}, nil); d.Verdict == Allow {
		t.Errorf("Decide(auto, %d deep) = %s; want ask or refuse", maxNesting+1, d.Verdict)
	}
}

// spec: D2 — standard input is file descriptor 0 whether or not the
// redirection names it: `bash 0<<< 'rm x'` runs rm, `bash 3<<< 'rm x'`
// does not feed bash's input (bash reads its real input: opaque).
// (gremlins' CONDITIONALS_NEGATION on the descriptor check survived before.)
func TestStdinRedirectionByDescriptor(t *testing.T) {
	c, err := ParseCommand("bash 0<<< 'rm victim'")
	if err != nil || len(c.PermanentDelete()) != 1 {
		t.Errorf("bash 0<<< 'rm victim': err %v, deletes %q; want the rm found", err, c.PermanentDelete())
	}
	c, err = ParseCommand("bash 3<<< 'rm victim'")
	if err != nil || len(c.PermanentDelete()) != 0 || len(c.Opaque()) == 0 {
		t.Errorf("bash 3<<< 'rm victim': err %v, deletes %q, opaque %q; want no delete read from it, and opaque", err, c.PermanentDelete(), c.Opaque())
	}
}

// spec: D2 — find's actions are all read, also those after an -exec's
// terminator, and an -exec without one: a -delete or an -exec rm after an
// -exec that prints is still a permanent delete. (gremlins'
// CONDITIONALS_NEGATION on the terminator checks survived before.)
func TestFindActionsAfterAnExec(t *testing.T) {
	for _, src := range []string{
		`find . -name x -exec echo {} \; -delete`,
		`find . -exec ls {} + -exec rm {} +`,
		`find . -execdir echo {} \; -ok rm {} \;`,
		`find . -exec rm {}`, // no terminator: find refuses it, but it is read
	} {
		c, err := ParseCommand(src)
		if err != nil || len(c.PermanentDelete()) == 0 {
			t.Errorf("%s: err %v, deletes %q; want a permanent delete", src, err, c.PermanentDelete())
		}
	}
	c, err := ParseCommand(`find . -exec echo {} \; -print`)
	if err != nil || len(c.PermanentDelete()) != 0 {
		t.Errorf("find -exec echo: err %v, deletes %q; want none", err, c.PermanentDelete())
	}
}

// spec: A1 — a plain ask is the mode table's own: its reason names the mode
// and the action and nothing else, and ByMode says so; a folder grant never
// covers an action that names no path. (gremlins' boundary and negation
// mutants on the notes of a decision and on the folder grant's path check
// survived before.)
func TestPlainAskAndPathlessFolderGrant(t *testing.T) {
	d := Decide(Manual, Action{Kind: WriteInside, Tool: "write", Paths: []string{"/w/a"}}, nil)
	if want := (Decision{Verdict: Ask, Reason: "Manual mode asks before write", ByMode: true}); d != want {
		t.Errorf("Decide(manual, write) = %+v; want %+v", d, want)
	}
	g := Grant{Kind: WriteInside, Folder: "/w"}
	if g.Matches(Action{Kind: WriteInside, Tool: "write"}, nil) {
		t.Errorf("%s covers a write that names no path", g)
	}
	if !g.Matches(Action{Kind: WriteInside, Tool: "write", Paths: []string{"/w/a", "/w/b/c"}}, nil) {
		t.Errorf("%s does not cover writes inside it", g)
	}
}

// spec: A1 — "allow for this session" needs a scope, and one that covers
// the request (a command prefix is matched against the parsed command);
// pending requests are listed oldest first. (gremlins' mutants of
// Validate's scope and command checks, and of the pending list's sort
// (which then never ends), survived the package's tests before.)
func TestSessionAnswersAndPendingOrder(t *testing.T) {
	p := pending("b1") // bash: go test ./...
	if err := (Answer{Choice: AllowSession}).Validate(p); err == nil {
		t.Error("allow for this session without a scope was accepted")
	}
	if err := (Answer{Choice: AllowSession, Scope: &Grant{Kind: Shell, Prefix: []string{"go", "test"}}}).Validate(p); err != nil {
		t.Errorf("a prefix scope that covers the command: %v", err)
	}
	if err := (Answer{Choice: AllowSession, Scope: &Grant{Kind: Shell, Tool: "bash"}}).Validate(p); err != nil {
		t.Errorf("a tool scope: %v", err)
	}

	g := NewGateway()
	old, mid, late := pending("p1"), pending("p2"), pending("p3")
	mid.AskedAt = old.AskedAt.Add(time.Second)
	late.AskedAt = old.AskedAt.Add(2 * time.Second)
	for _, p := range []Pending{late, old, mid} {
		g.Open(p)
	}
	var ids []string
	for _, p := range g.Pending("s") {
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, " ") != "p1 p2 p3" {
		t.Errorf("Pending = %v; want p1 p2 p3, oldest first", ids)
	}
}
