package tests

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/profiles"
	pt "foya/backend/provider/providertest"
)

// portOf is the port of a loopback test server's URL.
func portOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	return p
}

// TestDiscoverModelServers probes loopback ports it is told about through
// the setting discover.ports: a scripted OpenAI-compatible server (found,
// its models listed), one that wants a key (401: unauthorized), one that
// answers garbage (failed), one that never answers (timeout) and a port
// nothing listens on (down), all at once, each with its own status and a
// message saying what to do. The environment's key is said to be present,
// never returned.
//
// spec: W4
func TestDiscoverModelServers(t *testing.T) {
	const key = "sk-discover-secret-123"
	t.Setenv("OPENAI_API_KEY", key)
	good := pt.New(t)
	good.SetModels("qwen3-coder", "llama3.2", "qwen3-coder")
	locked := pt.New(t)
	locked.RequireKey("other-key")
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>a web page, not a model list</html>"))
	}))
	defer garbage.Close()
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(block)
	down := closedPort(t)

	// The environment's server is this loopback one too, so no probe
	// leaves the machine; it wants the environment's key.
	envSrv := pt.New(t)
	envSrv.RequireKey(key)
	envSrv.SetModels("env-model")
	t.Setenv("OPENAI_BASE_URL", envSrv.URL+"/")

	h := newHarness(t, nil)
	ctx := context.Background()
	ports := strings.Join([]string{portOf(t, good.URL), portOf(t, locked.URL), portOf(t, garbage.URL), portOf(t, slow.URL), down}, ",")
	if err := h.k.SetSetting(ctx, profiles.SettingDiscoverPorts, ports); err != nil {
		t.Fatal(err)
	}

	list, err := h.k.Profiles().ModelServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 6 || list[0].ID != "env" || !list[0].KeyPresent || list[0].Status != "" {
		t.Fatalf("ModelServers = %+v; want the environment's candidate (key present, not probed) and 5 ports", list)
	}

	got, err := h.k.Profiles().DiscoverModelServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status string
		models []string
		msg    string
	}{
		{profiles.CheckOK, []string{"env-model"}, "1 model offered"},
		{profiles.CheckOK, []string{"llama3.2", "qwen3-coder"}, "2 models offered"},
		{profiles.CheckUnauthorized, nil, "give its key"},
		{profiles.CheckFailed, nil, "not an OpenAI-compatible server"},
		{profiles.DiscoverTimeout, nil, "no answer within"},
		{profiles.CheckDown, nil, "nothing answers there"},
	}
	if len(got) != len(want) {
		t.Fatalf("DiscoverModelServers = %+v; want %d candidates", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Status != w.status || strings.Join(g.Models, ",") != strings.Join(w.models, ",") || !strings.Contains(g.Message, w.msg) {
			t.Errorf("candidate %s = status %q models %v message %q; want %q %v and a message with %q", g.ID, g.Status, g.Models, g.Message, w.status, w.models, w.msg)
		}
		if strings.Contains(g.Message, key) {
			t.Errorf("candidate %s shows the key: %q", g.ID, g.Message)
		}
		if i > 0 && (!g.Local || !strings.HasPrefix(g.BaseURL, "http://127.0.0.1:")) {
			t.Errorf("candidate %s = %+v; want a loopback base URL", g.ID, g)
		}
	}
	if got[0].BaseURL != envSrv.URL {
		t.Errorf("the environment's base URL = %q; want OPENAI_BASE_URL without its slash, %q", got[0].BaseURL, envSrv.URL)
	}

	// One candidate by ID, as the first-run view probes them.
	one, err := h.k.Profiles().ProbeModelServer(ctx, got[1].ID)
	if err != nil || one.Status != profiles.CheckOK || len(one.Models) != 2 {
		t.Errorf("ProbeModelServer(%s) = %+v, %v; want ok with 2 models", got[1].ID, one, err)
	}
	if _, err := h.k.Profiles().ProbeModelServer(ctx, "no-such-server"); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("ProbeModelServer(unknown) = %v; want not found", err)
	}
}

