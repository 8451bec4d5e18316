// Package mcpauth signs Foya in to MCP servers reached over HTTP
// (streamable HTTP and SSE) as the MCP authorization specification says:
// OAuth 2.1 with the server as a protected resource.
//
// When a server answers 401, Session reads its WWW-Authenticate challenge
// and finds its authorization server: the protected resource metadata
// (RFC 9728: the challenge's resource_metadata, else the well-known paths,
// path-inserted then at the root), then the authorization server's own
// metadata (RFC 8414, then OpenID Connect discovery), whose issuer must be
// the one named. The client is pre-registered (Config.ClientID), a client
// ID metadata document where the server supports one and Options names it,
// or registered on the spot (RFC 7591). Signing in is an authorization
// code with PKCE S256 and the resource parameter (RFC 8707) in both the
// authorization and the token request; the page opens through
// Options.Opener (the system browser, or the command FOYA_OAUTH_OPENER
// names) and the answer comes back to a listener on 127.0.0.1 at a random
// port, where a state other than the one sent is refused. Servers that
// give tokens to programs get the client_credentials grant instead, with
// a client secret or a private_key_jwt assertion.
//
// The scopes asked are the challenge's, else the protected resource's
// scopes_supported. A 403 with insufficient_scope asks again with the
// scopes added (step-up), a bounded number of times per request. Tokens
// are refreshed when they expire or a server refuses them; a refresh the
// authorization server refuses forgets the token and the server needs a
// sign-in again (state SignInNeeded), without a restart of Foya.
//
// Tokens live in Options.Store (the kernel's: the system keyring, else a
// file of mode 0600 beside the provider keys' file), never in the
// database and never in an error or a log. Every request to an
// authorization server is bounded (Options.RequestTimeout), and so is the
// wait for the browser (Options.WaitTimeout).
//
// It imports only the standard library.
package mcpauth
