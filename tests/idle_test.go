package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// A model stream that stalls after its start is stopped
// after provider.idleTimeout (set here with foya settings); the run ends
// failed with an error that says what happened and which setting governs
// it, and the history is kept.
//
// spec: K4
func TestStalledModelEndsTheRunAfterTheIdleTimeout(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	for args, want := range map[string]int{
		"settings set provider.idleTimeout soon": 2,
		"settings set provider.idleTimeout -5s":  2,
		"settings set provider.idleTimeout 0":    2,
		"settings set provider.idleTimeout 30s":  0,
	} {
		if res := runFoya(t, bin, nil, append(strings.Fields(args), "--db", db)...); res.code != want {
			t.Errorf("foya %s: exit %d (%s); want %d", args, res.code, res.stderr, want)
		}
	}
	res := runFoya(t, bin, nil, "settings", "--db", db, "--json")
	var all map[string]string
	if json.Unmarshal([]byte(res.stdout), &all); all["provider.idleTimeout"] != "30s" {
		t.Fatalf("settings = %s; want provider.idleTimeout 30s", res.stdout)
	}
	if res := runFoya(t, bin, nil, "settings", "set", "provider.idleTimeout", "200ms", "--db", db); res.code != 0 {
		t.Fatalf("settings set: %d %s", res.code, res.stderr)
	}

	hold := make(chan struct{}) // never released: the model stalls after its first chunk
	t.Cleanup(func() { close(hold) })
	srv := pt.New(t, pt.Turn{Text: "I will answer at length", Hold: hold})
	res = runFoya(t, bin, nil, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir, "--json", "tell me")
	if res.code != 1 {
		t.Fatalf("exec: exit %d; want 1\n%s%s", res.code, res.stdout, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	var end llm.Event
	json.Unmarshal([]byte(lines[len(lines)-1]), &end)
	msg, _ := field(end, "error").(string)
	if end.Type != event.TypeRunEnd || field(end, "status") != "failed" ||
		!strings.Contains(msg, "the model sent nothing for 0.2 s: the stream was stopped (setting provider.idleTimeout)") {
		t.Fatalf("last event %s %s; want run.end failed with the idle message", end.Type, end.Data)
	}
	// The history is kept: the prompt, and the run with its error.
	res = runFoya(t, bin, nil, "sessions", "--db", db, "--json")
	var list []kernel.Session
	if err := json.Unmarshal([]byte(res.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions: %s %v", res.stdout, err)
	}
	res = runFoya(t, bin, nil, "show", "--db", db, list[0].ID)
	if !strings.Contains(res.stdout, "tell me") || !strings.Contains(res.stdout, "provider.idleTimeout") {
		t.Fatalf("show after the stall:\n%s", res.stdout)
	}
}
