package profiles_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/fault"
	"foya/backend/profiles"
)

// Issue 28, item 1: Foya knows a model's context window and output limit,
// from what the server says, else the profile's setting, else a guess.

// recorded serves recorded answers by method and path; anything else is
// 404, as the servers answer endpoints they do not have.
func recorded(t *testing.T, hits *atomic.Int32, answers map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits != nil {
			hits.Add(1)
		}
		body, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func windowService(t *testing.T) *profiles.Service {
	t.Helper()
	noKeyring(t)
	db := filepath.Join(t.TempDir(), "foya.db")
	return profiles.New(profiles.Config{Settings: openStore(t, db), DataDir: filepath.Dir(db), Secrets: &secrets{}})
}

func TestWindowFromServers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers map[string]string
		window  int
		output  int
		detail  string
		warning string
	}{
		{"vLLM", map[string]string{"GET /v1/models": `{"object":"list","data":[{"id":"other","max_model_len":4096},{"id":"m","object":"model","max_model_len":32768}]}`},
			32768, 4096, "/models (max_model_len)", ""},
		{"OpenRouter", map[string]string{"GET /v1/models": `{"data":[{"id":"m","context_length":200000,"top_provider":{"context_length":128000,"max_completion_tokens":16384}}]}`},
			128000, 16384, "top_provider.context_length", ""},
		{"LM Studio loaded", map[string]string{
			"GET /v1/models":       `{"data":[{"id":"m","object":"model"}]}`,
			"GET /api/v0/models/m": `{"id":"m","state":"loaded","max_context_length":32768,"loaded_context_length":8192}`},
			8192, 2048, "LM Studio's /api/v0/models (the loaded context)", "loaded the model with a context of 8192"},
		{"LM Studio not loaded", map[string]string{"GET /api/v0/models/m": `{"id":"m","state":"not-loaded","max_context_length":32768}`},
			32768, 4096, "the model's most", ""},
		{"Ollama num_ctx", map[string]string{
			"GET /v1/models": `{"data":[{"id":"m"}]}`,
			"POST /api/show": `{"parameters":"num_ctx                        16384\nstop \"<|im_end|>\"\nnum_predict 2000","model_info":{"general.architecture":"qwen2","qwen2.context_length":131072}}`},
			16384, 2000, "Ollama's /api/show (num_ctx", "runs it with num_ctx 16384"},
		{"Ollama model only", map[string]string{"POST /api/show": `{"parameters":"stop x","model_info":{"general.architecture":"llama","llama.context_length":131072}}`},
			131072, 4096, "Ollama's /api/show (the model's context length)", "OLLAMA_CONTEXT_LENGTH"},
		{"llama.cpp", map[string]string{
			"GET /v1/models": `{"data":[{"id":"m","meta":{"n_ctx_train":131072}}]}`,
			"GET /props":     `{"default_generation_settings":{"n_ctx":24576,"n_predict":-1},"total_slots":1}`},
			24576, 4096, "llama.cpp's /props", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			k := windowService(t)
			srv := recorded(t, nil, tc.answers)
			if _, err := k.Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: srv.URL + "/v1", Model: "m", ContextWindow: 1000}); err != nil {
				t.Fatal(err)
			}
			w, err := k.Window(ctx, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if w.Source != profiles.WindowFromServer || w.Window != tc.window || w.OutputLimit != tc.output ||
				!strings.Contains(w.Detail, tc.detail) || (tc.warning == "") != (w.Warning == "") || !strings.Contains(w.Warning, tc.warning) {
				t.Fatalf("window = %+v; want %d tokens, output %d, from the server (%q), warning %q", w, tc.window, tc.output, tc.detail, tc.warning)
			}
		})
	}
}

