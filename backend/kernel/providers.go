package kernel

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"foya/backend/engine"
	"foya/backend/llm"
	"foya/backend/provider"
)

// Setting keys of the provider profiles. Both are written by the provider
// methods only (SetSetting refuses them).
const (
	// SettingProviders holds the profiles: a JSON array of Provider
	// without keys (those are in the keyring, or KeyFile).
	SettingProviders = "providers.profiles"
	// SettingDefaultProvider names the profile used when a session or a
	// command names none.
	SettingDefaultProvider = "providers.default"
)

// NoProvider is the provider a session records when it runs with no
// profile: a server given by flags or environment variables only.
const NoProvider = "openai-compatible"

// Errors of the provider methods that callers branch on.
var (
	// ErrProviderNotFound means ErrNotFound too.
	ErrProviderNotFound = newSentinel("no such provider", ErrNotFound)
	// ErrProviderExists means ErrConflict too.
	ErrProviderExists = newSentinel("provider exists", ErrConflict)
	// ErrInvalidProvider is wrapped by every error about bad input: a
	// name, a URL, a header or a model. It means ErrInvalid too.
	ErrInvalidProvider = newSentinel("invalid provider", ErrInvalid)
)

// invalid is bad input to a provider method.
type invalid struct{ msg string }

func (e invalid) Error() string        { return e.msg }
func (e invalid) Is(target error) bool { return target == ErrInvalidProvider || target == ErrInvalid }

func invalidf(format string, a ...any) error { return invalid{fmt.Sprintf(format, a...)} }

var providerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// secretHeader reports whether a header's value is a credential.
func secretHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	for _, w := range []string{"key", "token", "secret", "auth", "password", "session", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// CheckBaseURL checks a model server's base URL: absolute http or https,
// with a host, without credentials, query or fragment (credentials belong
// in the key, which is kept out of settings and logs).
func CheckBaseURL(raw string) error {
	if strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return invalidf("the base URL must not contain spaces or control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalidf("the base URL is not a URL (%v): want one such as http://127.0.0.1:8080/v1", errors.Unwrap(err))
	}
	shown := *u
	shown.User = nil // a user name may be a token too
	switch {
	case u.User != nil:
		return invalidf("base URL %s: must not hold a user name or password; pass the key with --api-key-stdin", shown.String())
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return invalidf("base URL %q: want an http:// or https:// URL with a host, such as http://127.0.0.1:8080/v1", shown.String())
	case u.RawQuery != "" || u.Fragment != "":
		return invalidf("base URL %s: must not have a query or fragment", u.Scheme+"://"+u.Host+u.Path)
	}
	return nil
}

// checkHeaders checks header names and values.
func checkHeaders(h map[string]string) error {
	for k, v := range h {
		if !validHeaderName(k) {
			return invalidf("header name %q is not valid: want a token such as X-Org-Id", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return invalidf("header %s: the value must not contain line breaks", k)
		}
	}
	return nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// providerSecret is what a profile keeps in the key store: the key and the
// values of its secret headers, as one JSON value.
type providerSecret struct {
	APIKey  string            `json:"apiKey,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

func (s providerSecret) empty() bool { return s.APIKey == "" && len(s.Headers) == 0 }

// split divides headers into plain ones and secret ones.
func splitHeaders(h map[string]string) (plain, secret map[string]string) {
	for k, v := range h {
		if secretHeader(k) {
			if secret == nil {
				secret = map[string]string{}
			}
			secret[k] = v
			continue
		}
		if plain == nil {
			plain = map[string]string{}
		}
		plain[k] = v
	}
	return plain, secret
}

func (k *Kernel) readProviders(ctx context.Context) ([]Provider, error) {
	v, ok, err := k.store.Setting(ctx, SettingProviders)
	if err != nil || !ok {
		return nil, err
	}
	return decodeProviders(v)
}

func decodeProviders(v string) ([]Provider, error) {
	var list []Provider
	if err := json.Unmarshal([]byte(v), &list); err != nil {
		return nil, fmt.Errorf("setting %s is not a list of provider profiles: %w", SettingProviders, err)
	}
	return list, nil
}

// updateProviders changes the stored profiles in one transaction.
func (k *Kernel) updateProviders(ctx context.Context, fn func([]Provider) ([]Provider, error)) error {
	return k.store.UpdateSetting(ctx, SettingProviders, func(v string, ok bool) (string, bool, error) {
		var list []Provider
		if ok {
			var err error
			if list, err = decodeProviders(v); err != nil {
				return "", false, err
			}
		}
		list, err := fn(list)
		if err != nil {
			return "", false, err
		}
		slices.SortFunc(list, func(a, b Provider) int { return cmp.Compare(a.Name, b.Name) })
		b, err := json.Marshal(list)
		return string(b), false, err
	})
}

// DefaultProvider returns the default profile's name, "" if there is none.
func (k *Kernel) DefaultProvider(ctx context.Context) (string, error) {
	v, _, err := k.store.Setting(ctx, SettingDefaultProvider)
	return v, err
}

// Providers lists the profiles by name, the default one marked.
func (k *Kernel) Providers(ctx context.Context) ([]Provider, error) {
	list, err := k.readProviders(ctx)
	if err != nil {
		return nil, err
	}
	def, err := k.DefaultProvider(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		list[i].Default = list[i].Name == def
	}
	if list == nil {
		list = []Provider{}
	}
	return list, nil
}

// Provider returns one profile, or an error wrapping ErrProviderNotFound.
func (k *Kernel) Provider(ctx context.Context, name string) (Provider, error) {
	list, err := k.Providers(ctx)
	if err != nil {
		return Provider{}, err
	}
	for _, p := range list {
		if p.Name == name {
			return p, nil
		}
	}
	return Provider{}, notFound(name)
}

func notFound(name string) error {
	return fmt.Errorf("%w %q: see foya providers list", ErrProviderNotFound, name)
}

// AddProvider checks and stores a new profile, its key in the keyring (or,
// where there is none, in KeyFile: Provider.KeyStore says which). The first
// profile becomes the default.
func (k *Kernel) AddProvider(ctx context.Context, in ProviderInput) (Provider, error) {
	if !providerName.MatchString(in.Name) {
		return Provider{}, invalidf("provider name %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", in.Name)
	}
	p, sec, err := checkInput(in)
	if err != nil {
		return Provider{}, err
	}
	if _, err := k.Provider(ctx, in.Name); err == nil {
		return Provider{}, fmt.Errorf("%w: %s already exists: remove it first, or change it with foya providers edit", ErrProviderExists, in.Name)
	} else if !errors.Is(err, ErrProviderNotFound) {
		return Provider{}, err
	}
	if p.KeyStore, err = k.putSecret(in.Name, sec); err != nil {
		return Provider{}, err
	}
	err = k.updateProviders(ctx, func(list []Provider) ([]Provider, error) {
		if slices.ContainsFunc(list, func(q Provider) bool { return q.Name == p.Name }) {
			return nil, fmt.Errorf("%w: %s already exists", ErrProviderExists, p.Name)
		}
		return append(list, p), nil
	})
	if err != nil {
		if !errors.Is(err, ErrProviderExists) { // then the key is another process's
			_ = k.keys.drop(p.Name, p.KeyStore)
		}
		return Provider{}, err
	}
	if err := k.store.UpdateSetting(ctx, SettingDefaultProvider, func(v string, ok bool) (string, bool, error) {
		if ok && v != "" {
			return v, false, nil
		}
		p.Default = true
		return p.Name, false, nil
	}); err != nil {
		return p, err
	}
	return p, nil
}

// checkInput checks a profile's fields and splits off its secrets.
func checkInput(in ProviderInput) (Provider, providerSecret, error) {
	if err := CheckBaseURL(in.BaseURL); err != nil {
		return Provider{}, providerSecret{}, err
	}
	if strings.TrimSpace(in.Model) == "" {
		return Provider{}, providerSecret{}, invalidf("provider %s: the model is empty: give --model", in.Name)
	}
	if err := checkHeaders(in.Headers); err != nil {
		return Provider{}, providerSecret{}, err
	}
	if strings.ContainsAny(in.APIKey, "\r\n\x00") {
		return Provider{}, providerSecret{}, invalidf("the API key must be one line")
	}
	plain, sec := splitHeaders(in.Headers)
	p := Provider{Name: in.Name, BaseURL: in.BaseURL, Model: strings.TrimSpace(in.Model), Headers: plain}
	for name := range sec {
		p.SecretHeaders = append(p.SecretHeaders, name)
	}
	slices.Sort(p.SecretHeaders)
	return p, providerSecret{APIKey: in.APIKey, Headers: sec}, nil
}

// putSecret stores a profile's secret part, if any, and says where.
func (k *Kernel) putSecret(name string, sec providerSecret) (string, error) {
	if sec.empty() {
		return "", nil
	}
	b, err := json.Marshal(sec)
	if err != nil {
		return "", err
	}
	return k.keys.put(name, string(b))
}

// secretOf reads a profile's secret part.
func (k *Kernel) secretOf(p Provider) (providerSecret, error) {
	v, err := k.keys.get(p.Name, p.KeyStore)
	if err != nil || v == "" {
		return providerSecret{}, err
	}
	var sec providerSecret
	if err := json.Unmarshal([]byte(v), &sec); err != nil {
		return providerSecret{}, fmt.Errorf("the stored key of provider %s is not Foya's: add it again with foya providers edit %s --api-key-stdin", p.Name, p.Name)
	}
	return sec, nil
}

// EditProvider changes a profile. A new key or new headers replace the
// stored ones; the old key is kept until the new one is stored.
func (k *Kernel) EditProvider(ctx context.Context, name string, e ProviderEdit) (Provider, error) {
	cur, err := k.Provider(ctx, name)
	if err != nil {
		return Provider{}, err
	}
	sec, err := k.secretOf(cur)
	if err != nil && (e.APIKey == nil || e.Headers == nil) {
		return Provider{}, err // a part that stays cannot be read
	}
	in := ProviderInput{Name: name, BaseURL: cur.BaseURL, Model: cur.Model, Headers: map[string]string{}, APIKey: sec.APIKey}
	for h, v := range cur.Headers {
		in.Headers[h] = v
	}
	for h, v := range sec.Headers {
		in.Headers[h] = v
	}
	if e.BaseURL != nil {
		in.BaseURL = *e.BaseURL
	}
	if e.Model != nil {
		in.Model = *e.Model
	}
	if e.Headers != nil {
		in.Headers = e.Headers
	}
	if e.APIKey != nil {
		in.APIKey = *e.APIKey
	}
	p, nsec, err := checkInput(in)
	if err != nil {
		return Provider{}, err
	}
	if p.KeyStore, err = k.putSecret(name, nsec); err != nil {
		return Provider{}, err
	}
	err = k.updateProviders(ctx, func(list []Provider) ([]Provider, error) {
		i := slices.IndexFunc(list, func(q Provider) bool { return q.Name == name })
		if i < 0 {
			return nil, notFound(name)
		}
		list[i] = p
		return list, nil
	})
	if err != nil {
		return Provider{}, err
	}
	if cur.KeyStore != "" && cur.KeyStore != p.KeyStore {
		_ = k.keys.drop(name, cur.KeyStore) // the old place: a leftover is harmless, put overwrote same-place keys
	}
	p.Default = cur.Default
	return p, nil
}

// RemoveProvider removes a profile and its key. Sessions that used it keep
// its name; they run again with another profile or flags.
func (k *Kernel) RemoveProvider(ctx context.Context, name string) error {
	var gone Provider
	err := k.updateProviders(ctx, func(list []Provider) ([]Provider, error) {
		i := slices.IndexFunc(list, func(q Provider) bool { return q.Name == name })
		if i < 0 {
			return nil, notFound(name)
		}
		gone = list[i]
		return slices.Delete(list, i, i+1), nil
	})
	if err != nil {
		return err
	}
	if err := k.store.UpdateSetting(ctx, SettingDefaultProvider, func(v string, ok bool) (string, bool, error) {
		return v, ok && v == name, nil
	}); err != nil {
		return err
	}
	return k.keys.drop(name, gone.KeyStore)
}

// SetDefaultProvider makes a profile the default.
func (k *Kernel) SetDefaultProvider(ctx context.Context, name string) error {
	if _, err := k.Provider(ctx, name); err != nil {
		return err
	}
	return k.store.SetSetting(ctx, SettingDefaultProvider, name)
}

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

// ProviderModel builds the model client for a run from a choice: the
// profile's settings under the overrides, with the provider.idleTimeout
// setting. The key and header values become kernel secrets: no command's
// environment holds them and every tool result, model error and check
// message masks them. It returns the profile's name (NoProvider for none)
// and the model name the session records.
func (k *Kernel) ProviderModel(ctx context.Context, c ModelChoice) (engine.Model, string, string, error) {
	var p Provider
	name := c.Provider
	switch {
	case name != "":
	case c.BaseURL != "":
	case c.Session != "" && c.Session != NoProvider:
		if _, err := k.Provider(ctx, c.Session); err == nil {
			name = c.Session
		}
	}
	if name == "" && c.BaseURL == "" && c.Provider == "" {
		def, err := k.DefaultProvider(ctx)
		if err != nil {
			return nil, "", "", err
		}
		name = def
	}
	var sec providerSecret
	if name != "" {
		var err error
		if p, err = k.Provider(ctx, name); err != nil {
			return nil, "", "", err
		}
		// A profile's key and credential headers go only to its own server:
		// one given by URL (--base-url, $OPENAI_BASE_URL) gets a key only
		// from --api-key or $OPENAI_API_KEY (issue 21 item 8).
		own := c.BaseURL == "" || SameServer(c.BaseURL, p.BaseURL)
		if own && (c.APIKey == "" || len(p.SecretHeaders) > 0) { // read only when used: a locked keyring stops only what needs it
			if sec, err = k.secretOf(p); err != nil {
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
		Model: cmp.Or(c.Model, p.Model), Headers: headers}
	if cfg.BaseURL != "" {
		if err := CheckBaseURL(cfg.BaseURL); err != nil {
			return nil, "", "", err
		}
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, "", "", invalidf("no model: pass --model, set FOYA_MODEL, or add a provider with foya providers add")
	}
	idle, err := k.IdleTimeout(ctx)
	if err != nil {
		return nil, "", "", err
	}
	cfg.IdleTimeout = idle
	k.addSecrets(cfg)
	k.addFileSecrets()
	client, err := provider.New(cfg)
	if err != nil {
		return nil, "", "", invalid{k.mask(err.Error())}
	}
	return maskedModel{client, k.mask}, cmp.Or(name, NoProvider), cfg.Model, nil
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

// addSecrets makes a provider's key and header values kernel secrets.
func (k *Kernel) addSecrets(cfg provider.Config) {
	known := map[string]string{"provider API key": cfg.APIKey}
	for h, v := range cfg.Headers {
		known["provider header "+h] = v
	}
	k.secrets.add(known)
}

// addFileSecrets makes every key in KeyFile a kernel secret, not only the
// run's own: in Full Access a command may read that file, and the other
// profiles' keys must be masked in what it prints too. (Keys in a keyring
// are out of a command's reach unless the keyring hands them out; those
// of other profiles are not read, so as not to prompt for them.)
func (k *Kernel) addFileSecrets() {
	m, err := k.keys.fileRead()
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
	k.secrets.add(known)
}

// maskedModel masks known secrets in a model's errors: a server that
// echoes the key in its error body must not put it in run.end, the
// history or the log.
type maskedModel struct {
	m    engine.Model
	mask func(string) string
}

func (m maskedModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Delta, error] {
	return func(yield func(llm.Delta, error) bool) {
		for d, err := range m.m.Stream(ctx, req) {
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
