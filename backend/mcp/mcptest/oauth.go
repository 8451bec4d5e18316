package mcptest

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// OAuth is an MCP server (New, over streamable HTTP at MCPURL) behind an
// OAuth 2.1 authorization server of its own, on one test HTTP server:
// protected resource metadata, RFC 8414 metadata, dynamic registration,
// an authorization endpoint that approves at once (redirecting to the
// client's loopback address), and a token endpoint for the
// authorization_code (PKCE S256 checked), refresh_token and
// client_credentials (client secret or an ES256 private_key_jwt) grants.
// It records what it was sent, and its knobs make it misbehave.
type OAuth struct {
	*httptest.Server
	// MCPURL is the protected MCP endpoint; SSEURL the same server over
	// SSE, protected as a resource of its own.
	MCPURL, SSEURL string

	mu sync.Mutex
	// Knobs, set before use (under Lock for a running test).
	// Scope is what a 401 challenge asks; CallScope, if set, is what
	// tools/call needs besides (a 403 insufficient_scope asks it).
	Scope, CallScope string
	// TokenTTL is an access token's life (default an hour).
	TokenTTL time.Duration
	// Garbage makes the authorization server's metadata not JSON.
	Garbage bool
	// HangToken makes the token endpoint never answer (until Close).
	HangToken bool
	// RefuseRefresh makes refresh requests fail with invalid_grant.
	RefuseRefresh bool
	// WrongStates is how many of the next authorizations send back
	// another state than the client's.
	WrongStates int
	// NoRegistration hides the registration endpoint.
	NoRegistration bool
	// OpenIDOnly publishes the metadata at the OpenID Connect discovery
	// address only.
	OpenIDOnly bool
	// NoHint leaves resource_metadata out of 401 challenges: the client
	// must find the metadata at its well-known address.
	NoHint bool
	// NoResourceMeta hides the protected resource metadata (a server of
	// the 2025-03-26 revision, with NoHint); NoServerMeta the
	// authorization server's (that revision's fallback: fixed paths).
	NoResourceMeta, NoServerMeta bool
	// CIMD says the server takes client ID metadata documents: an https
	// URL as client ID, unregistered.
	CIMD bool
	// GrantScope, if set, is the scope of every token, whatever was
	// asked (a server that never grants a step-up).
	GrantScope string
	// Clients are pre-registered clients: their secrets by ID.
	Clients map[string]string
	// Keys are pre-registered private_key_jwt clients: their public keys.
	Keys map[string]*ecdsa.PublicKey

	// Seen are the requests to the authorization server, in order.
	Seen []Seen

	codes   map[string]grant
	tokens  map[string]grant // access tokens
	refresh map[string]grant
	hang    chan struct{}
	issued  []string
}

// Seen is one request the authorization server got: its path and its
// query or form values (secrets included: it is a test's).
type Seen struct {
	Path   string
	Values url.Values
}

type grant struct {
	client, scope, resource, redirect, challenge string
	expiry                                       time.Time
}

// NewOAuth starts an OAuth-protected MCP server; Close ends it.
func NewOAuth() *OAuth {
	o := &OAuth{Scope: "mcp:tools", Clients: map[string]string{}, Keys: map[string]*ecdsa.PublicKey{},
		codes: map[string]grant{}, tokens: map[string]grant{}, refresh: map[string]grant{}, hang: make(chan struct{})}
	mux := http.NewServeMux()
	o.Server = httptest.NewUnstartedServer(mux)
	base := "http://" + o.Server.Listener.Addr().String()
	mcpHandler := server.NewStreamableHTTPServer(New())
	sse := server.NewSSEServer(New(), server.WithBaseURL(base))
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", o.resourceMeta)
	mux.HandleFunc("/.well-known/oauth-protected-resource/sse", o.resourceMeta)
	mux.HandleFunc("/.well-known/oauth-authorization-server", o.serverMeta)
	mux.HandleFunc("/.well-known/openid-configuration", o.serverMeta)
	mux.HandleFunc("/register", o.register)
	mux.HandleFunc("/authorize", o.authorize)
	mux.HandleFunc("/token", o.token)
	mux.Handle("/mcp", o.protect(mcpHandler))
	mux.Handle("/sse", o.protect(sse.SSEHandler()))
	mux.Handle("/message", o.protect(sse.MessageHandler()))
	// Set before the server starts: its handlers read them.
	o.MCPURL = base + "/mcp"
	o.SSEURL = base + "/sse"
	o.Server.Start()
	return o
}

