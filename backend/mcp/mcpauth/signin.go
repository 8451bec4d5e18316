package mcpauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ErrWrongState is the failure of a sign-in whose answer came back with a
// state other than the one sent: it may come from another page than the
// one Foya opened, so its code is not used.
var ErrWrongState = errors.New("the sign-in answer carries another state than the one Foya sent (a forged or stale answer): nothing was signed in; sign in again")

// SignIn signs in to the server: with the client credentials when the
// configuration says so, else a person in the browser (authorization
// code with PKCE). The token is stored only when all went well.
func (s *Session) SignIn(ctx context.Context) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	if s.cfg.Grant == ClientCredentials {
		_, err := s.clientCredentials(ctx, nil)
		return err
	}
	err := s.authorize(ctx)
	if err != nil {
		s.set(Error, err.Error())
	}
	return err
}

// authorize runs the authorization code flow. s.flow is held.
func (s *Session) authorize(ctx context.Context) error {
	s.mu.Lock()
	ch := s.last
	s.mu.Unlock()
	d, err := s.discover(ctx, ch)
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", s.url, err)
	}
	if !slices.Contains(d.as.CodeChallengeMethodsSupported, "S256") {
		return fmt.Errorf("sign in to %s: its authorization server %s does not say it supports PKCE with S256 (code_challenge_methods_supported), which MCP requires", s.url, d.as.Issuer)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("sign in to %s: listen for the browser's answer: %w", s.url, err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	c, err := s.client(ctx, d, redirect)
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", s.url, err)
	}
	verifier, challenge := pkce()
	state := random(24)
	scopes := s.scopes(d, ch, nil)
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {redirect}, "state": {state},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {d.resource}}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	page := d.as.AuthorizationEndpoint
	if strings.Contains(page, "?") {
		page += "&" + q.Encode()
	} else {
		page += "?" + q.Encode()
	}

	type answer struct {
		code string
		err  error
	}
	answers := make(chan answer, 1)
	give := func(a answer) {
		select {
		case answers <- a:
		default:
		}
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		v := r.URL.Query()
		var a answer
		switch {
		case v.Get("state") != state:
			a.err = ErrWrongState
		case v.Get("error") != "":
			msg := v.Get("error")
			if d := v.Get("error_description"); d != "" {
				msg += ": " + d
			}
			a.err = fmt.Errorf("the authorization server refused the sign-in (%s)", bounded(msg, 300))
		case v.Get("code") == "":
			a.err = errors.New("the authorization server's answer carries no code")
		default:
			a.code = v.Get("code")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if a.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<!doctype html><title>Foya</title><p>Foya could not sign in: %s</p>", html.EscapeString(a.err.Error()))
		} else {
			fmt.Fprint(w, "<!doctype html><title>Foya</title><p>Signed in. You can close this page and go back to Foya.</p>")
		}
		give(a)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	if err := s.o.Opener(ctx, page); err != nil {
		return fmt.Errorf("sign in to %s: %w", s.url, err)
	}
	wait := time.NewTimer(s.o.WaitTimeout)
	defer wait.Stop()
	var a answer
	select {
	case a = <-answers:
	case <-wait.C:
		return fmt.Errorf("sign in to %s: no answer from the browser within %v: sign in again", s.url, s.o.WaitTimeout)
	case <-ctx.Done():
		return fmt.Errorf("sign in to %s: %w", s.url, ctx.Err())
	}
	if a.err != nil {
		return fmt.Errorf("sign in to %s: %w", s.url, a.err)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {a.code}, "redirect_uri": {redirect},
		"code_verifier": {verifier}, "resource": {d.resource}}
	r, err := s.tokenRequest(ctx, d.as.TokenEndpoint, c, form)
	if err != nil {
		if isRefused(err) {
			err = fmt.Errorf("the authorization server refused the code: %w", err)
		}
		return fmt.Errorf("sign in to %s: %w", s.url, err)
	}
	r.ClientID, r.ClientSecret, r.AuthMethod, r.Issuer, r.TokenURL, r.Resource, r.Grant =
		c.id, c.secret, c.method, d.as.Issuer, d.as.TokenEndpoint, d.resource, AuthorizationCode
	if s.cfg.ClientSecret != "" && c.secret == s.cfg.ClientSecret {
		r.ClientSecret = "" // the configuration's: it stays there
	}
	if r.Scope == "" {
		r.Scope = strings.Join(scopes, " ")
	}
	return s.save(ctx, r)
}

// client is the client Foya signs in as: pre-registered, its client ID
// metadata document, or registered now (RFC 7591).
func (s *Session) client(ctx context.Context, d *discovery, redirect string) (client, error) {
	if s.cfg.ClientID != "" {
		return client{id: s.cfg.ClientID, secret: s.cfg.ClientSecret,
			method: authMethod("", d.as.TokenEndpointAuthMethodsSupported)}, nil
	}
	if d.as.ClientIDMetadataDocumentSupported && s.o.ClientMetadataURL != "" {
		return client{id: s.o.ClientMetadataURL}, nil
	}
	if d.as.RegistrationEndpoint == "" {
		return client{}, fmt.Errorf("its authorization server %s registers no clients (no registration_endpoint) and Foya has no client ID for it: "+
			"register Foya there (redirect URI http://127.0.0.1/callback, any port) and give the client ID (--client-id, or \"oauth\": {\"clientId\": ...} in the server's entry)", d.as.Issuer)
	}
	reqBody, _ := json.Marshal(map[string]any{
		"client_name":                s.o.ClientName,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           "native",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(reqBody))
	if err != nil {
		return client{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.o.HTTPClient.Do(req)
	if err != nil {
		return client{}, fmt.Errorf("register Foya: the registration endpoint %w", s.netErr(d.as.RegistrationEndpoint, err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetaBytes))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var te tokenError
		_ = json.Unmarshal(body, &te)
		te.status = resp.StatusCode
		return client{}, fmt.Errorf("register Foya at %s: refused (%v)", d.as.RegistrationEndpoint, &te)
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(body, &reg); err != nil || reg.ClientID == "" {
		return client{}, fmt.Errorf("register Foya at %s: the answer is not a registration (no client_id): it begins %q", d.as.RegistrationEndpoint, excerpt(body))
	}
	c := client{id: reg.ClientID, secret: reg.ClientSecret}
	if c.secret != "" {
		c.method = authMethod(reg.AuthMethod, d.as.TokenEndpointAuthMethodsSupported)
	}
	return c, nil
}

func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
