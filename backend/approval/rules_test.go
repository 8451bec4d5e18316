package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustRules(t *testing.T, src string, user bool, approved time.Time) *Rules {
	t.Helper()
	r, err := ParseRules([]byte(src), "/w")
	if err != nil {
		t.Fatal(err)
	}
	r.User, r.Approved = user, approved
	if user {
		r.File = "/home/u/.local/share/foya/permissions.json"
	}
	return r
}

// spec: A1, A2 — a project's rules (they come with a clone) grant nothing until
// approved, and even approved never allow leaving the sandbox or the
// workspace; deny and ask rules apply either way; the user's own rules may
// allow anything the mode table asks about.
func TestDecideProjectAndUserRules(t *testing.T) {
	when := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	const greedy = `{"allow":[{"tool":"bash"},{"tool":"write"},{"tool":"read"},{"tool":"delete"},{"tool":"fetch"},{"host":"go.dev"}]}`
	unapproved := mustRules(t, greedy, false, time.Time{})
	approved := mustRules(t, greedy, false, when)
	user := mustRules(t, `{"allow":[{"tool":"bash","command":"make"},{"tool":"write","path":"/data/**"}]}`, true, time.Time{})
	denying := mustRules(t, `{"deny":[{"tool":"bash","command":"git push"}],"ask":[{"tool":"write","path":"docs/**"}]}`, false, time.Time{})

	bash := func(kind Kind, cmd string) Action { return Action{Kind: kind, Tool: "bash", Command: cmd} }
	write := func(kind Kind, p string) Action { return Action{Kind: kind, Tool: "write", Paths: []string{p}} }
	cases := []struct {
		what   string
		mode   Mode
		action Action
		rules  []*Rules
		want   Verdict
		reason string // a part of the reason
	}{
		// The review's case: sandbox: false and a write outside.
		{"escalate, unapproved", Manual, bash(ShellEscalate, "curl x"), []*Rules{unapproved}, Ask, UnapprovedNotice},
		{"escalate, approved", Manual, bash(ShellEscalate, "curl x"), []*Rules{approved}, Ask, "cannot allow this"},
		{"escalate, approved, auto", Auto, bash(ShellEscalate, "curl x"), []*Rules{approved}, Ask, "cannot allow this"},
		{"outside write, unapproved", Auto, write(WriteProtected, "/tmp/x"), []*Rules{unapproved}, Ask, UnapprovedNotice},
		{"outside write, approved", Manual, write(WriteProtected, "/tmp/x"), []*Rules{approved}, Ask, "cannot allow this"},
		{".git write, approved", Auto, write(WriteProtected, "/w/.git/config"), []*Rules{approved}, Ask, "cannot allow this"},
		{"outside read, approved", Manual, Action{Kind: ReadOutside, Tool: "read", Paths: []string{"/etc/passwd"}}, []*Rules{approved}, Ask, "cannot allow this"},
		// Inside the workspace and the sandbox, an approved rule allows.
		{"sandboxed bash, unapproved", Manual, bash(Shell, "go test"), []*Rules{unapproved}, Ask, UnapprovedNotice},
		{"sandboxed bash, approved", Manual, bash(Shell, "go test"), []*Rules{approved}, Allow,
			`allowed by the rule {"tool":"bash"} in .foya/permissions.json (approved by you on 2026-12-01 08:00 UTC)`},
		{"inside write, approved", Manual, write(WriteInside, "/w/a.go"), []*Rules{approved}, Allow, `{"tool":"write"}`},
		{"inside delete, approved", Manual, Action{Kind: DeleteInside, Tool: "delete", Paths: []string{"/w/a"}}, []*Rules{approved}, Allow, `{"tool":"delete"}`},
		{"opaque bash, approved", Manual, bash(Shell, "$x victim"), []*Rules{approved}, Ask, "cannot tell what this command runs"},
		{"fetch by tool rule, approved", Manual, Action{Kind: Fetch, Tool: "fetch", Host: "evil.example"}, []*Rules{approved}, Ask, "cannot allow this"},
		{"fetch by host rule, approved", Manual, Action{Kind: Fetch, Tool: "fetch", Host: "go.dev"}, []*Rules{approved}, Allow, `{"host":"go.dev"}`},
		{"mcp, approved", Manual, Action{Kind: MCP, Tool: "mcp_fs_write"}, []*Rules{mustRules(t, `{"allow":[{"tool":"mcp_fs_write"}]}`, false, when)}, Ask, "cannot allow this"},
		// The user's own rules may allow leaving the sandbox and the workspace.
		{"escalate, user rule", Manual, bash(ShellEscalate, "make install"), []*Rules{user, unapproved}, Allow,
			`allowed by your rule {"tool":"bash","command":"make"} in /home/u/.local/share/foya/permissions.json`},
		{"outside write, user rule", Auto, write(WriteProtected, "/data/x"), []*Rules{user}, Allow, "your rule"},
		{"outside write, other folder", Auto, write(WriteProtected, "/etc/x"), []*Rules{user}, Ask, "Auto mode asks"},
		// Deny and ask rules apply unapproved, in every mode.
		{"deny, unapproved", FullAccess, bash(ShellEscalate, "cd x && git push origin"), []*Rules{denying}, Refuse,
			`denied by the rule {"tool":"bash","command":"git push"} in .foya/permissions.json`},
		{"deny beats the user's allow", Manual, bash(Shell, "git push"), []*Rules{mustRules(t, `{"allow":[{"tool":"bash"}]}`, true, time.Time{}), denying}, Refuse, "denied"},
		{"ask, unapproved", Auto, write(WriteInside, "/w/docs/a.md"), []*Rules{denying}, Ask, "asks for approval"},
		{"ask, unapproved, full access", FullAccess, write(WriteInside, "/w/docs/a.md"), []*Rules{denying}, Ask, "asks for approval"},
		// The mode's own verdicts stand and say so.
		{"auto shell", Auto, bash(Shell, "go test"), []*Rules{unapproved}, Allow, "allowed by Auto mode"},
		{"full access escalate", FullAccess, bash(ShellEscalate, "curl x"), []*Rules{unapproved}, Allow, "allowed by Full Access"},
		{"refusal stays", Auto, bash(ShellPermanentDelete, "rm x"), []*Rules{user, approved}, Refuse, "use the delete tool"},
	}
	for _, c := range cases {
		got := Decide(c.mode, c.action, nil, c.rules...)
		if got.Verdict != c.want || !strings.Contains(got.Reason, c.reason) {
			t.Errorf("Decide(%s, %s) = %s (%s); want %s with %q", c.mode, c.what, got.Verdict, got.Reason, c.want, c.reason)
		}
	}
	// Grants still allow what a project's rule cannot.
	g := []Grant{{Kind: ShellEscalate, Prefix: []string{"curl"}}}
	if got := Decide(Manual, bash(ShellEscalate, "curl x"), g, approved); got.Verdict != Allow || got.Reason != "allowed by the session grant: command prefix `curl`" {
		t.Errorf("grant: %s (%s)", got.Verdict, got.Reason)
	}
}

// LoadRules keeps the sha256 of the exact bytes it parsed, which is what a
// user approves; a file that does not parse still has one, and Err.
func TestLoadRulesHash(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".foya"), 0o755)
	for _, src := range []string{`{"allow":[{"tool":"bash"}]}`, `{"allow":[{"tool":"bash"}]} `, `{"allow":`} {
		os.WriteFile(filepath.Join(dir, RulesFile), []byte(src), 0o644)
		r := LoadRules(dir)
		sum := sha256.Sum256([]byte(src))
		if r == nil || r.Hash != hex.EncodeToString(sum[:]) || r.User || !r.Approved.IsZero() || r.File != RulesFile {
			t.Errorf("LoadRules(%q) = %+v", src, r)
		}
		if (r.Err != nil) != (src == `{"allow":`) {
			t.Errorf("LoadRules(%q).Err = %v", src, r.Err)
		}
	}
	if r := LoadUserRules(filepath.Join(dir, "none.json"), dir); r != nil {
		t.Errorf("no user rules file: %+v", r)
	}
}