// resourceOf is the resource a request to the MCP server is for.
func (o *OAuth) resourceOf(path string) string {
	if path == "/sse" || path == "/message" || strings.HasSuffix(path, "/sse") {
		return o.SSEURL
	}
	return o.MCPURL
}

// Close ends the server, a hung token request included.
func (o *OAuth) Close() {
	o.mu.Lock()
	select {
	case <-o.hang:
	default:
		close(o.hang)
	}
	o.mu.Unlock()
	o.Server.CloseClientConnections()
	o.Server.Close()
}

// Lock and Unlock guard the knobs and Seen while the server runs.
func (o *OAuth) Lock()   { o.mu.Lock() }
func (o *OAuth) Unlock() { o.mu.Unlock() }

// Requests returns the requests seen at path.
func (o *OAuth) Requests(path string) []Seen {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []Seen
	for _, s := range o.Seen {
		if s.Path == path {
			out = append(out, s)
		}
	}
	return out
}

// Issued returns every access and refresh token the server gave.
func (o *OAuth) Issued() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.issued)
}

// Expire makes every access token expired.
func (o *OAuth) Expire() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, g := range o.tokens {
		g.expiry = time.Now().Add(-time.Minute)
		o.tokens[k] = g
	}
}

func (o *OAuth) note(r *http.Request, v url.Values) {
	o.mu.Lock()
	o.Seen = append(o.Seen, Seen{Path: r.URL.Path, Values: v})
	o.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (o *OAuth) resourceMeta(w http.ResponseWriter, r *http.Request) {
	o.note(r, r.URL.Query())
	o.mu.Lock()
	none := o.NoResourceMeta
	o.mu.Unlock()
	if none {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, 200, map[string]any{"resource": o.resourceOf(r.URL.Path), "authorization_servers": []string{o.URL},
		"scopes_supported": []string{"mcp:tools"}})
}

func (o *OAuth) serverMeta(w http.ResponseWriter, r *http.Request) {
	o.note(r, r.URL.Query())
	o.mu.Lock()
	garbage, noReg, openID, cimd, none := o.Garbage, o.NoRegistration, o.OpenIDOnly, o.CIMD, o.NoServerMeta
	o.mu.Unlock()
	if none || openID != (r.URL.Path == "/.well-known/openid-configuration") {
		http.NotFound(w, r)
		return
	}
	if garbage {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "<html>this is not metadata")
		return
	}
	m := map[string]any{"issuer": o.URL, "authorization_endpoint": o.URL + "/authorize", "token_endpoint": o.URL + "/token",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_post", "client_secret_basic", "private_key_jwt"}}
	if !noReg {
		m["registration_endpoint"] = o.URL + "/register"
	}
	if cimd {
		m["client_id_metadata_document_supported"] = true
	}
	writeJSON(w, 200, m)
}

func (o *OAuth) register(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	v := url.Values{}
	for k, x := range req {
		b, _ := json.Marshal(x)
		v.Set(k, string(b))
	}
	o.note(r, v)
	id := "dyn-" + token()
	o.mu.Lock()
	o.Clients[id] = ""
	o.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": req["redirect_uris"], "token_endpoint_auth_method": "none"})
}

func (o *OAuth) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o.note(r, q)
	o.mu.Lock()
	_, known := o.Clients[q.Get("client_id")]
	known = known || (o.CIMD && strings.HasPrefix(q.Get("client_id"), "https://"))
	wrong := o.WrongStates > 0
	if wrong {
		o.WrongStates--
	}
	o.mu.Unlock()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case err != nil || redirect.Hostname() != "127.0.0.1":
		http.Error(w, "redirect_uri must be a loopback address", 400)
		return
	case !known:
		http.Error(w, "unknown client", 400)
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		http.Error(w, "PKCE S256 required", 400)
		return
	case q.Get("resource") != o.MCPURL && q.Get("resource") != o.SSEURL:
		http.Error(w, "resource must be "+o.MCPURL+" or "+o.SSEURL, 400)
		return
	}
	code := token()
	o.mu.Lock()
	o.codes[code] = grant{client: q.Get("client_id"), scope: q.Get("scope"), resource: q.Get("resource"),
		redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge")}
	o.mu.Unlock()
	state := q.Get("state")
	if wrong {
		state = "not-" + state
	}
	back := url.Values{"code": {code}, "state": {state}}
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+back.Encode(), http.StatusFound)
}

