package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// States of a server's sign-in, as a person sees them.
const (
	// NotNeeded: the server has asked for no sign-in (yet).
	NotNeeded = "not-needed"
	// SignedIn: Foya holds a token for the server.
	SignedIn = "signed-in"
	// SignInNeeded: the server refused Foya without a token, or the token
	// could not be renewed: a person must sign in.
	SignInNeeded = "sign-in-needed"
	// Error: signing in failed for another reason (its text says which).
	Error = "error"
)

// Grants a Config may name.
const (
	// AuthorizationCode is a person signing in in the browser (the
	// default).
	AuthorizationCode = "authorization-code"
	// ClientCredentials is a program's own credentials, no person: a
	// client secret or a private key (private_key_jwt).
	ClientCredentials = "client-credentials"
)

// Config is how Foya signs in to one server: all optional for a person
// signing in to a server that registers clients itself.
type Config struct {
	// ClientID is a client pre-registered with the authorization server.
	ClientID string `json:"clientId,omitempty"`
	// ClientSecret is its secret, for a confidential client.
	ClientSecret string `json:"clientSecret,omitempty"`
	// PrivateKeyFile is a PEM private key (RSA, P-256 or Ed25519) that
	// signs a private_key_jwt client assertion (client credentials only).
	PrivateKeyFile string `json:"privateKeyFile,omitempty"`
	// Grant is AuthorizationCode (empty) or ClientCredentials.
	Grant string `json:"grant,omitempty"`
	// Scopes are asked besides those the server names.
	Scopes []string `json:"scopes,omitempty"`
	// ClientMetadataURL is the https URL of a client ID metadata document
	// that describes Foya (one the user or their organisation hosts): the
	// client ID where the authorization server takes such documents.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
}

// Check says what is wrong with a Config's combination of fields.
func (c Config) Check() error {
	switch c.Grant {
	case "", AuthorizationCode, ClientCredentials:
	default:
		return fmt.Errorf("the grant is %s or %s, not %q", AuthorizationCode, ClientCredentials, c.Grant)
	}
	if c.ClientSecret != "" && c.PrivateKeyFile != "" {
		return errors.New("give a client secret or a private key file, not both")
	}
	if (c.ClientSecret != "" || c.PrivateKeyFile != "") && c.ClientID == "" {
		return errors.New("a client secret or a private key file needs the client ID it belongs to")
	}
	if c.Grant == ClientCredentials && c.ClientID == "" {
		return errors.New("the client-credentials grant needs a client ID and its secret or private key file")
	}
	if c.Grant == ClientCredentials && c.ClientSecret == "" && c.PrivateKeyFile == "" {
		return errors.New("the client-credentials grant needs a client secret or a private key file")
	}
	if c.PrivateKeyFile != "" && c.Grant != ClientCredentials {
		return errors.New("a private key file signs client-credentials requests only: add the client-credentials grant")
	}
	if c.ClientMetadataURL != "" {
		u, err := url.Parse(c.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return fmt.Errorf("a client metadata document's URL is an https URL with a path, not %q", c.ClientMetadataURL)
		}
		if c.ClientID != "" {
			return errors.New("give a client ID or a client metadata document's URL, not both")
		}
	}
	if c.PrivateKeyFile != "" {
		if _, err := readKey(c.PrivateKeyFile); err != nil {
			return err
		}
	}
	return nil
}

// Store keeps tokens by account, as opaque strings. Get returns
// ErrNotStored when there is none.
type Store interface {
	Get(ctx context.Context, account string) (string, error)
	Put(ctx context.Context, account, value string) error
	Delete(ctx context.Context, account string) error
}

// ErrNotStored is a Store's answer for an account it holds nothing for:
// fs.ErrNotExist, so that a store need not import this package (the
// keyring's store lives beside the provider keys, in profiles), or an
// error that wraps it.
var ErrNotStored = fs.ErrNotExist

// ErrSignInNeeded is what a request to a server fails with when the
// server needs a sign-in Foya cannot do without a person.
var ErrSignInNeeded = errors.New("sign-in needed")

// Options configure Sessions.
type Options struct {
	// Store keeps the tokens (required).
	Store Store
	// Opener shows the authorization page to the person (default
	// SystemOpener).
	Opener func(ctx context.Context, url string) error
	// RequestTimeout bounds each request to an authorization server
	// (default 30s); WaitTimeout bounds the wait for the person in the
	// browser (default 5m).
	RequestTimeout, WaitTimeout time.Duration
	// HTTPClient sends the requests to authorization servers; its
	// Timeout is set to RequestTimeout. Default: a client of its own.
	HTTPClient *http.Client
	// ClientName is the name Foya registers under (default "Foya").
	ClientName string
	// ClientMetadataURL is an https URL of Foya's client ID metadata
	// document: its client ID where an authorization server supports such
	// documents (client_id_metadata_document_supported). Empty: Foya
	// registers itself instead.
	ClientMetadataURL string
	// Interactive sessions sign in again themselves when a server asks
	// for more scopes (the command line); others (the desktop) set
	// SignInNeeded and leave it to a person.
	Interactive bool
	// MaxStepUps bounds how often one request asks for more scopes after
	// a 403 insufficient_scope (default 2).
	MaxStepUps int
}

func (o Options) withDefaults() Options {
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.WaitTimeout <= 0 {
		o.WaitTimeout = 5 * time.Minute
	}
	if o.Opener == nil {
		o.Opener = SystemOpener
	}
	if o.ClientName == "" {
		o.ClientName = "Foya"
	}
	if o.MaxStepUps <= 0 {
		o.MaxStepUps = 2
	}
	c := &http.Client{}
	if o.HTTPClient != nil {
		*c = *o.HTTPClient
	}
	c.Timeout = o.RequestTimeout
	o.HTTPClient = c
	return o
}

// OpenerEnv names a command that is given the authorization page's URL
// instead of the browser (headless use, tests).
const OpenerEnv = "FOYA_OAUTH_OPENER"

// SystemOpener opens url with the command OpenerEnv names, else the
// system's browser. It returns once the command started.
func SystemOpener(ctx context.Context, url string) error {
	var argv []string
	if c := strings.Fields(os.Getenv(OpenerEnv)); len(c) > 0 {
		argv = append(c, url)
	} else {
		switch runtime.GOOS {
		case "darwin":
			argv = []string{"open", url}
		case "windows":
			argv = []string{"rundll32", "url.dll,FileProtocolHandler", url}
		default:
			argv = []string{"xdg-open", url}
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open the sign-in page with %s: %w", argv[0], err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
