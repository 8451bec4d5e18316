package profiles

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"foya/backend/provider"
)

// Setting keys of the provider profiles. Both are written by the Service
// only (the kernel's SetSetting refuses the first and hands the second to
// SetDefault).
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

func (s *Service) readProviders(ctx context.Context) ([]Provider, error) {
	v, ok, err := s.settings.Setting(ctx, SettingProviders)
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
func (s *Service) updateProviders(ctx context.Context, fn func([]Provider) ([]Provider, error)) error {
	return s.settings.UpdateSetting(ctx, SettingProviders, func(v string, ok bool) (string, bool, error) {
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

// Default returns the default profile's name, "" if there is none.
func (s *Service) Default(ctx context.Context) (string, error) {
	v, _, err := s.settings.Setting(ctx, SettingDefaultProvider)
	return v, err
}

// List lists the profiles by name, the default one marked.
func (s *Service) List(ctx context.Context) ([]Provider, error) {
	list, err := s.readProviders(ctx)
	if err != nil {
		return nil, err
	}
	def, err := s.Default(ctx)
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
func (s *Service) Get(ctx context.Context, name string) (Provider, error) {
	list, err := s.List(ctx)
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

// Add checks and stores a new profile, its key in the keyring (or,
// where there is none, in KeyFile: Provider.KeyStore says which). The first
// profile becomes the default.
func (s *Service) Add(ctx context.Context, in ProviderInput) (Provider, error) {
	if !providerName.MatchString(in.Name) {
		return Provider{}, invalidf("provider name %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", in.Name)
	}
	p, sec, err := checkInput(in)
	if err != nil {
		return Provider{}, err
	}
	if _, err := s.Get(ctx, in.Name); err == nil {
		return Provider{}, fmt.Errorf("%w: %s already exists: remove it first, or change it with foya providers edit", ErrProviderExists, in.Name)
	} else if !errors.Is(err, ErrProviderNotFound) {
		return Provider{}, err
	}
	if p.KeyStore, err = s.putSecret(in.Name, sec); err != nil {
		return Provider{}, err
	}
	err = s.updateProviders(ctx, func(list []Provider) ([]Provider, error) {
		if slices.ContainsFunc(list, func(q Provider) bool { return q.Name == p.Name }) {
			return nil, fmt.Errorf("%w: %s already exists", ErrProviderExists, p.Name)
		}
		return append(list, p), nil
	})
	if err != nil {
		if !errors.Is(err, ErrProviderExists) { // then the key is another process's
			_ = s.keys.drop(p.Name, p.KeyStore)
		}
		return Provider{}, err
	}
	if err := s.settings.UpdateSetting(ctx, SettingDefaultProvider, func(v string, ok bool) (string, bool, error) {
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
	mode := in.ToolCalls
	if mode == provider.ToolCallsAuto {
		mode = "" // the default is not stored
	}
	if !provider.ValidToolCallsMode(mode) {
		return Provider{}, providerSecret{}, invalidf("tool-call mode %q: want auto, native or text", in.ToolCalls)
	}
	if err := checkLimits(in.ContextWindow, in.MaxOutput); err != nil {
		return Provider{}, providerSecret{}, err
	}
	if err := checkPrices(in.InputPrice, in.OutputPrice); err != nil {
		return Provider{}, providerSecret{}, err
	}
	plain, sec := splitHeaders(in.Headers)
	p := Provider{Name: in.Name, BaseURL: in.BaseURL, Model: strings.TrimSpace(in.Model), Headers: plain, ToolCalls: mode,
		ContextWindow: in.ContextWindow, MaxOutput: in.MaxOutput, InputPrice: in.InputPrice, OutputPrice: in.OutputPrice}
	for name := range sec {
		p.SecretHeaders = append(p.SecretHeaders, name)
	}
	slices.Sort(p.SecretHeaders)
	return p, providerSecret{APIKey: in.APIKey, Headers: sec}, nil
}

// putSecret stores a profile's secret part, if any, and says where.
func (s *Service) putSecret(name string, sec providerSecret) (string, error) {
	if sec.empty() {
		return "", nil
	}
	b, err := json.Marshal(sec)
	if err != nil {
		return "", err
	}
	return s.keys.put(name, string(b))
}

// secretOf reads a profile's secret part.
func (s *Service) secretOf(p Provider) (providerSecret, error) {
	v, err := s.keys.get(p.Name, p.KeyStore)
	if err != nil || v == "" {
		return providerSecret{}, err
	}
	var sec providerSecret
	if err := json.Unmarshal([]byte(v), &sec); err != nil {
		return providerSecret{}, fmt.Errorf("the stored key of provider %s is not Foya's: add it again with foya providers edit %s --api-key-stdin", p.Name, p.Name)
	}
	return sec, nil
}

// Edit changes a profile. A new key or new headers replace the
// stored ones; the old key is kept until the new one is stored.
func (s *Service) Edit(ctx context.Context, name string, e ProviderEdit) (Provider, error) {
	cur, err := s.Get(ctx, name)
	if err != nil {
		return Provider{}, err
	}
	sec, err := s.secretOf(cur)
	if err != nil && (e.APIKey == nil || e.Headers == nil) {
		return Provider{}, err // a part that stays cannot be read
	}
	in := ProviderInput{Name: name, BaseURL: cur.BaseURL, Model: cur.Model, Headers: map[string]string{}, APIKey: sec.APIKey, ToolCalls: cur.ToolCalls,
		ContextWindow: cur.ContextWindow, MaxOutput: cur.MaxOutput, InputPrice: cur.InputPrice, OutputPrice: cur.OutputPrice}
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
	if e.ToolCalls != nil {
		in.ToolCalls = *e.ToolCalls
	}
	if e.ContextWindow != nil {
		in.ContextWindow = *e.ContextWindow
	}
	if e.MaxOutput != nil {
		in.MaxOutput = *e.MaxOutput
	}
	if e.InputPrice != nil {
		in.InputPrice = *e.InputPrice
	}
	if e.OutputPrice != nil {
		in.OutputPrice = *e.OutputPrice
	}
	p, nsec, err := checkInput(in)
	if err != nil {
		return Provider{}, err
	}
	if p.KeyStore, err = s.putSecret(name, nsec); err != nil {
		return Provider{}, err
	}
	err = s.updateProviders(ctx, func(list []Provider) ([]Provider, error) {
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
		_ = s.keys.drop(name, cur.KeyStore) // the old place: a leftover is harmless, put overwrote same-place keys
	}
	p.Default = cur.Default
	s.forgetWindows(name)
	return p, nil
}

// Remove removes a profile and its key. Sessions that used it keep
// its name; they run again with another profile or flags.
func (s *Service) Remove(ctx context.Context, name string) error {
	var gone Provider
	err := s.updateProviders(ctx, func(list []Provider) ([]Provider, error) {
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
	s.forgetWindows(name)
	if err := s.settings.UpdateSetting(ctx, SettingDefaultProvider, func(v string, ok bool) (string, bool, error) {
		return v, ok && v == name, nil
	}); err != nil {
		return err
	}
	return s.keys.drop(name, gone.KeyStore)
}

// SetDefault makes a profile the default.
func (s *Service) SetDefault(ctx context.Context, name string) error {
	if _, err := s.Get(ctx, name); err != nil {
		return err
	}
	return s.settings.SetSetting(ctx, SettingDefaultProvider, name)
}
