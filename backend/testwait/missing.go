package testwait

import (
	"os"
	"strings"
	"testing"
)

// CI reports whether the tests run under continuous integration: the CI
// environment variable is set and not "false" or "0" (CI services and
// .ci/run set CI=true).
func CI() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("CI")))
	return v != "" && v != "false" && v != "0"
}

// Missing ends a test that cannot run because this machine lacks what it
// needs: lacks names that (the sandbox's user namespaces, a session bus,
// DNS, a capability, a program and its Debian package), untested says what
// goes untested without it. Outside CI the test is skipped with one line
// saying so; under CI it fails with that line, so that a green CI run
// means every layer was tested.
func Missing(t testing.TB, lacks, untested string) {
	t.Helper()
	if CI() {
		t.Fatalf("CI: not tested: %s: this machine lacks %s (CI is set, so this fails instead of skipping)", untested, lacks)
		return
	}
	t.Skipf("not tested: %s: this machine lacks %s", untested, lacks)
}

// MissingPart is Missing for part of a test: outside CI it logs the line
// and the test goes on without that part; under CI it marks the test failed
// (and it goes on).
func MissingPart(t testing.TB, lacks, untested string) {
	t.Helper()
	if CI() {
		t.Errorf("CI: not tested: %s: this machine lacks %s (CI is set, so this fails instead of skipping)", untested, lacks)
		return
	}
	t.Logf("not tested: %s: this machine lacks %s", untested, lacks)
}
