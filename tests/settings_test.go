package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// spec: W4 — the global default mode is a setting; a session's mode can be
// switched at any time, and the switch is on record.
func TestSettingsAndModeSwitchFromTheCLI(t *testing.T) {
	bin := foyaBinary(t)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "foya.db")
	for args, want := range map[string]int{
		"settings set approval.default yolo":  2,
		"settings set model.images.x maybe":   2,
		"settings set colour blue":            2,
		"settings set approval.default auto":  0,
		"settings set model.images.llava7 no": 2,
		"mode ses_nope auto":                  2,
		"mode onlyone":                        2,
	} {
		res := runFoya(t, bin, nil, append(strings.Fields(args), "--db", db)...)
		if res.code != want || want != 0 && res.stderr == "" {
			t.Errorf("foya %s: exit %d (%s); want %d", args, res.code, res.stderr, want)
		}
	}
	res := runFoya(t, bin, nil, "settings", "--db", db, "--json")
	var all map[string]string
	if json.Unmarshal([]byte(res.stdout), &all); all[kernel.SettingDefaultMode] != "auto" {
		t.Fatalf("settings = %s", res.stdout)
	}
	srv := pt.New(t, pt.Say("hi"))
	if res := runFoya(t, bin, nil, "exec", "--base-url", srv.URL, "--model", "m", "--db", db, "--workdir", dir, "hi"); res.code != 0 {
		t.Fatalf("exec: %d %s", res.code, res.stderr)
	}
	res = runFoya(t, bin, nil, "sessions", "--db", db, "--json")
	var list []kernel.Session
	json.Unmarshal([]byte(res.stdout), &list)
	if len(list) != 1 || list[0].ApprovalMode != "auto" {
		t.Fatalf("a new session did not start in the default mode: %+v", list)
	}
	res = runFoya(t, bin, nil, "mode", list[0].ID, "full-access", "--db", db)
	if res.code != 0 || !strings.Contains(res.stdout, "full_access") {
		t.Fatalf("mode: %d %s %s", res.code, res.stdout, res.stderr)
	}
	res = runFoya(t, bin, nil, "show", list[0].ID, "--db", db, "--json", "--events")
	if !strings.Contains(res.stdout, `"type": "session.mode"`) || !strings.Contains(res.stdout, `"to": "full_access"`) {
		t.Fatalf("the switch is not on record:\n%s", res.stdout)
	}
}
