package mcpauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Session is the sign-in of one MCP server: its state, its token, and
// the RoundTripper (Wrap) that carries the token and deals with the
// server's 401 and 403 answers. It is safe for concurrent use.
type Session struct {
	url     string
	account string
	cfg     Config
	o       Options

	// flow is held by the one sign-in or token renewal under way; a
	// request waiting for it gives up when its context ends.
	flow chan struct{}

	mu      sync.Mutex
	state   string
	errText string
	last    challenge // the last challenge the server sent
	extra   []string  // scopes a step-up asked that no sign-in got yet
	rec     *record
	loaded  bool
}

// Account is the Store account of the server at serverURL: tokens follow
// the server, whatever it is named.
func Account(serverURL string) string { return "mcp-oauth/" + canonical(serverURL) }

// New returns the session of the server at serverURL.
func New(serverURL string, cfg Config, o Options) *Session {
	return &Session{url: serverURL, account: Account(serverURL), cfg: cfg, o: o.withDefaults(), state: NotNeeded, flow: make(chan struct{}, 1)}
}

// lock takes s.flow, or fails when ctx ends first (a sign-in may hold it
// while the person is in the browser).
func (s *Session) lock(ctx context.Context) error {
	select {
	case s.flow <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the MCP server at %s: waiting for the sign-in under way: %w", s.url, ctx.Err())
	}
}

func (s *Session) unlock() { <-s.flow }

// State returns the sign-in state and, for Error and some SignInNeeded,
// why.
func (s *Session) State() (state, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.errText
}

func (s *Session) set(state, why string) {
	s.mu.Lock()
	s.state, s.errText = state, why
	s.mu.Unlock()
}

// Load reads the stored token, so that State says SignedIn before the
// first request when there is one.
func (s *Session) Load(ctx context.Context) {
	_, _ = s.stored(ctx)
}

