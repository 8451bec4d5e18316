package mcp_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"foya/backend/mcp"
	"foya/backend/mcp/mcpauth"
	"foya/backend/mcp/mcptest"
)

// memStore is a Store in memory.
type memStore struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memStore) Get(_ context.Context, a string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[a]
	if !ok {
		return "", mcpauth.ErrNotStored
	}
	return v, nil
}

func (s *memStore) Put(_ context.Context, a, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[a] = v
	return nil
}

func (s *memStore) Delete(_ context.Context, a string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, a)
	return nil
}

func (s *memStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// follow is an opener that, like a browser whose person approves at
// once, follows the authorization page to Foya's loopback address.
func follow(opened *atomic.Int32) func(context.Context, string) error {
	return func(ctx context.Context, u string) error {
		opened.Add(1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
}

type oauthFixture struct {
	as     *mcptest.OAuth
	store  *memStore
	opened *atomic.Int32
	m      *mcp.Manager
}

func newOAuth(t *testing.T, ao mcpauth.Options, cfg *mcpauth.Config, knobs func(*mcptest.OAuth)) *oauthFixture {
	t.Helper()
	return newOAuthEntry(t, ao, func(as *mcptest.OAuth) mcp.Entry { return mcp.Entry{Name: "remote", URL: as.MCPURL, OAuth: cfg} }, knobs)
}

func newOAuthEntry(t *testing.T, ao mcpauth.Options, entry func(*mcptest.OAuth) mcp.Entry, knobs func(*mcptest.OAuth)) *oauthFixture {
	t.Helper()
	f := &oauthFixture{as: mcptest.NewOAuth(), store: &memStore{m: map[string]string{}}, opened: &atomic.Int32{}}
	if knobs != nil {
		knobs(f.as)
	}
	t.Cleanup(f.as.Close)
	ao.Store = f.store
	if ao.Opener == nil {
		ao.Opener = follow(f.opened)
	}
	if ao.WaitTimeout == 0 {
		ao.WaitTimeout = 20 * time.Second
	}
	f.m, _ = newManager(t, mcp.Options{OAuth: &ao, Backoff: time.Hour})
	f.m.Set("", []mcp.Entry{entry(f.as)})
	f.m.Wait(context.Background(), "")
	return f
}

func (f *oauthFixture) echo(t *testing.T) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := f.m.CallTool(ctx, "", "remote", "echo", json.RawMessage(`{"text":"hi"}`))
	if err == nil && res.IsError {
		b, _ := json.Marshal(res)
		return errors.New(string(b))
	}
	return err
}

// TestOAuthSignIn: a server behind an authorization server refuses Foya
// until a person signs in (state sign-in-needed, nothing stored, the
// browser not opened by itself); signing in discovers the authorization
// server from the 401's resource_metadata, registers Foya, sends PKCE
// S256 and the resource in the authorization and the token request, and
// stores the token; the server then runs and its tools answer. Signing
// out forgets the token and asks for a sign-in again.
// spec: M1
func TestOAuthSignIn(t *testing.T) {
	f := newOAuth(t, mcpauth.Options{}, nil, nil)
	st := status(f.m, "remote")
	if st.State != mcp.Failed || st.SignIn != mcpauth.SignInNeeded || !strings.Contains(st.Error, "sign in") {
		t.Fatalf("before sign-in: %+v", st)
	}
	if f.store.len() != 0 || f.opened.Load() != 0 {
		t.Fatalf("before sign-in: %d stored, opened %d times", f.store.len(), f.opened.Load())
	}
	if _, err := f.m.SignIn(context.Background(), "", "remote"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background(), "")
	st = status(f.m, "remote")
	if st.State != mcp.Ready || st.SignIn != mcpauth.SignedIn {
		t.Fatalf("after sign-in: %+v", st)
	}
	if err := f.echo(t); err != nil {
		t.Fatal(err)
	}
	if len(f.as.Requests("/.well-known/oauth-protected-resource/mcp")) == 0 || len(f.as.Requests("/.well-known/oauth-authorization-server")) == 0 {
		t.Error("no discovery requests seen")
	}
	reg := f.as.Requests("/register")
	if len(reg) != 1 || !strings.Contains(reg[0].Values.Get("redirect_uris"), "http://127.0.0.1:") {
		t.Errorf("registrations = %+v", reg)
	}
	auth := f.as.Requests("/authorize")
	if len(auth) != 1 {
		t.Fatalf("authorize requests = %d", len(auth))
	}
	a := auth[0].Values
	if a.Get("code_challenge_method") != "S256" || a.Get("code_challenge") == "" || a.Get("resource") != f.as.MCPURL || a.Get("scope") != "mcp:tools" || a.Get("state") == "" {
		t.Errorf("authorization request = %v", a)
	}
	tok := f.as.Requests("/token")
	if len(tok) != 1 || tok[0].Values.Get("resource") != f.as.MCPURL || tok[0].Values.Get("code_verifier") == "" || tok[0].Values.Get("grant_type") != "authorization_code" {
		t.Errorf("token requests = %+v", tok)
	}
	if f.store.len() != 1 {
		t.Errorf("stored %d tokens", f.store.len())
	}
	b, _ := json.Marshal(f.m.Statuses())
	for _, v := range f.store.m {
		var r struct{ AccessToken string }
		_ = json.Unmarshal([]byte(v), &r)
		if r.AccessToken == "" || strings.Contains(string(b), r.AccessToken) {
			t.Errorf("token missing from the store or shown in the statuses")
		}
	}

	if _, err := f.m.SignOut(context.Background(), "", "remote"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background(), "")
	if st := status(f.m, "remote"); st.SignIn != mcpauth.SignInNeeded || st.State != mcp.Failed || f.store.len() != 0 {
		t.Fatalf("after sign-out: %+v, %d stored", st, f.store.len())
	}
}

// TestOAuthRefresh: an expired token is refreshed (with the resource) and
// the call goes on; a refresh the authorization server refuses ends in a
// clear error and sign-in-needed, the dead token forgotten, and a sign-in
// then works again without a restart of the manager.
// spec: M1
func TestOAuthRefresh(t *testing.T) {
	f := newOAuth(t, mcpauth.Options{}, nil, nil)
	if _, err := f.m.SignIn(context.Background(), "", "remote"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background(), "")
	f.as.Expire()
	if err := f.echo(t); err != nil {
		t.Fatalf("call after expiry: %v", err)
	}
	var refreshed []string
	for _, r := range f.as.Requests("/token") {
		if r.Values.Get("grant_type") == "refresh_token" {
			refreshed = append(refreshed, r.Values.Get("resource"))
		}
	}
	if len(refreshed) != 1 || refreshed[0] != f.as.MCPURL {
		t.Fatalf("refresh requests' resources = %q", refreshed)
	}

	f.as.Lock()
	f.as.RefuseRefresh = true
	f.as.Unlock()
	f.as.Expire()
	err := f.echo(t)
	if err == nil || !strings.Contains(err.Error(), "sign in") {
		t.Fatalf("call after a refused refresh: %v", err)
	}
	st := status(f.m, "remote")
	if st.SignIn != mcpauth.SignInNeeded || !strings.Contains(st.SignInError, "refused to renew the token (invalid_grant") {
		t.Fatalf("after a refused refresh: %+v", st)
	}
	if f.store.len() != 0 {
		t.Fatal("the refused token was kept")
	}
	if _, err := f.m.SignIn(context.Background(), "", "remote"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background(), "")
	if err := f.echo(t); err != nil {
		t.Fatalf("call after signing in again: %v", err)
	}
}

// TestOAuthClientCredentials: a server whose entry names the
// client-credentials grant gets its token without a person, with a client
// secret or a private_key_jwt assertion, and with the resource.
// spec: M1
func TestOAuthClientCredentials(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]mcpauth.Config{
		"secret": {ClientID: "svc", ClientSecret: "s3cret", Grant: mcpauth.ClientCredentials},
		"jwt":    {ClientID: "jwt-svc", PrivateKeyFile: keyFile, Grant: mcpauth.ClientCredentials},
	} {
		t.Run(name, func(t *testing.T) {
			if err := cfg.Check(); err != nil {
				t.Fatal(err)
			}
			f := newOAuth(t, mcpauth.Options{}, &cfg, func(o *mcptest.OAuth) {
				o.Clients["svc"] = "s3cret"
				o.Keys["jwt-svc"] = &key.PublicKey
			})
			if st := status(f.m, "remote"); st.State != mcp.Ready || st.SignIn != mcpauth.SignedIn {
				t.Fatalf("state: %+v", st)
			}
			if err := f.echo(t); err != nil {
				t.Fatal(err)
			}
			tok := f.as.Requests("/token")
			if len(tok) != 1 || tok[0].Values.Get("grant_type") != "client_credentials" || tok[0].Values.Get("resource") != f.as.MCPURL {
				t.Fatalf("token requests = %+v", tok)
			}
			if f.opened.Load() != 0 {
				t.Error("the browser was opened")
			}
		})
	}
}

// TestOAuthStepUp: a call the server refuses with 403 insufficient_scope
// asks for the scopes named: in the desktop the server then needs a
// sign-in (the call fails saying so) and the next sign-in asks them; on
// the command line (interactive) Foya signs in again at once and the
// call goes through.
// spec: M1
func TestOAuthStepUp(t *testing.T) {
	for _, interactive := range []bool{false, true} {
		t.Run(map[bool]string{false: "desktop", true: "interactive"}[interactive], func(t *testing.T) {
			f := newOAuth(t, mcpauth.Options{Interactive: interactive}, nil, func(o *mcptest.OAuth) { o.CallScope = "mcp:call" })
			if _, err := f.m.SignIn(context.Background(), "", "remote"); err != nil {
				t.Fatal(err)
			}
			f.m.Wait(context.Background(), "")
			err := f.echo(t)
			if !interactive {
				if err == nil || !strings.Contains(err.Error(), "asks for more access (scope mcp:tools mcp:call)") {
					t.Fatalf("call without the scope: %v", err)
				}
				if st := status(f.m, "remote"); st.SignIn != mcpauth.SignInNeeded {
					t.Fatalf("after the 403: %+v", st)
				}
				if _, err := f.m.SignIn(context.Background(), "", "remote"); err != nil {
					t.Fatal(err)
				}
				f.m.Wait(context.Background(), "")
				err = f.echo(t)
			}
			if err != nil {
				t.Fatalf("call after the step-up: %v", err)
			}
			auth := f.as.Requests("/authorize")
			if len(auth) != 2 || auth[1].Values.Get("scope") != "mcp:tools mcp:call" {
				t.Fatalf("authorization requests = %+v", auth)
			}
		})
	}
}

// TestOAuthBadInput: what goes wrong on the way ends the sign-in with a
// clear error, stores nothing and leaves the server not started: an
// authorization server answering garbage, an answer with another state,
// a token endpoint that never answers, a browser that never comes back,
// no way to register, an opener that fails.
// spec: M1
func TestOAuthBadInput(t *testing.T) {
	cases := []struct {
		name  string
		opts  mcpauth.Options
		knobs func(*mcptest.OAuth)
		want  string
	}{
		{"garbage metadata", mcpauth.Options{}, func(o *mcptest.OAuth) { o.Garbage = true }, "is not a JSON object as OAuth metadata must be"},
		{"wrong state", mcpauth.Options{}, func(o *mcptest.OAuth) { o.WrongStates = 1 }, "another state than the one Foya sent"},
		{"hanging token endpoint", mcpauth.Options{RequestTimeout: 300 * time.Millisecond}, func(o *mcptest.OAuth) { o.HangToken = true }, "/token did not answer within 300ms"},
		{"no browser answer", mcpauth.Options{WaitTimeout: 200 * time.Millisecond, Opener: func(context.Context, string) error { return nil }}, nil, "no answer from the browser within 200ms"},
		{"no registration", mcpauth.Options{}, func(o *mcptest.OAuth) { o.NoRegistration = true }, "registers no clients"},
		{"opener fails", mcpauth.Options{Opener: func(context.Context, string) error { return errors.New("no browser here") }}, nil, "no browser here"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newOAuth(t, c.opts, nil, c.knobs)
			_, err := f.m.SignIn(context.Background(), "", "remote")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("sign-in error = %v, want %q", err, c.want)
			}
			st := status(f.m, "remote")
			if st.State == mcp.Ready || st.SignIn != mcpauth.Error || !strings.Contains(st.SignInError, c.want) {
				t.Fatalf("status = %+v", st)
			}
			if f.store.len() != 0 {
				t.Fatal("a token was stored")
			}
		})
	}
}

