package tests

import (
	"context"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// TestMCPHeadlessRefusalSaysWhatAllows: where no one can answer (foya
// exec without a terminal), an MCP tool its server does not annotate
// read-only is refused in Auto, and the refusal says what would allow it:
// Full Access, someone to answer, or an allow rule of the user's own. It
// never sends the user to Auto (the mode it runs in, which asks) nor to a
// project's .foya/permissions.json, which never allows an MCP tool.
// spec: M2, A1, K5
func TestMCPHeadlessRefusalSaysWhatAllows(t *testing.T) {
	h := &harness{t: t, dir: t.TempDir(), db: t.TempDir() + "/foya.db"}
	h.srv = pt.New(t, pt.Calls(call("c1", "mcp__local__echo", `{"text":"hi"}`)), pt.Say("ok"))
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: h.db, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	h.k = k
	if err := k.MCP().Add(context.Background(), mcpServer(t, "local")); err != nil {
		t.Fatal(err)
	}
	h.runIn(context.Background(), h.session("auto").ID, "echo")
	got := toolText(t, h.srv.Requests()[1], "c1")
	t.Logf("the refusal: %s", got)
	for _, want := range []string{"no one can answer", "--approval full-access", `{"tool":"mcp__local__echo"}`, "never allows an MCP tool"} {
		if !strings.Contains(got, want) {
			t.Errorf("refusal %q lacks %q", got, want)
		}
	}
	for _, bad := range []string{"--approval auto", "an approved .foya/permissions.json"} {
		if strings.Contains(got, bad) {
			t.Errorf("refusal %q says %q, which cannot allow an MCP tool here", got, bad)
		}
	}
}
