// Package mcp connects Foya to Model Context Protocol servers through the
// mark3labs/mcp-go client and adapts what they offer: their tools become
// tools.Tool values in the kernel's one Registry (spec M1), named
// mcp__<server>__<tool>; their resources and prompts are read through the
// Manager's own methods, never as tools (spec M3).
//
// Configuration is the mcpServers format users already have (Claude
// Desktop, Cursor, Claude Code's .mcp.json; VS Code's "servers"): see
// Parse. A file that cannot be read is reported with its name and the line
// and column at fault; the other servers still load.
//
// Cancelling a call's context sends the server notifications/cancelled on
// every transport: mcp-go does it over stdio, and the wrappers of conn.go
// (cancellingHTTP, cancellingSSE) over HTTP, where mcp-go v1.2.1 sends
// nothing. Images and audio of a result are returned as bytes for the
// engine to keep as artifacts.
//
// A streamable HTTP connection keeps the listening stream (a GET the
// server answers with an event stream) open, so that what a server says
// outside a call (a changed tool list, logging, its requests such as
// roots/list) reaches Foya as over stdio; a server that answers 405 has
// none and calls go on. When the stream breaks, mcp-go reopens it and
// resumer (resume.go) adds the Last-Event-ID of the last event it had, so
// a server that keeps its events sends again what came meanwhile. Foya
// declares the roots capability: see roots.go for the roots
// each server is given.
//
// An HTTP server that answers 401 needs a sign-in (package mcpauth: OAuth
// 2.1 as the MCP authorization specification says). Options.OAuth gives
// each HTTP server an mcpauth.Session whose RoundTripper wraps the
// connection's transport (Launch.Auth): it sends the token, renews it,
// and fails a request only a person can answer with
// mcpauth.ErrSignInNeeded, which the server's Status shows (SignIn,
// SignInError). Manager.SignIn and SignOut run the sign-in and restart
// the server; the session outlives restarts.
//
// Every tool call asks the approval gateway through the call's RunContext
// with an approval.MCP action (spec M2); a server's read-only annotation is
// passed on as a hint and honoured only as the mode table says. A stdio
// server marked "sandbox" runs under the confinement Options.Confine gives
// at each start (the kernel gives the shell's own: writes only in the
// workspace less every .git, .foya and .agents, no network), talking
// through two FIFOs in a private folder; its Sweep runs after each call,
// every Options.SweepEvery and when the server ends, and what it says
// reaches the model in the call's result. Options.Verify is asked before
// every start of a project's server, restarts included: an approval that
// no longer holds (Entry.Code changed) keeps it from starting.
//
// A Manager owns one supervisor goroutine per server: it connects, lists
// the tools, registers them, and on a crash or a hung call reconnects with
// backoff. Close ends every supervisor and every server process and waits
// for them. A Manager is safe for concurrent use.
//
// It imports tools, approval, event, sandbox and mcp-go; never engine,
// store, kernel or a front end.
package mcp
