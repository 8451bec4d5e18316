package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

type memStore struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memStore) Get(_ context.Context, a string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.m[a]; ok {
		return v, nil
	}
	return "", ErrNotStored
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

// TestChallenge reads WWW-Authenticate challenges: quoted and bare
// values, several schemes and lines, escapes.
// spec: M1
func TestChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x"`)
	h.Add("WWW-Authenticate", `Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="say \"more\""`)
	c := parseChallenge(h)
	if c.err != "insufficient_scope" || c.scope != "a b" || c.resourceMetadata != "https://h/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("challenge = %+v", c)
	}
	if p := authParams(`Bearer scope=read,error=invalid_token`); p["scope"] != "read" || p["error"] != "invalid_token" {
		t.Fatalf("bare values = %v", p)
	}
	if c := parseChallenge(http.Header{"Www-Authenticate": {`Bearer`}}); c != (challenge{}) {
		t.Fatalf("empty challenge = %+v", c)
	}
}

// TestEndpointRules: authorization addresses are https, http only on
// loopback; wellKnown and serverMetaURLs insert the path as the RFCs say.
// spec: M1
func TestEndpointRules(t *testing.T) {
	for u, ok := range map[string]bool{"https://as.example/token": true, "http://127.0.0.1:9/token": true, "http://localhost/t": true,
		"http://as.example/token": false, "javascript:alert(1)": false, "file:///etc/passwd": false, "/token": false} {
		if err := checkEndpoint(u); (err == nil) != ok {
			t.Errorf("checkEndpoint(%q) = %v", u, err)
		}
	}
	if got := wellKnown("https://h/a/mcp", "oauth-protected-resource"); strings.Join(got, " ") != "https://h/.well-known/oauth-protected-resource/a/mcp https://h/.well-known/oauth-protected-resource" {
		t.Errorf("wellKnown = %v", got)
	}
	if got := serverMetaURLs("https://h/tenant"); len(got) != 3 || got[0] != "https://h/.well-known/oauth-authorization-server/tenant" || got[2] != "https://h/tenant/.well-known/openid-configuration" {
		t.Errorf("serverMetaURLs = %v", got)
	}
	if !bindsTo("https://h", "https://h/mcp") || bindsTo("https://h/m", "https://h/mcp") || bindsTo("https://other/mcp", "https://h/mcp") {
		t.Error("bindsTo")
	}
}

// TestDiscoveryRefusals: metadata that would send a token elsewhere or
// that cannot be read ends the sign-in with what is wrong, before any
// page opens and with nothing stored: a protected resource naming another
// server, an issuer other than the one named, an authorization server
// without PKCE S256, an http endpoint off loopback, a document over 1 MiB.
// spec: M1
func TestDiscoveryRefusals(t *testing.T) {
	cases := []struct {
		name string
		prm  func(base string) string
		meta func(base string) string
		want string
	}{
		{"other resource", func(b string) string {
			return `{"resource":"https://victim.example/mcp","authorization_servers":["` + b + `"]}`
		}, nil, `names another resource, "https://victim.example/mcp"`},
		{"issuer differs", nil, func(b string) string {
			return `{"issuer":"https://evil.example","authorization_endpoint":"` + b + `/a","token_endpoint":"` + b + `/t","code_challenge_methods_supported":["S256"]}`
		}, `names the issuer "https://evil.example"`},
		{"no PKCE", nil, func(b string) string {
			return `{"issuer":"` + b + `","authorization_endpoint":"` + b + `/a","token_endpoint":"` + b + `/t","registration_endpoint":"` + b + `/r"}`
		}, "does not say it supports PKCE with S256"},
		{"http endpoint", nil, func(b string) string {
			return `{"issuer":"` + b + `","authorization_endpoint":"http://as.example/a","token_endpoint":"` + b + `/t","code_challenge_methods_supported":["S256"]}`
		}, "authorization must go over https"},
		{"huge", nil, func(b string) string {
			return `{"issuer":"` + b + `","x":"` + strings.Repeat("a", 2<<20) + `"}`
		}, "larger than 1048576 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/.well-known/oauth-protected-resource/mcp":
					if c.prm != nil {
						fmt.Fprint(w, c.prm(srv.URL))
						return
					}
					fmt.Fprintf(w, `{"resource":"%s/mcp","authorization_servers":["%s"]}`, srv.URL, srv.URL)
				case "/.well-known/oauth-authorization-server":
					if c.meta != nil {
						fmt.Fprint(w, c.meta(srv.URL))
						return
					}
					fmt.Fprintf(w, `{"issuer":"%s","authorization_endpoint":"%s/a","token_endpoint":"%s/t","registration_endpoint":"%s/r","code_challenge_methods_supported":["S256"]}`, srv.URL, srv.URL, srv.URL, srv.URL)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			store := &memStore{m: map[string]string{}}
			opened := false
			s := New(srv.URL+"/mcp", Config{}, Options{Store: store, Opener: func(context.Context, string) error { opened = true; return errors.New("must not open") }})
			err := s.SignIn(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("SignIn = %v, want %q", err, c.want)
			}
			if opened || len(store.m) != 0 {
				t.Fatalf("opened %v, stored %d", opened, len(store.m))
			}
			if st, why := s.State(); st != Error || !strings.Contains(why, c.want) {
				t.Fatalf("state %s %q", st, why)
			}
		})
	}
}

// TestRequestDuringSignIn: while a person is in the browser, a request to
// the server that needs a token does not wait for them beyond its own
// context; cancelling the sign-in ends it with nothing stored.
// spec: M1
func TestRequestDuringSignIn(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			fmt.Fprintf(w, `{"resource":"%s/mcp","authorization_servers":["%s"]}`, srv.URL, srv.URL)
		case "/.well-known/oauth-authorization-server":
			fmt.Fprintf(w, `{"issuer":"%s","authorization_endpoint":"%s/a","token_endpoint":"%s/t","code_challenge_methods_supported":["S256"]}`, srv.URL, srv.URL, srv.URL)
		default:
			w.Header().Set("WWW-Authenticate", `Bearer scope="x"`)
			http.Error(w, "no", http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	opened := make(chan string, 1)
	store := &memStore{m: map[string]string{}}
	s := New(srv.URL+"/mcp", Config{ClientID: "pre"}, Options{Store: store, Opener: func(_ context.Context, u string) error { opened <- u; return nil }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.SignIn(ctx) }()
	page := <-opened
	if !strings.Contains(page, "client_id=pre") || !strings.Contains(page, "code_challenge_method=S256") {
		t.Errorf("page = %s", page)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer rcancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{}`))
	got := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: s.Wrap(http.DefaultTransport)}).Do(req)
		if resp != nil {
			resp.Body.Close()
		}
		got <- err
	}()
	if err := <-got; err == nil || !strings.Contains(err.Error(), "waiting for the sign-in under way") {
		t.Fatalf("request during the sign-in = %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sign-in = %v", err)
	}
	if len(store.m) != 0 {
		t.Fatal("something was stored")
	}
}