func (o *OAuth) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	v := r.PostForm
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		v.Set("client_id", id)
		v.Set("client_secret", secret)
	}
	o.note(r, v)
	o.mu.Lock()
	hang := o.HangToken
	o.mu.Unlock()
	if hang {
		select {
		case <-o.hang:
		case <-r.Context().Done():
		}
		return
	}
	fail := func(code, why string) { writeJSON(w, 400, map[string]string{"error": code, "error_description": why}) }
	var g grant
	switch v.Get("grant_type") {
	case "authorization_code":
		o.mu.Lock()
		c, ok := o.codes[v.Get("code")]
		delete(o.codes, v.Get("code"))
		o.mu.Unlock()
		sum := sha256.Sum256([]byte(v.Get("code_verifier")))
		switch {
		case !ok:
			fail("invalid_grant", "unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			fail("invalid_grant", "PKCE verifier does not match")
			return
		case v.Get("redirect_uri") != c.redirect || v.Get("client_id") != c.client:
			fail("invalid_grant", "redirect_uri or client_id differs")
			return
		case v.Get("resource") != c.resource:
			fail("invalid_target", "resource differs")
			return
		}
		g = c
	case "refresh_token":
		o.mu.Lock()
		c, ok := o.refresh[v.Get("refresh_token")]
		delete(o.refresh, v.Get("refresh_token"))
		refuse := o.RefuseRefresh
		o.mu.Unlock()
		if !ok || refuse {
			fail("invalid_grant", "refresh token revoked")
			return
		}
		if v.Get("resource") != c.resource {
			fail("invalid_target", "resource differs")
			return
		}
		g = c
	case "client_credentials":
		id := v.Get("client_id")
		o.mu.Lock()
		secret, hasSecret := o.Clients[id]
		key := o.Keys[id]
		o.mu.Unlock()
		switch {
		case key != nil:
			if err := verifyES256(v.Get("client_assertion"), key, id, o.URL); err != nil ||
				v.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
				writeJSON(w, 401, map[string]string{"error": "invalid_client", "error_description": fmt.Sprint("bad assertion: ", err)})
				return
			}
		case !hasSecret || secret == "" || secret != v.Get("client_secret"):
			writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			return
		}
		g = grant{client: id, scope: v.Get("scope"), resource: v.Get("resource")}
	default:
		fail("unsupported_grant_type", v.Get("grant_type"))
		return
	}
	o.mu.Lock()
	ttl := o.TokenTTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	if o.GrantScope != "" {
		g.scope = o.GrantScope
	}
	g.expiry = time.Now().Add(ttl)
	access, refresh := token(), token()
	o.tokens[access] = g
	o.issued = append(o.issued, access, refresh)
	out := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(ttl / time.Second), "scope": g.scope}
	if v.Get("grant_type") != "client_credentials" {
		o.refresh[refresh] = g
		out["refresh_token"] = refresh
	}
	o.mu.Unlock()
	writeJSON(w, 200, out)
}

// protect lets through requests with a live token for the MCP endpoint,
// and tools/call only with CallScope.
func (o *OAuth) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resource := o.resourceOf(r.URL.Path)
		meta := o.URL + "/.well-known/oauth-protected-resource" + strings.TrimPrefix(resource, o.URL)
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		o.mu.Lock()
		g, ok := o.tokens[tok]
		scope, callScope, noHint := o.Scope, o.CallScope, o.NoHint
		o.mu.Unlock()
		if !ok || time.Now().After(g.expiry) || g.resource != resource {
			challenge := fmt.Sprintf(`Bearer resource_metadata="%s", scope="%s"`, meta, scope)
			if noHint {
				challenge = `Bearer realm="mcp"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if callScope != "" && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			if m.Method == "tools/call" && !slices.Contains(strings.Fields(g.scope), callScope) {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s %s", resource_metadata="%s"`, scope, callScope, meta))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func token() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// verifyES256 checks a private_key_jwt assertion.
func verifyES256(jwt string, key *ecdsa.PublicKey, client, aud string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("not a JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return fmt.Errorf("bad signature encoding")
	}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(key, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return fmt.Errorf("bad signature")
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss, Sub, Aud string
		Exp           int64
	}
	if err := json.Unmarshal(claims, &c); err != nil {
		return err
	}
	if c.Iss != client || c.Sub != client || c.Aud != aud || time.Now().Unix() > c.Exp {
		return fmt.Errorf("bad claims %+v", c)
	}
	return nil
}

var _ crypto.PublicKey = (*ecdsa.PublicKey)(nil)
