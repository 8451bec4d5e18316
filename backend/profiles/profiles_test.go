package profiles_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"foya/backend/fault"
	"foya/backend/llm"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
	"foya/backend/store"
)

// noKeyring makes this process see no keyring (no D-Bus session bus): keys
// go to the key file.
func noKeyring(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
}

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// secrets is a profiles.Secrets that keeps what it is given and masks it
// the way the kernel's does, by name.
type secrets struct {
	mu    sync.Mutex
	known map[string]string // value by name
}

func (s *secrets) Add(known map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known == nil {
		s.known = map[string]string{}
	}
	for name, v := range known {
		if v != "" {
			s.known[name] = v
		}
	}
}

func (s *secrets) Mask(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, v := range s.known {
		text = strings.ReplaceAll(text, v, "["+name+"]")
	}
	return text
}

func (s *secrets) has(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.known {
		if k == v {
			return true
		}
	}
	return false
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

// The profiles: credentials in headers are kept with the key, not in the
// settings; edit replaces only what it is given; the model
// for a run comes from the named profile, else the session's, else the
// default, and a server given by URL gets no profile's key; a key from the
// environment does not beat a profile's own.
func TestProfiles(t *testing.T) {
	noKeyring(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "foya.db")
	st, sec := openStore(t, db), &secrets{}
	k := profiles.New(profiles.Config{Settings: st, DataDir: filepath.Dir(db), Secrets: sec})
	srv := pt.New(t, pt.Say("a"), pt.Say("b"), pt.Say("c"), pt.Say("d"), pt.Say("e"))

	p, err := k.Add(ctx, profiles.ProviderInput{Name: "one", BaseURL: srv.URL, Model: "m1", APIKey: "sk-one-0123456789",
		Headers: map[string]string{"X-Org": "acme", "Authorization": "Bearer sk-hdr-0123456789"}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Default || p.KeyStore != profiles.KeyInFile || p.Headers["X-Org"] != "acme" || p.Headers["Authorization"] != "" ||
		len(p.SecretHeaders) != 1 || p.SecretHeaders[0] != "Authorization" {
		t.Fatalf("added %+v", p)
	}
	all, _ := st.Settings(ctx)
	for key, v := range all {
		if strings.Contains(v, "sk-") {
			t.Errorf("setting %s holds a key: %s", key, v)
		}
	}
	if _, err := k.Add(ctx, profiles.ProviderInput{Name: "two", BaseURL: srv.URL, Model: "m2"}); err != nil {
		t.Fatal(err)
	}

	use := func(c profiles.ModelChoice) (req pt.Request, prov, model string) {
		t.Helper()
		m, prov, model, err := k.Client(ctx, c)
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
	if _, err := k.Edit(ctx, "one", profiles.ProviderEdit{APIKey: &key, Model: &model2}); err != nil {
		t.Fatal(err)
	}
	got, err := k.Get(ctx, "one")
	if err != nil || got.Model != "m1b" || got.Headers["X-Org"] != "acme" || len(got.SecretHeaders) != 1 || !got.Default {
		t.Fatalf("after edit: %+v %v", got, err)
	}
	// An environment key does not beat the profile's own; a flag's does.
	if _, err := k.Edit(ctx, "one", profiles.ProviderEdit{Headers: map[string]string{"X-Org": "acme"}}); err != nil {
		t.Fatal(err)
	}
	if r, _, _ = use(profiles.ModelChoice{Provider: "one", EnvAPIKey: "sk-env-0123456789"}); r.Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("env key over the profile's: %v", r.Header)
	}
	if r, _, _ = use(profiles.ModelChoice{Provider: "one", APIKey: "sk-flag-0123456789"}); r.Header.Get("Authorization") != "Bearer sk-flag-0123456789" {
		t.Fatalf("flag key: %v", r.Header)
	}
	if _, _, _, err := k.Client(ctx, profiles.ModelChoice{Provider: "nope"}); !errors.Is(err, profiles.ErrProviderNotFound) {
		t.Fatalf("unknown profile: %v", err)
	}
	if err := k.Remove(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if def, _ := k.Default(ctx); def != "" {
		t.Fatalf("default after removing it: %q", def)
	}
	if _, _, _, err := k.Client(ctx, profiles.ModelChoice{}); !errors.Is(err, profiles.ErrInvalidProvider) {
		t.Fatalf("no profile, no model: %v", err)
	}
}

// Two services over two stores (two processes' worth) adding profiles
// with keys to one database at once lose none: each change of the profiles
// is one write transaction, and each of the key file is under its lock.
func TestProfilesConcurrentAdds(t *testing.T) {
	noKeyring(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "foya.db")
	var ks []*profiles.Service
	for range 2 {
		ks = append(ks, profiles.New(profiles.Config{Settings: openStore(t, db), DataDir: filepath.Dir(db), Secrets: &secrets{}}))
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := ks[i%2].Add(ctx, profiles.ProviderInput{Name: fmt.Sprintf("p%02d", i), BaseURL: "http://127.0.0.1:1/v1", Model: "m",
				APIKey: fmt.Sprintf("sk-concurrent-%02d", i)})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := ks[0].List(ctx)
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

// A profile's key reaches no text a person or a model reads: a server that
// echoes the key it refuses has it masked in a check's message and in the
// client's error, and the key was handed to Secrets first (so commands'
// environments lose it too). The models a server lists come back sorted,
// once each.
func TestKeysAreMasked(t *testing.T) {
	noKeyring(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "foya.db")
	sec := &secrets{}
	s := profiles.New(profiles.Config{Settings: openStore(t, db), DataDir: filepath.Dir(db), Secrets: sec})
	const key = "sk-wrong-0123456789"

	refusing := pt.New(t)
	refusing.RequireKey("sk-right-key")
	if _, err := s.Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: refusing.URL, Model: "m", APIKey: key}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Test(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if c.Models.Status != profiles.CheckUnauthorized || c.Stream.Status != profiles.CheckSkipped ||
		strings.Contains(c.Models.Message, key) || !strings.Contains(c.Models.Message, "Incorrect API key provided") {
		t.Errorf("Test against a server that refuses the key = %+v; want unauthorized, the key masked", c)
	}
	if !sec.has(key) {
		t.Error("Test did not hand the key to Secrets")
	}
	if _, err := s.Models(ctx, "p"); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("Models against a server that refuses the key = %v; want an error without the key", err)
	}

	echoing := pt.New(t, pt.Turn{Status: 400, ErrorMessage: "bad request from " + key})
	echoing.SetModels("b", "a", "b")
	model := "m"
	if _, err := s.Edit(ctx, "p", profiles.ProviderEdit{BaseURL: &echoing.URL, Model: &model}); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.Models(ctx, "p"); err != nil || strings.Join(ids, ",") != "a,b" {
		t.Errorf("Models = %v, %v; want a,b", ids, err)
	}
	m, prov, name, err := s.Client(ctx, profiles.ModelChoice{})
	if err != nil || prov != "p" || name != "m" {
		t.Fatalf("Client = %s, %s, %v", prov, name, err)
	}
	for _, err := range m.Stream(ctx, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}) {
		if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "bad request from") {
			t.Errorf("stream error = %v; want the server's error with the key masked", err)
		}
	}
}

// Whether a model takes images: a guess from its name until the user says
// otherwise, which is kept.
//
// spec: I4 — whether the model has image input, which decides whether a
// request carries the image or a note that it was left out.
func TestImageInput(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "foya.db")
	s := profiles.New(profiles.Config{Settings: openStore(t, db), DataDir: filepath.Dir(db), Secrets: &secrets{}})
	for model, want := range map[string]bool{"gpt-4o-mini": true, "qwen2.5-coder": false} {
		if got, err := s.ImageInput(ctx, model); err != nil || got != want {
			t.Errorf("ImageInput(%s) = %v, %v; want %v by its name", model, got, err, want)
		}
	}
	if err := s.SetImageInput(ctx, "qwen2.5-coder", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ImageInput(ctx, "qwen2.5-coder"); !got {
		t.Error("ImageInput after SetImageInput(true) = false")
	}
	if err := s.SetImageInput(ctx, " ", true); !errors.Is(err, fault.ErrInvalid) {
		t.Errorf("SetImageInput without a model = %v; want an invalid-input error", err)
	}
}

// The tool-call mode is kept with the profile, edited on its own, checked,
// and reaches the client: in text mode a call written as text runs.
func TestProfileToolCalls(t *testing.T) {
	noKeyring(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "foya.db")
	st := openStore(t, db)
	k := profiles.New(profiles.Config{Settings: st, DataDir: filepath.Dir(db), Secrets: &secrets{}})
	srv := pt.New(t, pt.Say(`<tool_call>{"name": "read", "arguments": {}}</tool_call>`))
	if _, err := k.Add(ctx, profiles.ProviderInput{Name: "one", BaseURL: srv.URL, Model: "m", ToolCalls: "sometimes"}); !errors.Is(err, profiles.ErrInvalidProvider) {
		t.Fatalf("a bad mode: %v", err)
	}
	p, err := k.Add(ctx, profiles.ProviderInput{Name: "one", BaseURL: srv.URL, Model: "m", ToolCalls: "native"})
	if err != nil || p.ToolCalls != "native" {
		t.Fatalf("add: %+v %v", p, err)
	}
	model := "m2"
	if p, err = k.Edit(ctx, "one", profiles.ProviderEdit{Model: &model}); err != nil || p.ToolCalls != "native" {
		t.Fatalf("an edit of the model changed the mode: %+v %v", p, err)
	}
	text := "text"
	if p, err = k.Edit(ctx, "one", profiles.ProviderEdit{ToolCalls: &text}); err != nil || p.ToolCalls != "text" {
		t.Fatalf("edit: %+v %v", p, err)
	}
	c, _, _, err := k.Client(ctx, profiles.ModelChoice{Provider: "one"})
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Tools: []llm.ToolSchema{{Name: "read"}}}
	var calls []string
	for d, err := range c.Stream(ctx, req) {
		if err != nil {
			t.Fatal(err)
		}
		if d.Kind == llm.DeltaToolCall && d.Name != "" {
			calls = append(calls, d.Name)
		}
	}
	if len(calls) != 1 || calls[0] != "read" {
		t.Fatalf("calls %v", calls)
	}
	auto := "auto"
	if p, err = k.Edit(ctx, "one", profiles.ProviderEdit{ToolCalls: &auto}); err != nil || p.ToolCalls != "" {
		t.Fatalf("auto is the default and is not stored: %+v %v", p, err)
	}
}
