package mcpauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// record is what Foya keeps of a server's sign-in, in the Store.
type record struct {
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	AuthMethod   string    `json:"authMethod,omitempty"`
	Issuer       string    `json:"issuer"`
	TokenURL     string    `json:"tokenUrl"`
	Resource     string    `json:"resource"`
	Grant        string    `json:"grant,omitempty"`
	AccessToken  string    `json:"accessToken"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// expired reports whether the access token is gone or about to be.
func (r *record) expired() bool {
	return r.AccessToken == "" || (!r.Expiry.IsZero() && time.Now().Add(30*time.Second).After(r.Expiry))
}

// client is how Foya authenticates at a token endpoint.
type client struct {
	id, secret, method string
	keyFile            string
}

// authMethod picks how a client with a secret authenticates: what it was
// registered with, else client_secret_basic when the server lists it and
// not client_secret_post, else client_secret_post.
func authMethod(registered string, supported []string) string {
	if registered != "" {
		return registered
	}
	if slices.Contains(supported, "client_secret_basic") && !slices.Contains(supported, "client_secret_post") {
		return "client_secret_basic"
	}
	return "client_secret_post"
}

// tokenError is an error answer of a token endpoint (RFC 6749 §5.2).
type tokenError struct {
	Code        string `json:"error"`
	Description string `json:"error_description"`
	status      int
}

func (e *tokenError) Error() string {
	if e.Description != "" {
		return fmt.Sprintf("%s: %s", e.Code, e.Description)
	}
	if e.Code == "" {
		return fmt.Sprintf("status %d", e.status)
	}
	return e.Code
}

// tokenRequest posts form to the token endpoint with c's authentication
// and returns the token it gives. Nothing of the answer but an error's
// code and description reaches an error.
func (s *Session) tokenRequest(ctx context.Context, endpoint string, c client, form url.Values) (*record, error) {
	switch {
	case c.keyFile != "":
		a, err := assertion(c.keyFile, c.id, endpoint)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", c.id)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", a)
	case c.secret == "":
		form.Set("client_id", c.id)
	case c.method == "client_secret_post":
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("token endpoint %q: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.secret != "" && c.method == "client_secret_basic" && c.keyFile == "" {
		req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
	}
	resp, err := s.o.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the token endpoint %w", s.netErr(endpoint, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetaBytes))
	if err != nil {
		return nil, fmt.Errorf("the token endpoint %w", s.netErr(endpoint, err))
	}
	var te tokenError
	_ = json.Unmarshal(body, &te)
	if resp.StatusCode < 200 || resp.StatusCode > 299 || te.Code != "" {
		te.status = resp.StatusCode
		if te.Code == "" {
			te.Description = fmt.Sprintf("status %d", resp.StatusCode)
			te.Code = "refused"
		}
		return nil, &te
	}
	var t struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    int64  `json:"expires_in"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" {
		return nil, fmt.Errorf("the token endpoint %s answered something that is not a token (not a JSON object with an access_token)", endpoint)
	}
	if t.TokenType != "" && !strings.EqualFold(t.TokenType, "bearer") {
		return nil, fmt.Errorf("the token endpoint %s gave a %q token; MCP servers take bearer tokens", endpoint, t.TokenType)
	}
	r := &record{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, Scope: t.Scope}
	if t.ExpiresIn > 0 {
		r.Expiry = time.Now().Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	return r, nil
}

// readKey reads a PEM private key file.
func readKey(file string) (crypto.Signer, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read the private key file: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("the private key file %s holds no PEM block", file)
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, fmt.Errorf("the private key file %s holds no RSA, EC or Ed25519 private key", file)
}

// assertion is a private_key_jwt client assertion (RFC 7523) for the
// token endpoint aud, signed with the key in keyFile.
func assertion(keyFile, clientID, aud string) (string, error) {
	key, err := readKey(keyFile)
	if err != nil {
		return "", err
	}
	var alg string
	switch k := key.(type) {
	case *rsa.PrivateKey:
		alg = "RS256"
	case *ecdsa.PrivateKey:
		if k.Curve.Params().BitSize != 256 {
			return "", fmt.Errorf("the EC key of %s is not P-256 (ES256)", keyFile)
		}
		alg = "ES256"
	case ed25519.PrivateKey:
		alg = "EdDSA"
	default:
		return "", fmt.Errorf("the key of %s is of a kind Foya cannot sign with", keyFile)
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	now := time.Now()
	enc := base64.RawURLEncoding
	h, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	c, _ := json.Marshal(map[string]any{"iss": clientID, "sub": clientID, "aud": aud, "jti": enc.EncodeToString(jti),
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()})
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		d := sha256.Sum256([]byte(input))
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:])
	case *ecdsa.PrivateKey:
		d := sha256.Sum256([]byte(input))
		var r, s *big.Int
		r, s, err = ecdsa.Sign(rand.Reader, k, d[:])
		if err == nil {
			sig = make([]byte, 64)
			r.FillBytes(sig[:32])
			s.FillBytes(sig[32:])
		}
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, []byte(input))
	}
	if err != nil {
		return "", fmt.Errorf("sign the client assertion: %w", err)
	}
	return input + "." + enc.EncodeToString(sig), nil
}

// isRefused reports whether err is the token endpoint refusing (not
// failing to answer).
func isRefused(err error) bool {
	var te *tokenError
	return errors.As(err, &te)
}