// A server that says nothing of use: garbage, numbers that are not, a
// list without the model. The profile's setting wins, else the guess;
// nothing fails.
func TestWindowGarbageFallsBack(t *testing.T) {
	ctx := context.Background()
	k := windowService(t)
	srv := recorded(t, nil, map[string]string{
		"GET /v1/models":       `{"data":[{"id":"m","max_model_len":"lots"},{"id":"x","max_model_len":9}]`,
		"POST /api/show":       `<html>not json</html>`,
		"GET /api/v0/models/m": `{"max_context_length":-5,"loaded_context_length":1e99}`,
		"GET /props":           `{"default_generation_settings":{"n_ctx":null}}`,
	})
	if _, err := k.Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: srv.URL + "/v1", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	w, err := k.Window(ctx, "p", "")
	if err != nil || w.Source != profiles.WindowDefault || w.Window != profiles.DefaultContextWindow || !strings.Contains(w.Detail, "a guess") {
		t.Fatalf("window = %+v, %v; want the guess", w, err)
	}
	window, output := 65536, 8192
	if _, err := k.Edit(ctx, "p", profiles.ProviderEdit{ContextWindow: &window, MaxOutput: &output}); err != nil {
		t.Fatal(err)
	}
	w, err = k.Window(ctx, "p", "")
	if err != nil || w.Source != profiles.WindowFromSetting || w.Window != 65536 || w.OutputLimit != 8192 {
		t.Fatalf("window = %+v, %v; want the setting", w, err)
	}
}

// A server that never answers: the window is the setting once the bounded
// wait is over, and the run's context, when cancelled, stops the wait.
func TestWindowHangingServer(t *testing.T) {
	old := profiles.SetWindowTimeout(200 * time.Millisecond)
	t.Cleanup(func() { profiles.SetWindowTimeout(old) })
	ctx := context.Background()
	k := windowService(t)
	release := make(chan struct{})
	var cancelCaller atomic.Value // func(): cancels the second caller once its ask arrives
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := cancelCaller.Load().(context.CancelFunc); ok {
			c()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	if _, err := k.Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: srv.URL + "/v1", Model: "m", ContextWindow: 20000}); err != nil {
		t.Fatal(err)
	}
	w, err := k.Window(ctx, "p", "")
	if err != nil || w.Source != profiles.WindowFromSetting || w.Window != 20000 {
		t.Fatalf("window = %+v, %v; want the setting", w, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cancelCaller.Store(cancel)
	w, err = k.Window(cctx, "p", "other")
	if err != nil || w.Source != profiles.WindowFromSetting {
		t.Fatalf("cancelled: window = %+v, %v; want the setting", w, err)
	}
}

// The server's answer is kept per profile and model; editing the profile
// asks again.
func TestWindowCache(t *testing.T) {
	ctx := context.Background()
	k := windowService(t)
	var hits atomic.Int32
	srv := recorded(t, &hits, map[string]string{"GET /v1/models": `{"data":[{"id":"m","max_model_len":32768},{"id":"n","max_model_len":4096}]}`})
	if _, err := k.Add(ctx, profiles.ProviderInput{Name: "p", BaseURL: srv.URL + "/v1", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if w, _ := k.Window(ctx, "p", ""); w.Window != 32768 {
		t.Fatalf("window = %+v", w)
	}
	asked := hits.Load()
	if w, _ := k.Window(ctx, "p", "m"); w.Window != 32768 || hits.Load() != asked {
		t.Fatalf("window = %+v after %d more requests; want the kept answer", w, hits.Load()-asked)
	}
	if w, _ := k.Window(ctx, "p", "n"); w.Window != 4096 || hits.Load() == asked {
		t.Fatalf("another model: window = %+v; want it asked", w)
	}
	asked = hits.Load()
	model := "m"
	if _, err := k.Edit(ctx, "p", profiles.ProviderEdit{Model: &model}); err != nil {
		t.Fatal(err)
	}
	if w, _ := k.Window(ctx, "p", ""); w.Window != 32768 || hits.Load() == asked {
		t.Fatalf("after an edit: window = %+v; want it asked again", w)
	}
	if _, err := k.Window(ctx, "nope", ""); !errors.Is(err, profiles.ErrProviderNotFound) {
		t.Fatalf("unknown profile: %v", err)
	}
}

func TestWindowSettingChecked(t *testing.T) {
	ctx := context.Background()
	k := windowService(t)
	for _, in := range []profiles.ProviderInput{
		{ContextWindow: -1}, {ContextWindow: 100}, {ContextWindow: 1 << 40}, {MaxOutput: -3},
		{ContextWindow: 4096, MaxOutput: 8192},
	} {
		in.Name, in.BaseURL, in.Model = "p", "http://127.0.0.1:1/v1", "m"
		if _, err := k.Add(ctx, in); !errors.Is(err, fault.ErrInvalid) {
			t.Errorf("add with window %d, output %d: %v; want invalid", in.ContextWindow, in.MaxOutput, err)
		}
	}
}
