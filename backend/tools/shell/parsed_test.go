//go:build unix

package shell

import (
	"os"
	"path/filepath"
	"testing"

	"foya/backend/approval"
)

// spec: A2, D2 — bash parses its command once and every
// approval request of the call carries that parse (one and the same), so
// the policy decides from what the tool read.
func TestBashRequestsCarryOneParse(t *testing.T) {
	b := newBox(t, Options{})
	victim := filepath.Join(b.ws, "victim")
	if err := os.WriteFile(victim, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &gate{mode: approval.FullAccess}
	const cmd = "rm -f victim && echo gone"
	if res := b.bash(t, b.rc("ses_1", g), map[string]any{"command": cmd}); res.IsError {
		t.Fatalf("is_error: %s", res.Text)
	}
	if len(g.all) != 2 || g.all[0].Action.Kind != approval.ShellPermanentDelete {
		t.Fatalf("requests %+v; want the permanent delete, then the command", g.all)
	}
	first := g.all[0].Action.Parsed
	for i, r := range g.all {
		a := r.Action
		if a.Parsed == nil || a.Parsed != first || a.Parsed.Source != cmd || a.Command != cmd {
			t.Errorf("request %d: command %q, parse %p of %q; want %q with the call's one parse %p", i, a.Command, a.Parsed, source(a.Parsed), cmd, first)
		}
	}
	if first != nil && len(first.PermanentDelete()) == 0 {
		t.Errorf("the carried parse of %q finds no permanent delete", cmd)
	}
}

func source(c *approval.Command) string {
	if c == nil {
		return ""
	}
	return c.Source
}
