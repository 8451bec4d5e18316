package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// challenge is what a 401 or 403 answer's WWW-Authenticate Bearer
// challenge says.
type challenge struct {
	resourceMetadata string
	scope            string
	err              string
}

// parseChallenge reads the Bearer challenge of h's WWW-Authenticate
// lines (RFC 6750 §3, RFC 9728 §5.1).
func parseChallenge(h http.Header) challenge {
	var c challenge
	for _, line := range h.Values("WWW-Authenticate") {
		params := authParams(line)
		if v, ok := params["resource_metadata"]; ok && c.resourceMetadata == "" {
			c.resourceMetadata = v
		}
		if v, ok := params["scope"]; ok && c.scope == "" {
			c.scope = v
		}
		if v, ok := params["error"]; ok && c.err == "" {
			c.err = v
		}
	}
	return c
}

// authParams reads the name=value and name="quoted value" parameters of
// a challenge line; the scheme names and token68 values are skipped.
func authParams(s string) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == ',' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != '=' && s[j] != ' ' && s[j] != ',' {
			j++
		}
		name := strings.ToLower(s[i:j])
		if j >= len(s) || s[j] != '=' {
			i = j // a scheme name
			continue
		}
		j++
		var v strings.Builder
		if j < len(s) && s[j] == '"' {
			j++
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				v.WriteByte(s[j])
				j++
			}
			j++
		} else {
			for j < len(s) && s[j] != ',' && s[j] != ' ' {
				v.WriteByte(s[j])
				j++
			}
		}
		if name != "" {
			if _, ok := out[name]; !ok {
				out[name] = v.String()
			}
		}
		i = j
	}
	return out
}

// resourceMeta is protected resource metadata (RFC 9728).
type resourceMeta struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMeta is authorization server metadata (RFC 8414, OpenID Connect
// discovery).
type serverMeta struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
}

// discovery is what Foya found of a server's authorization.
type discovery struct {
	resource string // the RFC 8707 resource indicator
	scopes   []string
	as       serverMeta
}

// maxMetaBytes bounds a metadata document or a token endpoint's answer.
const maxMetaBytes = 1 << 20

