// Package e2e holds the browser end-to-end tests: each builds the real foya
// binary (with the built front end embedded), starts a scripted model on
// loopback and `foya serve --port 0`, reads the URL from its first line of
// output, and runs a node script from frontend/e2e/ that drives Debian's
// Chromium with playwright-core (no browser is downloaded). The script gets
// the URL and IDs from its environment and exits non-zero on failure.
//
// The tests run only when FOYA_E2E=1 (make test-e2e sets it); plain
// `go test ./...` skips them. The only Foya package they import is
// providertest; everything else is driven from the outside, over HTTP.
package e2e