// stored returns the record in the store (cached), nil when none.
func (s *Session) stored(ctx context.Context) (*record, error) {
	s.mu.Lock()
	if s.loaded {
		r := s.rec
		s.mu.Unlock()
		return r, nil
	}
	s.mu.Unlock()
	v, err := s.o.Store.Get(ctx, s.account)
	if errors.Is(err, ErrNotStored) {
		s.mu.Lock()
		s.loaded, s.rec = true, nil
		s.mu.Unlock()
		return nil, nil
	}
	if err != nil {
		s.set(Error, "read the sign-in token: "+err.Error())
		return nil, fmt.Errorf("read the sign-in token: %w", err)
	}
	var r record
	if json.Unmarshal([]byte(v), &r) != nil || (s.cfg.ClientID != "" && r.ClientID != s.cfg.ClientID) {
		// Unreadable, or another client's: as if none.
		r = record{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = true
	if r.AccessToken == "" {
		s.rec = nil
		return nil, nil
	}
	s.rec = &r
	if s.state == NotNeeded {
		s.state = SignedIn
	}
	return s.rec, nil
}

// save stores r and makes it the session's.
func (s *Session) save(ctx context.Context, r *record) error {
	b, _ := json.Marshal(r)
	if err := s.o.Store.Put(ctx, s.account, string(b)); err != nil {
		return fmt.Errorf("store the sign-in token: %w", err)
	}
	s.mu.Lock()
	s.rec, s.loaded = r, true
	s.state, s.errText = SignedIn, ""
	s.extra = nil
	s.mu.Unlock()
	return nil
}

// forget removes the stored token.
func (s *Session) forget(ctx context.Context) error {
	s.mu.Lock()
	s.rec, s.loaded = nil, true
	s.mu.Unlock()
	if err := s.o.Store.Delete(ctx, s.account); err != nil && !errors.Is(err, ErrNotStored) {
		return fmt.Errorf("remove the sign-in token: %w", err)
	}
	return nil
}

// SignOut forgets the server's token; the server's next refusal asks for
// a sign-in again.
func (s *Session) SignOut(ctx context.Context) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	if err := s.forget(ctx); err != nil {
		return err
	}
	s.set(SignInNeeded, "")
	return nil
}

// accessToken returns a token to send: the stored one, renewed when it
// expired; "" when there is none to send.
func (s *Session) accessToken(ctx context.Context) (string, error) {
	r, err := s.stored(ctx)
	if err != nil || r == nil {
		return "", err
	}
	if !r.expired() {
		return r.AccessToken, nil
	}
	return s.renew(ctx, r.AccessToken, nil)
}

// renew gets a new token without a person, unless another caller did
// since old was read: by refresh, or by the client_credentials grant.
// It fails with ErrSignInNeeded when only a person can.
func (s *Session) renew(ctx context.Context, old string, scopes []string) (string, error) {
	if err := s.lock(ctx); err != nil {
		return "", err
	}
	defer s.unlock()
	r, err := s.stored(ctx)
	if err != nil {
		return "", err
	}
	if r != nil && r.AccessToken != old && !r.expired() && scopes == nil {
		return r.AccessToken, nil
	}
	if s.cfg.Grant == ClientCredentials {
		return s.clientCredentials(ctx, scopes)
	}
	if r == nil || r.RefreshToken == "" || scopes != nil {
		s.mu.Lock()
		if (s.state != Error && s.state != SignInNeeded) || scopes != nil {
			// A sign-in that failed, or a refresh refused, keeps its
			// reason until the next sign-in.
			s.state, s.errText = SignInNeeded, s.neededText(scopes)
		}
		s.mu.Unlock()
		return "", fmt.Errorf("the MCP server at %s needs you to sign in: %w", s.url, ErrSignInNeeded)
	}
	c := client{id: r.ClientID, secret: r.ClientSecret, method: r.AuthMethod}
	if c.secret == "" && s.cfg.ClientSecret != "" && s.cfg.ClientID == r.ClientID {
		c.secret, c.method = s.cfg.ClientSecret, authMethod(r.AuthMethod, nil)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {r.RefreshToken}, "resource": {r.Resource}}
	nr, err := s.tokenRequest(ctx, r.TokenURL, c, form)
	if err != nil {
		if isRefused(err) {
			// The refresh token is spent or revoked: only a new sign-in
			// helps, and the dead token must not be tried again.
			_ = s.forget(ctx)
			why := fmt.Sprintf("the authorization server refused to renew the token (%v): sign in again", err)
			s.set(SignInNeeded, why)
			return "", fmt.Errorf("the MCP server at %s needs you to sign in: %s: %w", s.url, why, ErrSignInNeeded)
		}
		s.set(Error, "renew the token: "+err.Error())
		return "", fmt.Errorf("renew the sign-in token: %w", err)
	}
	nr.ClientID, nr.ClientSecret, nr.AuthMethod, nr.Issuer, nr.TokenURL, nr.Resource, nr.Grant =
		r.ClientID, r.ClientSecret, r.AuthMethod, r.Issuer, r.TokenURL, r.Resource, r.Grant
	if nr.RefreshToken == "" {
		nr.RefreshToken = r.RefreshToken
	}
	if nr.Scope == "" {
		nr.Scope = r.Scope
	}
	if err := s.save(ctx, nr); err != nil {
		s.set(Error, err.Error())
		return "", err
	}
	return nr.AccessToken, nil
}

func (s *Session) neededText(scopes []string) string {
	if scopes != nil {
		return fmt.Sprintf("the server asks for more access (scope %s): sign in again", strings.Join(scopes, " "))
	}
	return ""
}

// clientCredentials gets a token with the client_credentials grant.
// s.flow is held.
func (s *Session) clientCredentials(ctx context.Context, scopes []string) (string, error) {
	s.mu.Lock()
	ch := s.last
	s.mu.Unlock()
	d, err := s.discover(ctx, ch)
	if err != nil {
		s.set(Error, err.Error())
		return "", err
	}
	want := s.scopes(d, ch, scopes)
	c := client{id: s.cfg.ClientID, secret: s.cfg.ClientSecret, keyFile: s.cfg.PrivateKeyFile,
		method: authMethod("", d.as.TokenEndpointAuthMethodsSupported)}
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {d.resource}}
	if len(want) > 0 {
		form.Set("scope", strings.Join(want, " "))
	}
	r, err := s.tokenRequest(ctx, d.as.TokenEndpoint, c, form)
	if err != nil {
		err = fmt.Errorf("get a token with the client credentials: %w", err)
		s.set(Error, err.Error())
		return "", err
	}
	r.ClientID, r.Issuer, r.TokenURL, r.Resource, r.Grant = c.id, d.as.Issuer, d.as.TokenEndpoint, d.resource, ClientCredentials
	if r.Scope == "" {
		r.Scope = strings.Join(want, " ")
	}
	// The secret stays in the configuration; the store keeps the token.
	if err := s.save(ctx, r); err != nil {
		s.set(Error, err.Error())
		return "", err
	}
	return r.AccessToken, nil
}

