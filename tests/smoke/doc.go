// Package smoke holds the desktop smoke test: it builds the real desktop
// binary, starts it under Xvfb with its own temporary home and database,
// waits until the front end reports what it rendered, and checks a
// screenshot of the window.
//
// The test needs a display server and WebKitGTK, so it runs only when
// FOYA_SMOKE_TEST=1 (make test sets it); plain `go test ./...` skips it.
// FOYA_SMOKE_BIN=/absolute/path tests that binary instead of building one
// (make test-package runs it against the binary the .deb installed).
// Screenshots are kept in out/ (ignored by git) for people to look at.
//
// It drives the binary from the outside, as a person would; the only Foya
// package it imports is providertest, the scripted model server that
// `foya exec` talks to when the test seeds a session.
package smoke
