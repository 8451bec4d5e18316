package profiles

import (
	"cmp"
	"context"
	"encoding/json"
	"iter"
	"net/url"
	"strings"

	"foya/backend/llm"
	"foya/backend/provider"
)

// ModelChoice says which model server a session's run talks to. Every
// field is optional: empty ones come from the profile.
type ModelChoice struct {
	// Provider names a profile; "" means Session's if it names one (a
	// continued session keeps its profile), else the default profile,
	// unless BaseURL is set. A server given by BaseURL gets no profile's
	// key or credential headers, even with Provider set, unless it is
	// that profile's own server: its key comes from APIKey or EnvAPIKey.
	Provider string
	Session  string
	// BaseURL, Model, APIKey and Headers override the profile's (flags
	// and environment variables of foya exec). Headers are merged over
	// the profile's.
	BaseURL string
	Model   string
	APIKey  string
	Headers map[string]string
	// EnvAPIKey is a key from the environment ($OPENAI_API_KEY): used
	// when neither APIKey nor the profile gives one. A profile's own key
	// wins over it, so that a key meant for one server is not sent to
	// another because it happens to be in the environment.
	EnvAPIKey string
}

// Client builds the model client for a run from a choice: the profile's
// settings under the overrides, with the provider.idleTimeout setting. The
// key and header values become secrets (Config.Secrets): no command's
// environment holds them and every tool result, model error and check
// message masks them. It returns the profile's name (NoProvider for none)
// and the model name the session records.
func (s *Service) Client(ctx context.Context, c ModelChoice) (*Client, string, string, error) {
	var p Provider
	name := c.Provider
	switch {
	case name != "":
	case c.BaseURL != "":
	case c.Session != "" && c.Session != NoProvider:
		if _, err := s.Get(ctx, c.Session); err == nil {
			name = c.Session
		}
	}
	if name == "" && c.BaseURL == "" && c.Provider == "" {
		def, err := s.Default(ctx)
		if err != nil {
			return nil, "", "", err
		}
		name = def
	}
	var sec providerSecret
	if name != "" {
		var err error
		if p, err = s.Get(ctx, name); err != nil {
			return nil, "", "", err
		}
		// A profile's key and credential headers go only to its own server:
		// one given by URL (--base-url, $OPENAI_BASE_URL) gets a key only
		// from --api-key or $OPENAI_API_KEY, so that a key meant for one
		// server is never sent to another.
		own := c.BaseURL == "" || SameServer(c.BaseURL, p.BaseURL)
		if own && (c.APIKey == "" || len(p.SecretHeaders) > 0) { // read only when used: a locked keyring stops only what needs it
			if sec, err = s.secretOf(p); err != nil {
				return nil, "", "", err
			}
		}
	}
	headers := map[string]string{}
	for h, v := range p.Headers {
		headers[h] = v
	}
	for h, v := range sec.Headers {
		headers[h] = v
	}
	for h, v := range c.Headers {
		headers[h] = v
	}
	cfg := provider.Config{BaseURL: cmp.Or(c.BaseURL, p.BaseURL), APIKey: cmp.Or(c.APIKey, sec.APIKey, c.EnvAPIKey),
		Model: cmp.Or(c.Model, p.Model), Headers: headers, ToolCalls: p.ToolCalls}
	if cfg.BaseURL != "" {
		if err := CheckBaseURL(cfg.BaseURL); err != nil {
			return nil, "", "", err
		}
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, "", "", invalidf("no model: pass --model, set FOYA_MODEL, or add a provider with foya providers add")
	}
	idle, err := s.idleTimeout(ctx)
	if err != nil {
		return nil, "", "", err
	}
	cfg.IdleTimeout = idle
	s.addSecrets(cfg)
	s.addFileSecrets()
	client, err := provider.New(cfg)
	if err != nil {
		return nil, "", "", invalid{s.mask(err.Error())}
	}
	return &Client{client, s.mask}, cmp.Or(name, NoProvider), cfg.Model, nil
}

// SameServer reports whether two base URLs name the same server and path,
// whatever the case of the scheme and host and a final slash.
func SameServer(a, b string) bool {
	ua, errA := url.Parse(strings.TrimRight(a, "/"))
	ub, errB := url.Parse(strings.TrimRight(b, "/"))
	if errA != nil || errB != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) && ua.Path == ub.Path &&
		ua.RawQuery == ub.RawQuery && ua.User == nil && ub.User == nil
}

// addSecrets makes a provider's key and header values secrets.
func (s *Service) addSecrets(cfg provider.Config) {
	known := map[string]string{"provider API key": cfg.APIKey}
	for h, v := range cfg.Headers {
		known["provider header "+h] = v
	}
	s.secrets.Add(known)
}

// addFileSecrets makes every key in KeyFile a secret, not only the
// run's own: in Full Access a command may read that file, and the other
// profiles' keys must be masked in what it prints too. (Keys in a keyring
// are out of a command's reach unless the keyring hands them out; those
// of other profiles are not read, so as not to prompt for them.)
func (s *Service) addFileSecrets() {
	m, err := s.keys.fileRead()
	if err != nil {
		return
	}
	known := map[string]string{}
	for name, v := range m {
		var sec providerSecret
		if json.Unmarshal([]byte(v), &sec) != nil {
			continue
		}
		known["provider "+name+" API key"] = sec.APIKey
		for h, hv := range sec.Headers {
			known["provider "+name+" header "+h] = hv
		}
	}
	s.secrets.Add(known)
}

// Client is a run's model client: the provider's, with known secrets
// masked in its errors, since a server that echoes the key in its error
// body must not put it in run.end, the history or the log.
type Client struct {
	c    *provider.Client
	mask func(string) string
}

// Stream streams one model request (provider.Client.Stream), its errors
// masked.
func (m *Client) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error] {
	return func(yield func(llm.Delta, error) bool) {
		for d, err := range m.c.Stream(ctx, req) {
			if err != nil {
				err = &maskedError{err: err, text: m.mask(err.Error())}
			}
			if !yield(d, err) {
				return
			}
		}
	}
}

type maskedError struct {
	err  error
	text string
}

func (e *maskedError) Error() string { return e.text }
func (e *maskedError) Unwrap() error { return e.err }