// scopes is what to ask: the configuration's, the challenge's (else the
// resource's scopes_supported), what a step-up asked.
func (s *Session) scopes(d *discovery, ch challenge, more []string) []string {
	want := s.cfg.Scopes
	if cs := scopesOf(ch.scope); len(cs) > 0 {
		want = union(want, cs)
	} else {
		want = union(want, d.scopes)
	}
	s.mu.Lock()
	want = union(want, s.extra)
	s.mu.Unlock()
	return union(want, more)
}

// Wrap returns base carrying the session's token and dealing with the
// server's refusals.
func (s *Session) Wrap(base http.RoundTripper) http.RoundTripper {
	return &roundTripper{s: s, base: base}
}

type roundTripper struct {
	s    *Session
	base http.RoundTripper
}

// RoundTrip sends req with the token; on a 401 it renews the token (or
// gets one, client credentials) and sends again once; on a 403
// insufficient_scope it asks for the scopes named, at most MaxStepUps
// times. A refusal only a person can answer fails with ErrSignInNeeded.
func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	s := t.s
	ctx := req.Context()
	tok, err := s.accessToken(ctx)
	if err != nil && !errors.Is(err, ErrSignInNeeded) {
		return nil, err
	}
	var body []byte
	if req.Body != nil && req.GetBody == nil {
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	send := func(tok string) (*http.Response, error) {
		r := req.Clone(ctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
		} else if req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		if tok != "" {
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		return t.base.RoundTrip(r)
	}
	resp, err := send(tok)
	retried := false
	for stepUps := 0; err == nil; {
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			ch := parseChallenge(resp.Header)
			s.mu.Lock()
			s.last = ch
			s.mu.Unlock()
			if retried {
				drain(resp)
				s.set(SignInNeeded, "the server refused the new token")
				return nil, fmt.Errorf("the MCP server at %s refused the token it was given: %w", s.url, ErrSignInNeeded)
			}
			retried = true
			nt, rerr := s.renew(ctx, tok, nil)
			if rerr != nil {
				drain(resp)
				return nil, rerr
			}
			drain(resp)
			tok = nt
			resp, err = send(tok)
			continue
		case http.StatusForbidden:
			ch := parseChallenge(resp.Header)
			if ch.err != "insufficient_scope" {
				return resp, nil
			}
			drain(resp)
			if stepUps >= s.o.MaxStepUps {
				return nil, fmt.Errorf("the MCP server at %s still refuses for want of scope %q after %d requests for more access", s.url, ch.scope, stepUps)
			}
			stepUps++
			s.mu.Lock()
			s.last.scope = ch.scope
			s.extra = union(s.extra, scopesOf(ch.scope))
			s.mu.Unlock()
			nt, serr := s.stepUp(ctx, tok, scopesOf(ch.scope))
			if serr != nil {
				return nil, serr
			}
			tok = nt
			resp, err = send(tok)
			continue
		}
		if tok != "" {
			// A token still short of the scopes a step-up asked does not
			// make the server signed in.
			s.mu.Lock()
			if s.state != SignedIn && len(s.extra) == 0 {
				s.state, s.errText = SignedIn, ""
			}
			s.mu.Unlock()
		}
		return resp, nil
	}
	return resp, err
}

// stepUp gets a token with more scopes: by client credentials, or by a
// new sign-in where the session is interactive.
func (s *Session) stepUp(ctx context.Context, old string, more []string) (string, error) {
	if s.cfg.Grant == ClientCredentials {
		return s.renew(ctx, old, more)
	}
	if !s.o.Interactive {
		s.set(SignInNeeded, s.neededText(more))
		return "", fmt.Errorf("the MCP server at %s asks for more access (scope %s): sign in again: %w", s.url, strings.Join(more, " "), ErrSignInNeeded)
	}
	if err := s.SignIn(ctx); err != nil {
		return "", err
	}
	r, err := s.stored(ctx)
	if err != nil || r == nil {
		return "", fmt.Errorf("sign in to %s: no token after signing in", s.url)
	}
	return r.AccessToken, nil
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// random is n random bytes, base64url.
func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// pkce returns a PKCE verifier and its S256 challenge (RFC 7636).
func pkce() (verifier, challenge string) {
	verifier = random(32)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}