// TestOAuthConfigCheck: bad combinations of client settings are refused
// with what to do.
// spec: M1
func TestOAuthConfigCheck(t *testing.T) {
	for _, c := range []struct {
		cfg  mcpauth.Config
		want string
	}{
		{mcpauth.Config{Grant: "password"}, "not \"password\""},
		{mcpauth.Config{ClientID: "a", ClientSecret: "s", PrivateKeyFile: "k"}, "not both"},
		{mcpauth.Config{ClientSecret: "s"}, "needs the client ID"},
		{mcpauth.Config{Grant: mcpauth.ClientCredentials}, "needs a client ID"},
		{mcpauth.Config{ClientID: "a", Grant: mcpauth.ClientCredentials}, "needs a client secret or a private key file"},
		{mcpauth.Config{ClientID: "a", PrivateKeyFile: "k"}, "client-credentials requests only"},
		{mcpauth.Config{ClientID: "a", PrivateKeyFile: "/nonexistent/key.pem", Grant: mcpauth.ClientCredentials}, "read the private key file"},
	} {
		if err := c.cfg.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestOAuthDiscoveryAndClients: the other ways to an authorization server
// and to a client: a 401 with no resource_metadata (the metadata found at
// its well-known address, the scopes from its scopes_supported) and
// metadata only at the OpenID Connect discovery address; a pre-registered
// client; a client ID metadata document where the server takes one (no
// registration); an SSE server, a resource of its own.
// spec: M1
func TestOAuthDiscoveryAndClients(t *testing.T) {
	const cimd = "https://foya.example/oauth/client.json"
	cases := []struct {
		name     string
		opts     mcpauth.Options
		entry    func(*mcptest.OAuth) mcp.Entry
		knobs    func(*mcptest.OAuth)
		client   string // the authorization request's client_id; "" for a registered one
		resource func(*mcptest.OAuth) string
	}{
		{name: "well-known and OpenID", knobs: func(o *mcptest.OAuth) { o.NoHint, o.OpenIDOnly = true, true }},
		{name: "pre-registered", client: "pre", knobs: func(o *mcptest.OAuth) { o.Clients["pre"] = "" },
			entry: func(o *mcptest.OAuth) mcp.Entry {
				return mcp.Entry{Name: "remote", URL: o.MCPURL, OAuth: &mcpauth.Config{ClientID: "pre"}}
			}},
		{name: "client ID metadata document", client: cimd, opts: mcpauth.Options{ClientMetadataURL: cimd}, knobs: func(o *mcptest.OAuth) { o.CIMD = true }},
		{name: "SSE", entry: func(o *mcptest.OAuth) mcp.Entry { return mcp.Entry{Name: "remote", URL: o.SSEURL, Type: mcp.SSE} },
			resource: func(o *mcptest.OAuth) string { return o.SSEURL }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entry := c.entry
			if entry == nil {
				entry = func(o *mcptest.OAuth) mcp.Entry { return mcp.Entry{Name: "remote", URL: o.MCPURL} }
			}
			f := newOAuthEntry(t, c.opts, entry, c.knobs)
			if st := status(f.m, "remote"); st.SignIn != mcpauth.SignInNeeded {
				t.Fatalf("before: %+v", st)
			}
			if _, err := f.m.SignIn(context.Background(), "", "remote"); err != nil {
				t.Fatal(err)
			}
			f.m.Wait(context.Background(), "")
			if st := status(f.m, "remote"); st.State != mcp.Ready || st.SignIn != mcpauth.SignedIn {
				t.Fatalf("after: %+v", st)
			}
			if err := f.echo(t); err != nil {
				t.Fatal(err)
			}
			auth := f.as.Requests("/authorize")
			if len(auth) != 1 {
				t.Fatalf("%d authorizations", len(auth))
			}
			a := auth[0].Values
			want := f.as.MCPURL
			if c.resource != nil {
				want = c.resource(f.as)
			}
			if a.Get("resource") != want || a.Get("scope") != "mcp:tools" {
				t.Errorf("authorization request = %v", a)
			}
			if c.client != "" && (a.Get("client_id") != c.client || len(f.as.Requests("/register")) != 0) {
				t.Errorf("client_id %q, %d registrations; want %q and none", a.Get("client_id"), len(f.as.Requests("/register")), c.client)
			}
			if c.name == "well-known and OpenID" && len(f.as.Requests("/.well-known/openid-configuration")) == 0 {
				t.Error("the OpenID Connect discovery address was not asked")
			}
		})
	}
}

// TestOAuthStepUpLimit: a server that keeps refusing for want of scope,
// however often Foya signs in again, gets a bounded number of step-ups
// and the call a clear error.
// spec: M1
func TestOAuthStepUpLimit(t *testing.T) {
	f := newOAuth(t, mcpauth.Options{Interactive: true}, nil, func(o *mcptest.OAuth) { o.CallScope, o.GrantScope = "mcp:call", "mcp:tools" })
	if _, err := f.m.SignIn(context.Background(), "", "remote"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background(), "")
	err := f.echo(t)
	if err == nil || !strings.Contains(err.Error(), "still refuses for want of scope") || !strings.Contains(err.Error(), "after 2 requests") {
		t.Fatalf("call = %v", err)
	}
	if n := len(f.as.Requests("/authorize")); n != 3 {
		t.Errorf("%d authorizations; want the sign-in and 2 step-ups", n)
	}
}
