package cli

import (
	"bytes"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/llm"
)

// foya exec says what hooks did on standard error: a failure, a skipped
// file, a denial, an ask and a note; a hook that answered nothing is not
// printed.
func TestExecPrintsHooks(t *testing.T) {
	var out, errs bytes.Buffer
	p := newPrinter(Env{Stdout: &out, Stderr: &errs, Getenv: func(string) string { return "" }}, false)
	for _, d := range []event.HookRunData{
		{Source: "project", File: "/w/.foya/hooks.json", Status: event.HookSkipped, Error: "not approved"},
		{Hook: "guard", Source: "user", Tool: "bash", Status: event.HookOK, Decision: "deny", Reason: "no rm"},
		{Hook: "careful", Source: "user", Tool: "write", Status: event.HookOK, Decision: "ask"},
		{Hook: "tests", Source: "user", Tool: "edit", Status: event.HookOK, Note: "3 passed"},
		{Hook: "lint", Source: "project", Status: event.HookFailed, Error: "it exited with status 2"},
		{Hook: "quiet", Source: "user", Status: event.HookOK},
	} {
		ev := event.HookRun(d)
		p.event(llm.Event{Type: ev.Type, Data: ev.Data})
	}
	want := []string{
		"! the hooks of /w/.foya/hooks.json do not run: not approved",
		"✗ user hook guard denied bash: no rm",
		"? user hook careful asks before write",
		"· user hook tests: 3 passed",
		"! project hook lint failed: it exited with status 2",
	}
	got := strings.Split(strings.TrimSpace(errs.String()), "\n")
	if len(got) != len(want) {
		t.Fatalf("printed\n%s\nwant %d lines", errs.String(), len(want))
	}
	for i := range want {
		if strings.TrimSpace(got[i]) != want[i] {
			t.Errorf("line %d = %q; want %q", i+1, got[i], want[i])
		}
	}
	if out.Len() != 0 {
		t.Errorf("standard output %q; want nothing (hooks go to standard error)", out.String())
	}
}
