package profiles

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"foya/backend/provider"
)

// A model's context window and output limit: what the server says, else
// the profile's setting, else a guess (Window).

// DefaultContextWindow is the window Foya assumes when neither the server
// nor the profile says one: small enough that a local model's default
// context is rarely below it. It is shown as a guess.
const DefaultContextWindow = 8192

// DefaultMaxOutput is the output limit assumed when nothing says one.
const DefaultMaxOutput = 4096

// MaxContextWindow bounds the setting: no model holds more.
const MaxContextWindow = 100_000_000

// windowTimeout bounds the asking of a server for its window: all its
// endpoints are asked at once, and a server that answers none in time
// leaves the setting or the guess.
var windowTimeout = 3 * time.Second

// How long a server's answer is kept: a server's window changes only when
// its model is loaded again; a server that said nothing is asked again
// sooner.
const (
	windowKeep  = 10 * time.Minute
	windowRetry = time.Minute
)

type cachedWindow struct {
	sw  serverWindow
	ok  bool
	at  time.Time
	key string
}

// serverWindow is what one server said of a model.
type serverWindow struct {
	window, output  int
	running         int // the context the server runs the model with, when it says
	detail, warning string
}

// checkLimits checks a profile's window and output settings.
func checkLimits(window, output int) error {
	switch {
	case window < 0 || window > MaxContextWindow:
		return invalidf("a context window of %d tokens: give 0 (not set) or a number of tokens up to %d, such as 32768", window, MaxContextWindow)
	case window > 0 && window < 256:
		return invalidf("a context window of %d tokens is too small for any conversation: give at least 256 (or 0 to leave it unset)", window)
	case output < 0 || output > MaxContextWindow:
		return invalidf("an output limit of %d tokens: give 0 (not set) or a number of tokens, such as 4096", output)
	case window > 0 && output > window:
		return invalidf("an output limit of %d tokens is more than the context window of %d: give a smaller one", output, window)
	}
	return nil
}

// Window says a profile's model's context window and output limit, and
// where they come from: what the server says (asked with a bounded
// timeout, the answer kept a while per profile and model), else the
// profile's setting, else DefaultContextWindow as a guess. name "" means
// the default profile; model "" the profile's. It never fails for a server
// that is down, slow or answers garbage; an unknown profile is an error.
func (s *Service) Window(ctx context.Context, name, model string) (ContextWindow, error) {
	if name == "" {
		def, err := s.Default(ctx)
		if err != nil {
			return ContextWindow{}, err
		}
		name = def
	}
	if name == "" {
		return ContextWindow{}, notFound(name)
	}
	p, err := s.Get(ctx, name)
	if err != nil {
		return ContextWindow{}, err
	}
	model = cmp.Or(strings.TrimSpace(model), p.Model)
	cfg := provider.Config{BaseURL: p.BaseURL, Model: model, Headers: map[string]string{}}
	for h, v := range p.Headers {
		cfg.Headers[h] = v
	}
	if sec, err := s.secretOf(p); err == nil { // a locked keyring: ask without the key
		cfg.APIKey = sec.APIKey
		for h, v := range sec.Headers {
			cfg.Headers[h] = v
		}
		s.addSecrets(cfg)
	}
	sw, ok := s.askWindow(ctx, name, cfg)
	return resolveWindow(p, model, sw, ok), nil
}

// resolveWindow picks the server's answer, else the profile's setting,
// else the guess.
func resolveWindow(p Provider, model string, sw serverWindow, ok bool) ContextWindow {
	w := ContextWindow{Provider: p.Name, Model: model, Warning: sw.warning, InputPrice: p.InputPrice, OutputPrice: p.OutputPrice}
	switch {
	case ok:
		w.Window, w.Source, w.Detail, w.ServerContext = sw.window, WindowFromServer, sw.detail, sw.running
	case p.ContextWindow > 0:
		w.Window, w.Source, w.Detail = p.ContextWindow, WindowFromSetting, "the profile's setting (the server does not say)"
	default:
		w.Window, w.Source = DefaultContextWindow, WindowDefault
		w.Detail = "a guess: the server does not say; set it in Settings, Providers (or foya providers edit " + p.Name + " --context-window N)"
	}
	switch {
	case ok && sw.output > 0:
		w.OutputLimit = sw.output
	case p.MaxOutput > 0:
		w.OutputLimit = p.MaxOutput
	default:
		w.OutputLimit = min(DefaultMaxOutput, w.Window/4)
	}
	w.OutputLimit = min(w.OutputLimit, w.Window)
	return w
}