// discover finds the authorization server of the MCP server at s.url.
func (s *Session) discover(ctx context.Context, ch challenge) (*discovery, error) {
	var prm *resourceMeta
	var tried []string
	candidates := []string{}
	if ch.resourceMetadata != "" {
		if err := checkEndpoint(ch.resourceMetadata); err != nil {
			return nil, fmt.Errorf("the server's challenge names resource metadata at %q: %w", ch.resourceMetadata, err)
		}
		candidates = append(candidates, ch.resourceMetadata)
	}
	candidates = append(candidates, wellKnown(s.url, "oauth-protected-resource")...)
	for _, u := range candidates {
		var m resourceMeta
		ok, err := s.getJSON(ctx, u, &m)
		if err != nil {
			return nil, err
		}
		tried = append(tried, u)
		if ok {
			prm = &m
			break
		}
	}
	d := &discovery{resource: canonical(s.url)}
	asURL := origin(s.url)
	if prm != nil {
		if prm.Resource != "" {
			if !bindsTo(prm.Resource, s.url) {
				return nil, fmt.Errorf("the protected resource metadata of %s names another resource, %q: Foya will not get it a token", s.url, prm.Resource)
			}
			d.resource = prm.Resource
		}
		d.scopes = prm.ScopesSupported
		if len(prm.AuthorizationServers) > 0 {
			asURL = prm.AuthorizationServers[0]
		}
	}
	if err := checkEndpoint(asURL); err != nil {
		return nil, fmt.Errorf("the authorization server %q: %w", asURL, err)
	}
	found := false
	for _, u := range serverMetaURLs(asURL) {
		ok, err := s.getJSON(ctx, u, &d.as)
		if err != nil {
			return nil, err
		}
		if ok {
			if strings.TrimSuffix(d.as.Issuer, "/") != strings.TrimSuffix(asURL, "/") {
				return nil, fmt.Errorf("the authorization server metadata at %s names the issuer %q, not %q: Foya will not use it", u, d.as.Issuer, asURL)
			}
			found = true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("the authorization server %s publishes no metadata (tried its RFC 8414 and OpenID Connect discovery addresses)", asURL)
	}
	for name, v := range map[string]string{"authorization_endpoint": d.as.AuthorizationEndpoint, "token_endpoint": d.as.TokenEndpoint, "registration_endpoint": d.as.RegistrationEndpoint} {
		if v == "" && name == "registration_endpoint" {
			continue
		}
		if err := checkEndpoint(v); err != nil {
			return nil, fmt.Errorf("the authorization server %s gives its %s as %q: %w", asURL, name, v, err)
		}
	}
	return d, nil
}

// getJSON gets url's JSON document into v; false when there is none there
// (an answer other than 200).
func (s *Session) getJSON(ctx context.Context, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("metadata address %q: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.o.HTTPClient.Do(req)
	if err != nil {
		return false, s.netErr(u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetaBytes))
		return false, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetaBytes+1))
	if err != nil {
		return false, s.netErr(u, err)
	}
	if len(body) > maxMetaBytes {
		return false, fmt.Errorf("the metadata at %s is larger than %d bytes", u, maxMetaBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("the metadata at %s is not a JSON object as OAuth metadata must be (%v): it begins %q", u, err, excerpt(body))
	}
	return true, nil
}

// netErr words a failed request to an authorization server.
func (s *Session) netErr(u string, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s did not answer within %v", u, s.o.RequestTimeout)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", u, err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s cannot be reached: %v", u, err)
}

// excerpt is the start of an answer, for an error.
func excerpt(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// checkEndpoint refuses an authorization address that is not https (http
// only on the loopback interface).
func checkEndpoint(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("not an absolute URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if h := u.Hostname(); h == "localhost" || net.ParseIP(h).IsLoopback() {
			return nil
		}
		return errors.New("authorization must go over https (http only on this machine's loopback)")
	}
	return fmt.Errorf("the scheme %q is not https", u.Scheme)
}

// wellKnown is the addresses of a well-known document of the server at
// raw: inserted before its path (RFC 9728 §3.1), then at its root.
func wellKnown(raw, name string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	root := u.Scheme + "://" + u.Host + "/.well-known/" + name
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{root}
	}
	return []string{root + p, root}
}

// serverMetaURLs is where an issuer's metadata may be: RFC 8414 with the
// path inserted, OpenID Connect discovery inserted, then appended.
func serverMetaURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	base := u.Scheme + "://" + u.Host
	p := strings.Trim(u.EscapedPath(), "/")
	if p == "" {
		return []string{base + "/.well-known/oauth-authorization-server", base + "/.well-known/openid-configuration"}
	}
	return []string{base + "/.well-known/oauth-authorization-server/" + p, base + "/.well-known/openid-configuration/" + p,
		base + "/" + p + "/.well-known/openid-configuration"}
}

// origin is the scheme and host of raw.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// canonical is a server URL as a resource indicator: no fragment, scheme
// and host in lower case.
func canonical(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Fragment = ""
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String()
}

// bindsTo reports whether a resource a server's metadata names is the
// server at addressed: the same scheme and host, and a path that is the
// addressed one or a parent of it.
func bindsTo(resource, addressed string) bool {
	r, err1 := url.Parse(resource)
	a, err2 := url.Parse(addressed)
	if err1 != nil || err2 != nil {
		return resource == addressed
	}
	if !strings.EqualFold(r.Scheme, a.Scheme) || !strings.EqualFold(r.Host, a.Host) {
		return false
	}
	rp, ap := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(a.EscapedPath(), "/")
	return rp == ap || strings.HasPrefix(ap, rp+"/")
}

// scopesOf splits a space-separated scope list.
func scopesOf(s string) []string { return strings.Fields(s) }

// union is a's scopes, then b's not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
