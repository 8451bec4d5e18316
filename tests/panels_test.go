package tests

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"foya/backend/api"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
	"foya/backend/settings"
)

// panelService is the API the desktop binds, over the harness's kernel.
func panelService(h *harness) *api.Service {
	return api.New(context.Background(), func() (*kernel.Kernel, error) { return h.k, nil })
}

func apiCode(err error) string {
	var e *api.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// spec: B1, B2, O1 — the background panel reads a
// command's last lines, bounded and cleaned of terminal escapes, without
// taking new output away from the model's bash_output; bad input is
// refused with its code; the kill button's method ends the command.
func TestBackgroundOutputForThePanel(t *testing.T) {
	script := `for i in $(seq 1 300); do echo "line $i"; done; printf '\033[31mred\033[0m done\n'; sleep 60`
	h := newHarness(t, nil,
		pt.Calls(call("c1", "bash", `{"command":`+quote(script)+`,"run_in_background":true}`)), pt.Say("started"),
		pt.Calls(call("c2", "bash_output", `{"id":"bg1"}`)), pt.Say("read"))
	sess := h.session("full_access") // no sandbox needed: the tail is what is tested
	ctx := context.Background()
	if run := h.runIn(ctx, sess.ID, "start it"); run.Status != kernel.RunCompleted {
		t.Fatalf("run: %s %s", run.Status, run.Error)
	}
	svc := panelService(h)
	var out kernel.BackgroundOutput
	for deadline := time.Now().Add(30 * time.Second); ; {
		var err error
		if out, err = svc.BackgroundOutput(sess.ID, "bg1", 5); err != nil {
			t.Fatalf("BackgroundOutput: %v", err)
		}
		if strings.Contains(out.Text, "done") || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := "line 297\nline 298\nline 299\nline 300\nred done\n"
	if out.Text != want || out.Binary || !out.Command.Running || out.Command.ID != "bg1" {
		t.Fatalf("BackgroundOutput(5) = %+v; want the last 5 lines %q of a running bg1", out, want)
	}
	if out.Omitted != out.Command.OutputBytes-int64(len("line 297\nline 298\nline 299\nline 300\n\033[31mred\033[0m done\n")) || out.Omitted <= 0 {
		t.Errorf("omitted = %d of %d bytes printed; want all but the last 5 lines", out.Omitted, out.Command.OutputBytes)
	}
	// Reading it for a person left the model's next read where it was.
	h.runIn(ctx, sess.ID, "read it")
	reqs := h.srv.Requests()
	read := toolMessages(reqs[len(reqs)-1])
	if text := read[len(read)-1].Content; !strings.Contains(text, "line 1\n") || !strings.Contains(text, "red done") {
		t.Errorf("bash_output after the panel's read lost output: %.300q", text)
	}
	// 0 lines is the default count; a huge count is capped.
	if all, err := svc.BackgroundOutput(sess.ID, "bg1", 0); err != nil || strings.Count(all.Text, "\n") != kernel.BackgroundTailLines {
		t.Errorf("BackgroundOutput(0) = %d lines, %v; want %d", strings.Count(all.Text, "\n"), err, kernel.BackgroundTailLines)
	}
	if all, err := svc.BackgroundOutput(sess.ID, "bg1", 1<<30); err != nil || strings.Count(all.Text, "\n") != 301 || all.Omitted != 0 {
		t.Errorf("BackgroundOutput(huge) = %d lines, omitted %d, %v; want all 301", strings.Count(all.Text, "\n"), all.Omitted, err)
	}
	for _, c := range []struct {
		session, id string
		lines       int
		code        string
	}{
		{sess.ID, "bg1", -1, "invalid"},
		{sess.ID, "bg9", 5, "not_found"},
		{"ses_nope", "bg1", 5, "not_found"},
		{"", "bg1", 5, "invalid"},
		{sess.ID, " ", 5, "invalid"},
	} {
		if _, err := svc.BackgroundOutput(c.session, c.id, c.lines); apiCode(err) != c.code {
			t.Errorf("BackgroundOutput(%q, %q, %d) = %v; want code %s", c.session, c.id, c.lines, err, c.code)
		}
	}
	killed, err := svc.KillBackground(sess.ID, "bg1")
	if err != nil || killed.Running || !killed.Killed {
		t.Fatalf("KillBackground = %+v, %v; want it ended on request", killed, err)
	}
	if out, err := svc.BackgroundOutput(sess.ID, "bg1", 1); err != nil || out.Command.Running || out.Text != "red done\n" {
		t.Errorf("after the kill: %+v, %v; want its last line, not running", out, err)
	}
}

// spec: W4 — the settings view lists a profile's models
// from its server's /v1/models, with the profile's key; a refused key, a
// server that lists none and an unknown profile are errors in words.
func TestProviderModelsForTheSettings(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // no keyring: the key goes to the 0600 file
	t.Setenv("XDG_RUNTIME_DIR", "")
	h := newHarness(t, nil)
	svc := panelService(h)
	key := randomKey(t, "sk-models-")
	h.srv.RequireKey(key)
	h.srv.SetModels("zeta-1", "m", "alpha-2", "m")
	p, err := svc.AddProvider(profiles.ProviderInput{Name: "local", BaseURL: h.srv.URL, Model: "m", APIKey: key})
	if err != nil || p.KeyStore != profiles.KeyInFile {
		t.Fatalf("AddProvider = %+v, %v; want the key in the file", p, err)
	}
	models, err := svc.ProviderModels("local")
	if err != nil || strings.Join(models, " ") != "alpha-2 m zeta-1" {
		t.Fatalf("ProviderModels = %q, %v; want sorted, once each", models, err)
	}
	wrong := "sk-wrong-0123456789"
	if _, err := svc.EditProvider("local", profiles.ProviderEdit{APIKey: &wrong}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.ProviderModels("local")
	if apiCode(err) != "unavailable" || !strings.Contains(err.Error(), "refused the key") || strings.Contains(err.Error(), wrong) {
		t.Errorf("ProviderModels with a wrong key = %v; want unavailable, worded, without the key", err)
	}
	if _, err := svc.ProviderModels("nope"); apiCode(err) != "not_found" {
		t.Errorf("ProviderModels(nope) = %v; want not_found", err)
	}
	if _, err := svc.ProviderModels(""); apiCode(err) != "invalid" {
		t.Errorf("ProviderModels(\"\") = %v; want invalid", err)
	}
	down := pt.New(t)
	downURL := down.URL
	down.Close()
	if _, err := svc.EditProvider("local", profiles.ProviderEdit{BaseURL: &downURL}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ProviderModels("local"); apiCode(err) != "unavailable" || !strings.Contains(err.Error(), "is the server running") {
		t.Errorf("ProviderModels of a server that is down = %v; want unavailable, saying what to check", err)
	}
}

// spec: W4 — switching the mode from the settings records
// session.mode in the conversation; image input reads back the setting, or
// the guess from the model's name; the step limit's errors are the
// kernel's words.
func TestSettingsViewMethods(t *testing.T) {
	h := newHarness(t, nil)
	svc := panelService(h)
	sess := h.session("manual")
	if err := svc.SetMode(sess.ID, "full_access"); err != nil {
		t.Fatal(err)
	}
	evs, err := svc.Events(sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var modes []string
	for _, ev := range evs {
		if ev.Type == event.TypeSessionMode {
			var d event.SessionModeData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			modes = append(modes, d.From+">"+d.To)
		}
	}
	if strings.Join(modes, " ") != "manual>full_access" {
		t.Errorf("session.mode events = %v; want manual>full_access", modes)
	}
	if err := svc.SetMode(sess.ID, "reckless"); apiCode(err) != "invalid" {
		t.Errorf("SetMode(reckless) = %v; want invalid", err)
	}
	for model, want := range map[string]bool{"gpt-4o-mini": true, "tiny-coder": false} {
		if got, err := svc.ImageInput(model); err != nil || got != want {
			t.Errorf("ImageInput(%s) = %v, %v; want %v (the guess)", model, got, err, want)
		}
	}
	if err := svc.SetSetting("model.images.tiny-coder", "true"); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.ImageInput("tiny-coder"); err != nil || !got {
		t.Errorf("ImageInput(tiny-coder) after setting it = %v, %v; want true", got, err)
	}
	if _, err := svc.ImageInput(" "); apiCode(err) != "invalid" {
		t.Errorf("ImageInput(\" \") = %v; want invalid", err)
	}
	err = svc.SetSetting(kernel.SettingMaxSteps, "0")
	if apiCode(err) != "invalid" || !strings.Contains(err.Error(), "a turn needs at least 1 model step") {
		t.Errorf("SetSetting(run.max_steps, 0) = %v; want the kernel's words", err)
	}
}

// spec: W4 — the settings view's fields come from api.SettingList: every
// setting of the table, in its order, with its doc, default and the value
// in force after a SetSetting.
func TestSettingListForTheSettingsView(t *testing.T) {
	h := newHarness(t, nil)
	svc := panelService(h)
	if err := svc.SetSetting("files.maxWriteBytes", "8MiB"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetSetting("model.images.llava", "true"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetSetting("files.maxWriteBytes", "lots"); apiCode(err) != "invalid" || !strings.Contains(err.Error(), "files.maxWriteBytes: want a positive number of bytes") {
		t.Errorf("SetSetting(files.maxWriteBytes, lots) = %v; want invalid, naming the key and what it takes", err)
	}
	list, err := svc.SettingList()
	if err != nil || len(list) != len(settings.Table) {
		t.Fatalf("SettingList() = %d entries, %v; want %d", len(list), err, len(settings.Table))
	}
	for i, e := range list {
		s := settings.Table[i]
		if e.Key != s.Key || e.Doc != s.Doc || e.Default != s.Default || e.Label != s.Label {
			t.Errorf("entry %d = %+v; want the table's %+v", i, e.Setting, s)
		}
		switch e.Key {
		case settings.MaxWrite:
			if e.Value != "8388608" {
				t.Errorf("%s = %q; want 8388608", e.Key, e.Value)
			}
		case settings.MaxSteps:
			if e.Value != s.Default {
				t.Errorf("%s = %q; want its default %s in force", e.Key, e.Value, s.Default)
			}
		case settings.ImagesPrefix:
			if e.Set["model.images.llava"] != "true" {
				t.Errorf("%s: set = %v; want model.images.llava true", e.Name(), e.Set)
			}
		}
	}
}
