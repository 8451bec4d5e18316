package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
)

// noKeyring makes this process see no keyring (no D-Bus session bus).
func noKeyring(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
}

func openKernelAt(t *testing.T, db string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.Open(context.Background(), kernel.Options{DBPath: db, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

func TestCheckBaseURL(t *testing.T) {
	for url, ok := range map[string]bool{
		"http://127.0.0.1:8080/v1":     true,
		"https://api.openai.com/v1":    true,
		"ftp://host/v1":                false,
		"127.0.0.1:8080/v1":            false,
		"http:///v1":                   false,
		"https://user:secret@host/v1":  false,
		"https://token@host/v1":        false,
		"ftp://secret@host/v1":         false,
		"https://host/v1?key=secret":   false,
		"https://host/v1#frag":         false,
		"http://[::1]:8080/v1":         true,
		"https://host/v1 with a space": false,
	} {
		err := profiles.CheckBaseURL(url)
		if (err == nil) != ok || err != nil && !errors.Is(err, profiles.ErrInvalidProvider) {
			t.Errorf("CheckBaseURL(%q) = %v; want ok %v", url, err, ok)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckBaseURL(%q) shows the password: %v", url, err)
		}
	}
}

// The kernel's provider methods: credentials in headers are kept with the
// key, not in the settings; edit replaces only what it is given; the model
// for a run comes from the named profile, else the session's, else the
// default, and a server given by URL gets no profile's key; a key from the
// environment does not beat a profile's own.
func TestKernelProviderProfiles(t *testing.T) {
	noKeyring(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "foya.db")
	k := openKernelAt(t, db)
	srv := pt.New(t, pt.Say("a"), pt.Say("b"), pt.Say("c"), pt.Say("d"), pt.Say("e"))

	p, err := k.Profiles().Add(ctx, profiles.ProviderInput{Name: "one", BaseURL: srv.URL, Model: "m1", APIKey: "sk-one-0123456789",
		Headers: map[string]string{"X-Org": "acme", "Authorization": "Bearer sk-hdr-0123456789"}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Default || p.KeyStore != profiles.KeyInFile || p.Headers["X-Org"] != "acme" || p.Headers["Authorization"] != "" ||
		len(p.SecretHeaders) != 1 || p.SecretHeaders[0] != "Authorization" {
		t.Fatalf("added %+v", p)
	}
	all, _ := k.Settings(ctx)
	for key, v := range all {
		if strings.Contains(v, "sk-") {
			t.Errorf("setting %s holds a key: %s", key, v)
		}
	}
	if _, err := k.Profiles().Add(ctx, profiles.ProviderInput{Name: "two", BaseURL: srv.URL, Model: "m2"}); err != nil {
		t.Fatal(err)
	}

	use := func(c profiles.ModelChoice) (req pt.Request, prov, model string) {
		t.Helper()
		m, prov, model, err := k.Profiles().Client(ctx, c)
		if err != nil {
			t.Fatalf("ProviderModel(%+v): %v", c, err)
		}
		for _, err := range m.Stream(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}) {
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
		}
		reqs := srv.Requests()
		return reqs[len(reqs)-1], prov, model
	}
	// The default profile, its secret header over the bearer key.
	r, prov, model := use(profiles.ModelChoice{})
	if prov != "one" || model != "m1" || r.Model != "m1" || r.Header.Get("Authorization") != "Bearer sk-hdr-0123456789" || r.Header.Get("X-Org") != "acme" {
		t.Fatalf("default: %s/%s, request %s %v", prov, model, r.Model, r.Header)
	}
	// The session's profile, the flag's model.
	if _, prov, model = use(profiles.ModelChoice{Session: "two", Model: "mx"}); prov != "two" || model != "mx" {
		t.Fatalf("session's: %s/%s", prov, model)
	}
	// A URL: no profile.
	r, prov, _ = use(profiles.ModelChoice{BaseURL: srv.URL, Model: "m", EnvAPIKey: "sk-env-0123456789"})
	if prov != profiles.NoProvider || r.Header.Get("Authorization") != "Bearer sk-env-0123456789" {
		t.Fatalf("by URL: %s %v", prov, r.Header)
	}
	// Edit: a new key and model; the headers stay.
	key := "sk-new-0123456789"
	model2 := "m1b"
	if _, err := k.Profiles().Edit(ctx, "one", profiles.ProviderEdit{APIKey: &key, Model: &model2}); err != nil {
		t.Fatal(err)
	}
	got, err := k.Profiles().Get(ctx, "one")
	if err != nil || got.Model != "m1b" || got.Headers["X-Org"] != "acme" || len(got.SecretHeaders) != 1 || !got.Default {
		t.Fatalf("after edit: %+v %v", got, err)
	}
	// An environment key does not beat the profile's own; a flag's does.
	if _, err := k.Profiles().Edit(ctx, "one", profiles.ProviderEdit{Headers: map[string]string{"X-Org": "acme"}}); err != nil {
		t.Fatal(err)
	}
	if r, _, _ = use(profiles.ModelChoice{Provider: "one", EnvAPIKey: "sk-env-0123456789"}); r.Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("env key over the profile's: %v", r.Header)
	}
	if r, _, _ = use(profiles.ModelChoice{Provider: "one", APIKey: "sk-flag-0123456789"}); r.Header.Get("Authorization") != "Bearer sk-flag-0123456789" {
		t.Fatalf("flag key: %v", r.Header)
	}
	if _, _, _, err := k.Profiles().Client(ctx, profiles.ModelChoice{Provider: "nope"}); !errors.Is(err, profiles.ErrProviderNotFound) {
		t.Fatalf("unknown profile: %v", err)
	}
	if err := k.Profiles().Remove(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if def, _ := k.Profiles().Default(ctx); def != "" {
		t.Fatalf("default after removing it: %q", def)
	}
	if _, _, _, err := k.Profiles().Client(ctx, profiles.ModelChoice{}); !errors.Is(err, profiles.ErrInvalidProvider) {
		t.Fatalf("no profile, no model: %v", err)
	}
}

// Two kernels (two processes' worth) adding profiles with keys to one
// database at once lose none: each change of the profiles is one write
// transaction, and each of the key file is under its lock.
func TestKernelProvidersConcurrentAdds(t *testing.T) {
	noKeyring(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "foya.db")
	ks := []*kernel.Kernel{openKernelAt(t, db), openKernelAt(t, db)}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := ks[i%2].Profiles().Add(ctx, profiles.ProviderInput{Name: fmt.Sprintf("p%02d", i), BaseURL: "http://127.0.0.1:1/v1", Model: "m",
				APIKey: fmt.Sprintf("sk-concurrent-%02d", i)})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := ks[0].Profiles().List(ctx)
	if err != nil || len(list) != 20 {
		t.Fatalf("%d profiles after 20 concurrent adds (%v)", len(list), err)
	}
	defaults := 0
	for _, p := range list {
		if p.Default {
			defaults++
		}
	}
	if defaults != 1 {
		t.Fatalf("%d default profiles; want 1", defaults)
	}
	// Every key is in the key file: its lock keeps writers in turn.
	b, err := os.ReadFile(filepath.Join(filepath.Dir(db), profiles.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if !strings.Contains(string(b), fmt.Sprintf("sk-concurrent-%02d", i)) {
			t.Errorf("key %d lost", i)
		}
	}
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
// profile's key. Issue 21 item 8.
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
