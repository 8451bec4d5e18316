package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
	"foya/backend/settings"
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

// spec: W4 — foya settings list prints every key of the settings table
// with its value in force, its default and its doc line; foya settings
// help lists every key and its doc; a bad key or value is refused with a
// message naming the key and what it takes, and stores nothing.
func TestSettingsListShowsEveryKey(t *testing.T) {
	db := filepath.Join(t.TempDir(), "foya.db")
	for _, kv := range [][2]string{{"run.max_steps", "7"}, {"model.images.llava", "yes"}, {"model.images.llava", "true"}, {"sandbox.readable", "/opt/creds"}} {
		foya(t, nil, "settings", "set", kv[0], kv[1], "--db", db)
	}
	code, stdout, stderr := foya(t, nil, "settings", "list", "--db", db)
	if code != 0 {
		t.Fatalf("foya settings list: exit %d %s", code, stderr)
	}
	for _, s := range settings.Table {
		def := s.Default
		if def == "" {
			def = "none"
		}
		if !strings.Contains(stdout, s.Name()+" = ") || !strings.Contains(stdout, "(default: "+def+")") || !strings.Contains(stdout, s.Doc) {
			t.Errorf("foya settings list does not show %s with its default %s and doc %q:\n%s", s.Name(), def, s.Doc, stdout)
		}
	}
	for _, want := range []string{"run.max_steps = 7 (default: 500)", "model.images.MODEL = model.images.llava = true", "sandbox.readable = /opt/creds", "shell.env.allow = not set"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("foya settings list lacks %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = foya(t, nil, "settings", "list", "--json", "--db", db)
	var list []settings.Entry
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list) != len(settings.Table) {
		t.Fatalf("foya settings list --json = %d entries, %v; want %d:\n%s", len(list), err, len(settings.Table), stdout)
	}
	for i, e := range list {
		if e.Key != settings.Table[i].Key || e.Doc != settings.Table[i].Doc {
			t.Errorf("entry %d = %s; want %s", i, e.Key, settings.Table[i].Key)
		}
	}

	code, help, _ := foya(t, nil, "settings", "help")
	_, usage, wrong := foya(t, nil, "settings", "frob", "--db", db)
	for _, s := range settings.Table {
		if !strings.Contains(help, s.Name()) || !strings.Contains(help, s.Doc) {
			t.Errorf("foya settings help (exit %d) lacks %s or its doc:\n%s", code, s.Name(), help)
		}
		if !strings.Contains(wrong, s.Name()) {
			t.Errorf("the usage after foya settings frob (%q) lacks %s", usage, s.Name())
		}
	}

	for _, c := range []struct{ key, value, want string }{
		{"colour", "blue", `unknown setting "colour": known are approval.default, `},
		{"run.max_steps", "0", "run.max_steps: 0: a turn needs at least 1 model step"},
		{"approval.default", "yolo", `approval.default: unknown approval mode "yolo": want manual, auto or full-access`},
		{"discover.ports", "http", `discover.ports: "http" is not a port`},
		{"mcp.deferShare", "2", "mcp.deferShare: want a share from 0 to 1"},
		{"providers.default", "nowhere", "nowhere"},
	} {
		code, _, stderr := foya(t, nil, "settings", "set", c.key, c.value, "--db", db)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("foya settings set %s %s: exit %d %q; want 2 and %q", c.key, c.value, code, stderr, c.want)
		}
	}
	if _, stdout, _ := foya(t, nil, "settings", "--db", db); !strings.Contains(stdout, "run.max_steps = 7\n") || strings.Contains(stdout, "colour") {
		t.Errorf("a refused setting changed what is stored:\n%s", stdout)
	}
}