// askWindow asks the server, or takes its answer from the cache.
func (s *Service) askWindow(ctx context.Context, name string, cfg provider.Config) (serverWindow, bool) {
	key := name + "\x00" + cfg.BaseURL + "\x00" + cfg.Model
	s.windowMu.Lock()
	c, hit := s.windows[key]
	s.windowMu.Unlock()
	if hit && (c.ok && time.Since(c.at) < windowKeep || !c.ok && time.Since(c.at) < windowRetry) {
		return c.sw, c.ok
	}
	sw, ok := discoverWindow(ctx, cfg)
	if ctx.Err() != nil {
		return sw, ok // cancelled by the caller: says nothing of the server
	}
	s.windowMu.Lock()
	if s.windows == nil {
		s.windows = map[string]cachedWindow{}
	}
	s.windows[key] = cachedWindow{sw: sw, ok: ok, at: time.Now(), key: name}
	s.windowMu.Unlock()
	return sw, ok
}

// forgetWindows drops what servers said for a profile that changed.
func (s *Service) forgetWindows(name string) {
	s.windowMu.Lock()
	defer s.windowMu.Unlock()
	for k, c := range s.windows {
		if c.key == name {
			delete(s.windows, k)
		}
	}
}

// discoverWindow asks a server every way a model server says a model's
// window, all at once within windowTimeout, and takes the best answer:
// llama.cpp's /props (the context it runs with), LM Studio's
// /api/v0/models (the loaded context, else the model's most), Ollama's
// /api/show (num_ctx, else the model's), then the OpenAI-style model
// list's fields (vLLM's max_model_len, OpenRouter's context_length and
// top_provider). Answers that are not JSON, or not numbers, count as no
// answer.
func discoverWindow(ctx context.Context, cfg provider.Config) (serverWindow, bool) {
	ctx, cancel := context.WithTimeout(ctx, windowTimeout)
	defer cancel()
	base := strings.TrimRight(cfg.BaseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	asks := []func() (serverWindow, bool){
		func() (serverWindow, bool) { return askLlamaProps(ctx, cfg, root) },
		func() (serverWindow, bool) { return askLMStudio(ctx, cfg, root) },
		func() (serverWindow, bool) { return askOllama(ctx, cfg, root) },
		func() (serverWindow, bool) { return askModelList(ctx, cfg, base) },
	}
	// The first answer in the order above wins: once every ask before
	// one that answered is done, the rest are not waited for.
	type answer struct {
		i  int
		sw serverWindow
		ok bool
	}
	got := make(chan answer, len(asks))
	for i, ask := range asks {
		go func() {
			sw, ok := ask()
			got <- answer{i, sw, ok && sw.window > 0 && sw.window <= MaxContextWindow}
		}()
	}
	done := make([]*answer, len(asks))
	for range asks {
		a := <-got
		done[a.i] = &a
		for _, d := range done {
			if d == nil {
				break // an earlier ask may still answer
			}
			if d.ok {
				if d.sw.output < 0 || d.sw.output > d.sw.window {
					d.sw.output = 0
				}
				return d.sw, true
			}
		}
	}
	return serverWindow{}, false
}

// getJSON asks url (POST with body when body is not nil) and decodes a
// 200 answer of at most 8 MiB into v.
func getJSON(ctx context.Context, cfg provider.Config, method, u string, body any, v any) bool {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return false
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for h, v := range cfg.Headers {
		req.Header.Set(h, v)
	}
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// tokens reads a JSON number of tokens (some servers send strings).
type tokens int

func (t *tokens) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > MaxContextWindow {
		return nil // not a number of tokens: no answer, not an error
	}
	*t = tokens(f)
	return nil
}

// askLlamaProps reads llama.cpp's GET /props: the n_ctx its slots run with.
func askLlamaProps(ctx context.Context, cfg provider.Config, root string) (serverWindow, bool) {
	var props struct {
		Settings struct {
			NCtx     tokens `json:"n_ctx"`
			NPredict tokens `json:"n_predict"`
		} `json:"default_generation_settings"`
	}
	if !getJSON(ctx, cfg, http.MethodGet, root+"/props", nil, &props) || props.Settings.NCtx <= 0 {
		return serverWindow{}, false
	}
	return serverWindow{window: int(props.Settings.NCtx), output: int(props.Settings.NPredict), running: int(props.Settings.NCtx),
		detail: "from llama.cpp's /props (n_ctx)"}, true
}

// askLMStudio reads LM Studio's GET /api/v0/models/MODEL.
func askLMStudio(ctx context.Context, cfg provider.Config, root string) (serverWindow, bool) {
	var m struct {
		ID     string `json:"id"`
		Max    tokens `json:"max_context_length"`
		Loaded tokens `json:"loaded_context_length"`
	}
	if !getJSON(ctx, cfg, http.MethodGet, root+"/api/v0/models/"+url.PathEscape(cfg.Model), nil, &m) {
		return serverWindow{}, false
	}
	switch {
	case m.Loaded > 0:
		sw := serverWindow{window: int(m.Loaded), running: int(m.Loaded), detail: "from LM Studio's /api/v0/models (the loaded context)"}
		if m.Max > m.Loaded {
			sw.warning = fmt.Sprintf("LM Studio loaded the model with a context of %d tokens; it takes up to %d: load it with a larger context length for longer conversations", m.Loaded, m.Max)
		}
		return sw, true
	case m.Max > 0:
		return serverWindow{window: int(m.Max), detail: "from LM Studio's /api/v0/models (the model's most; it is not loaded yet)"}, true
	}
	return serverWindow{}, false
}

// askOllama reads Ollama's POST /api/show: the num_ctx in the model's
// parameters, else the model's own context length with a warning, since
// Ollama then runs it with its default context (which its OpenAI-style
// endpoint gives no way to raise).
func askOllama(ctx context.Context, cfg provider.Config, root string) (serverWindow, bool) {
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	if !getJSON(ctx, cfg, http.MethodPost, root+"/api/show", map[string]string{"model": cfg.Model}, &show) {
		return serverWindow{}, false
	}
	numCtx, numPredict := 0, 0
	for line := range strings.SplitSeq(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n <= 0 {
			continue
		}
		switch f[0] {
		case "num_ctx":
			numCtx = n
		case "num_predict":
			numPredict = n
		}
	}
	var arch string
	_ = json.Unmarshal(show.ModelInfo["general.architecture"], &arch)
	var trained tokens
	if arch != "" {
		_ = json.Unmarshal(show.ModelInfo[arch+".context_length"], &trained)
	}
	switch {
	case numCtx > 0:
		sw := serverWindow{window: numCtx, output: numPredict, running: numCtx, detail: "from Ollama's /api/show (num_ctx in the model's parameters)"}
		if int(trained) > numCtx {
			sw.warning = fmt.Sprintf("the model takes up to %d tokens but Ollama runs it with num_ctx %d; raise num_ctx (PARAMETER num_ctx in a Modelfile) for longer conversations: Foya cannot ask for more through Ollama's OpenAI-compatible endpoint", int(trained), numCtx)
		}
		return sw, true
	case trained > 0:
		return serverWindow{window: int(trained), output: numPredict, detail: "from Ollama's /api/show (the model's context length)",
			warning: "Ollama runs a model with its default context (OLLAMA_CONTEXT_LENGTH) unless num_ctx is set in its Modelfile, and Foya cannot ask for more through the OpenAI-compatible endpoint; if a long conversation is cut, set PARAMETER num_ctx or OLLAMA_CONTEXT_LENGTH"}, true
	}
	return serverWindow{}, false
}

// askModelList reads the OpenAI-style GET /models entry of the model:
// vLLM's max_model_len, OpenRouter's context_length and top_provider, LM
// Studio's and others' context_length or max_context_length.
func askModelList(ctx context.Context, cfg provider.Config, base string) (serverWindow, bool) {
	type entry struct {
		ID               string `json:"id"`
		MaxModelLen      tokens `json:"max_model_len"`
		ContextLength    tokens `json:"context_length"`
		MaxContextLength tokens `json:"max_context_length"`
		TopProvider      struct {
			ContextLength       tokens `json:"context_length"`
			MaxCompletionTokens tokens `json:"max_completion_tokens"`
		} `json:"top_provider"`
	}
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if !getJSON(ctx, cfg, http.MethodGet, base+"/models", nil, &list) {
		return serverWindow{}, false
	}
	for _, raw := range list.Data {
		var e entry
		if json.Unmarshal(raw, &e) != nil || e.ID != cfg.Model {
			continue
		}
		out := int(e.TopProvider.MaxCompletionTokens)
		switch {
		case e.MaxModelLen > 0:
			return serverWindow{window: int(e.MaxModelLen), output: out, detail: "from the server's /models (max_model_len)"}, true
		case e.TopProvider.ContextLength > 0:
			return serverWindow{window: int(e.TopProvider.ContextLength), output: out, detail: "from the server's /models (top_provider.context_length)"}, true
		case e.ContextLength > 0:
			return serverWindow{window: int(e.ContextLength), output: out, detail: "from the server's /models (context_length)"}, true
		case e.MaxContextLength > 0:
			return serverWindow{window: int(e.MaxContextLength), output: out, detail: "from the server's /models (max_context_length)"}, true
		}
		return serverWindow{}, false
	}
	return serverWindow{}, false
}