// TestDiscoverWithoutKeyOrPorts: no OPENAI_API_KEY is a status of the
// environment's candidate (no-key, saying where to add a provider), the
// default ports are those of Ollama, LM Studio, llama.cpp and vLLM, and a
// bad discover.ports setting is refused.
//
// spec: W4
func TestDiscoverWithoutKeyOrPorts(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	h := newHarness(t, nil)
	ctx := context.Background()
	list, err := h.k.Profiles().ModelServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID+"="+s.BaseURL)
	}
	if w := "env=https://api.openai.com/v1 ollama=http://127.0.0.1:11434/v1 lmstudio=http://127.0.0.1:1234/v1 llamacpp=http://127.0.0.1:8080/v1 vllm=http://127.0.0.1:8000/v1"; strings.Join(ids, " ") != w {
		t.Errorf("default candidates = %s; want %s", strings.Join(ids, " "), w)
	}
	env, err := h.k.Profiles().ProbeModelServer(ctx, "env")
	if err != nil || env.Status != profiles.DiscoverNoKey || env.KeyPresent || !strings.Contains(env.Message, "connect to a provider in the form below") {
		t.Errorf("ProbeModelServer(env) without a key = %+v, %v; want no-key saying where to add one", env, err)
	}
	for _, bad := range []string{"", "abc", "0", "70000", "80,-1", "1234;5678"} {
		if err := h.k.SetSetting(ctx, profiles.SettingDiscoverPorts, bad); !errors.Is(err, kernel.ErrInvalid) {
			t.Errorf("SetSetting(discover.ports, %q) = %v; want invalid", bad, err)
		}
	}
	if err := h.k.SetSetting(ctx, profiles.SettingDiscoverPorts, " 9001, 9001 ,11434"); err != nil {
		t.Fatal(err)
	}
	list, _ = h.k.Profiles().ModelServers(ctx)
	if len(list) != 3 || list[1].ID != "port-9001" || list[1].Name != "OpenAI-compatible server on port 9001" || list[2].ID != "ollama" {
		t.Errorf("candidates of 9001,9001,11434 = %+v; want port-9001 once, then ollama", list)
	}
}

// TestDiscoverOllamaTags: an Ollama that lists its models at /api/tags
// only (GET /v1/models is 404) is found with those models.
//
// spec: W4
func TestDiscoverOllamaTags(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"models":[{"name":"llama3.2:latest"},{"name":"qwen2.5-coder:7b"}]}`))
	}))
	defer srv.Close()
	h := newHarness(t, nil)
	ctx := context.Background()
	if err := h.k.SetSetting(ctx, profiles.SettingDiscoverPorts, portOf(t, srv.URL)); err != nil {
		t.Fatal(err)
	}
	got, err := h.k.Profiles().ProbeModelServer(ctx, "port-"+portOf(t, srv.URL))
	if err != nil || got.Status != profiles.CheckOK || strings.Join(got.Models, ",") != "llama3.2:latest,qwen2.5-coder:7b" {
		t.Errorf("a server with /api/tags only = %+v, %v; want ok with its two models", got, err)
	}
}

// TestAddProviderFromEnv saves the environment's server as a profile with
// the kernel's OPENAI_API_KEY, which never passes through the front end:
// the profile's check passes against a server that wants exactly that
// key, and without the variable the call is refused in words.
//
// spec: W4
func TestAddProviderFromEnv(t *testing.T) {
	noKeyring(t)
	const key = "sk-env-key-456"
	h := newHarness(t, nil, pt.Say("ok"))
	h.srv.RequireKey(key)
	h.srv.SetModels("env-model")
	svc := panelService(h)

	t.Setenv("OPENAI_API_KEY", "")
	_, err := svc.AddProviderFromEnv(profiles.ProviderInput{Name: "env", BaseURL: h.srv.URL, Model: "env-model"})
	if apiCode(err) != kernel.CodeInvalid || !strings.Contains(err.Error(), "OPENAI_API_KEY is not set") {
		t.Fatalf("AddProviderFromEnv without the variable = %v; want invalid, saying OPENAI_API_KEY is not set", err)
	}

	t.Setenv("OPENAI_API_KEY", key)
	p, err := svc.AddProviderFromEnv(profiles.ProviderInput{Name: "env", BaseURL: h.srv.URL, Model: "env-model", APIKey: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "env" || p.Model != "env-model" {
		t.Errorf("profile = %+v; want env, env-model", p)
	}
	check, err := svc.TestProvider("env")
	if err != nil || !check.OK() {
		t.Errorf("TestProvider(env) = %+v, %v; want both steps ok with the environment's key", check, err)
	}
}

// TestDiscoverMasksTheEnvironmentsKey: a server that refuses the
// environment's key and echoes it in its error (as some do) is
// unauthorized, and the message shown says so without the key; the API
// refuses an empty candidate ID in words.
//
// spec: W4
func TestDiscoverMasksTheEnvironmentsKey(t *testing.T) {
	const key = "sk-echoed-secret-789"
	t.Setenv("OPENAI_API_KEY", key)
	srv := pt.New(t)
	srv.RequireKey("another-key") // its 401 echoes the key it got
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	h := newHarness(t, nil)
	got, err := h.k.Profiles().ProbeModelServer(context.Background(), "env")
	if err != nil || got.Status != profiles.CheckUnauthorized {
		t.Fatalf("ProbeModelServer(env) = %+v, %v; want unauthorized", got, err)
	}
	if strings.Contains(got.Message, key) || !strings.Contains(got.Message, "[OPENAI_API_KEY]") {
		t.Errorf("message = %q; want the echoed key masked as [OPENAI_API_KEY]", got.Message)
	}
	if _, err := panelService(h).ProbeModelServer(""); apiCode(err) != kernel.CodeInvalid {
		t.Errorf("ProbeModelServer(\"\") = %v; want invalid", err)
	}
}
