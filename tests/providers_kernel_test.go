package tests

import (
	"context"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
)

// noKeyring makes this process see no keyring (no D-Bus session bus).
func noKeyring(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
}

// A front end that knows nothing of providers runs a session with no
// model given: the kernel builds it from the session's profile (or the
// default one), and the session records it.
//
// spec: C1 — the run's provider and model (run.start, the run context) are
// the profile's.
func TestKernelRunUsesTheSessionsProfile(t *testing.T) {
	noKeyring(t)
	h := newHarness(t, nil, pt.Say("from the default"), pt.Say("from the session's"))
	ctx := context.Background()
	h.srv.RequireKey("sk-profile-0123456789")
	for _, name := range []string{"a", "b"} {
		if _, err := h.k.Profiles().Add(ctx, profiles.ProviderInput{Name: name, BaseURL: h.srv.URL, Model: "m-" + name, APIKey: "sk-profile-0123456789"}); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: h.dir, ApprovalMode: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "hi"})
	if err != nil || run.Status != kernel.RunCompleted {
		t.Fatalf("run: %v %+v", err, run)
	}
	if s, _ := h.k.Session(ctx, sess.ID); s.Provider != "a" || s.Model != "m-a" {
		t.Fatalf("session after a run with the default: %s/%s; want a/m-a", s.Provider, s.Model)
	}
	evs, _ := h.k.Events(ctx, sess.ID, 0)
	starts := 0
	for _, ev := range evs {
		if ev.Type == event.TypeRunStart {
			starts++
			if field(ev, "provider") != "a" || field(ev, "model") != "m-a" {
				t.Fatalf("run.start says %v/%v; want a/m-a", field(ev, "provider"), field(ev, "model"))
			}
		}
	}
	if starts != 1 {
		t.Fatalf("%d run.start events; want 1", starts)
	}
	s, _ := h.k.Session(ctx, sess.ID)
	s.Provider, s.Model = "b", "m-b2"
	if err := h.k.UpdateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "again"}); err != nil {
		t.Fatal(err)
	}
	if reqs := h.srv.Requests(); reqs[len(reqs)-1].Model != "m-b2" {
		t.Fatalf("second run asked %q; want the session's m-b2", reqs[len(reqs)-1].Model)
	}
}

// TestProviderKeyGoesOnlyToItsServer: a profile's key and credential
// headers go only to the profile's own server. With the profile named and
// another server given by URL (foya exec --provider P --base-url OTHER, or
// $OPENAI_BASE_URL), that server gets a key only from --api-key or
// $OPENAI_API_KEY; the profile's own URL, however spelled, still gets the
// profile's key: a key is a credential for one server.
func TestProviderKeyGoesOnlyToItsServer(t *testing.T) {
	noKeyring(t)
	ctx := context.Background()
	h := newHarness(t, nil)
	own := pt.New(t, pt.Say("own"))
	other := pt.New(t, pt.Say("a"), pt.Say("b"), pt.Say("c"))
	key, hdr := "sk-profile-5d41402abc4b2a76b9719d911017c592", "hdr-secret-7d793037a0760186574b0282f2f435e7"
	if _, err := h.k.Profiles().Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: own.URL, Model: "m",
		APIKey: key, Headers: map[string]string{"api-key": hdr, "X-Org": "acme"}}); err != nil {
		t.Fatal(err)
	}
	send := func(c profiles.ModelChoice) pt.Request {
		t.Helper()
		m, _, _, err := h.k.Profiles().Client(ctx, c)
		if err != nil {
			t.Fatalf("ProviderModel(%+v): %v", c, err)
		}
		sess := h.session("manual")
		if run, err := h.k.Run(ctx, kernel.RunOptions{SessionID: sess.ID, Prompt: "hi", Model: m}); err != nil || run.Status != kernel.RunCompleted {
			t.Fatalf("run with %+v: %v %+v", c, err, run)
		}
		srv := other
		if c.BaseURL == "" || !strings.HasPrefix(c.BaseURL, other.URL) {
			srv = own
		}
		reqs := srv.Requests()
		return reqs[len(reqs)-1]
	}
	for _, c := range []struct {
		name     string
		choice   profiles.ModelChoice
		wantAuth string
	}{
		{"another server, no key given", profiles.ModelChoice{Provider: "p", BaseURL: other.URL}, ""},
		{"another server, $OPENAI_API_KEY", profiles.ModelChoice{Provider: "p", BaseURL: other.URL + "/", EnvAPIKey: "sk-env-0123456789"}, "Bearer sk-env-0123456789"},
		{"another server, --api-key", profiles.ModelChoice{Provider: "p", BaseURL: other.URL, APIKey: "sk-flag-0123456789"}, "Bearer sk-flag-0123456789"},
		{"the profile's own server", profiles.ModelChoice{Provider: "p", BaseURL: strings.ToUpper(own.URL[:4]) + own.URL[4:] + "/"}, "Bearer " + key},
	} {
		req := send(c.choice)
		if got := req.Header.Get("Authorization"); got != c.wantAuth {
			t.Errorf("%s: Authorization %q; want %q", c.name, got, c.wantAuth)
		}
		wantHdr := ""
		if c.wantAuth == "Bearer "+key {
			wantHdr = hdr
		}
		if got := req.Header.Get("api-key"); got != wantHdr {
			t.Errorf("%s: the profile's credential header api-key is %q; want %q", c.name, got, wantHdr)
		}
	}
}

// The settings a person sets through the kernel are the ones the profiles
// read: model.images.MODEL (the generated TypeScript holds the kernel's
// literal) and providers.default.
func TestProfileSettingsThroughTheKernel(t *testing.T) {
	noKeyring(t)
	h := newHarness(t, nil)
	ctx := context.Background()
	if kernel.SettingImagesPrefix != profiles.SettingImagesPrefix {
		t.Fatalf("kernel.SettingImagesPrefix = %q, the profiles read %q", kernel.SettingImagesPrefix, profiles.SettingImagesPrefix)
	}
	if err := h.k.SetSetting(ctx, kernel.SettingImagesPrefix+"plain-text-model", "true"); err != nil {
		t.Fatal(err)
	}
	if on, err := h.k.Profiles().ImageInput(ctx, "plain-text-model"); err != nil || !on {
		t.Errorf("ImageInput after SetSetting model.images.plain-text-model=true: %v, %v", on, err)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := h.k.Profiles().Add(ctx, profiles.ProviderInput{Name: name, BaseURL: h.srv.URL, Model: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.k.SetSetting(ctx, profiles.SettingDefaultProvider, "b"); err != nil {
		t.Fatal(err)
	}
	if def, err := h.k.Profiles().Default(ctx); err != nil || def != "b" {
		t.Errorf("default after SetSetting providers.default=b: %q, %v", def, err)
	}
	all, err := h.k.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := all[profiles.SettingProviders]; ok {
		t.Errorf("Settings lists %s; the profiles are listed by Profiles().List", profiles.SettingProviders)
	}
}
