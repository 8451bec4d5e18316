package testwait

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records what Missing and MissingPart call.
type recorder struct {
	testing.TB
	calls []string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(f string, args ...any) {
	r.calls = append(r.calls, "skip: "+fmt.Sprintf(f, args...))
}
func (r *recorder) Fatalf(f string, args ...any) {
	r.calls = append(r.calls, "fatal: "+fmt.Sprintf(f, args...))
}
func (r *recorder) Errorf(f string, args ...any) {
	r.calls = append(r.calls, "error: "+fmt.Sprintf(f, args...))
}
func (r *recorder) Logf(f string, args ...any) {
	r.calls = append(r.calls, "log: "+fmt.Sprintf(f, args...))
}

// A missing prerequisite skips outside CI, with one line
// saying what was not tested, and fails under CI, naming what is missing.
func TestMissingFailsOnlyUnderCI(t *testing.T) {
	const lacks, untested = "a session bus", "the keyring"
	for _, c := range []struct {
		ci       string
		whole    string
		part     string
		ciResult bool
	}{
		{"", "skip: not tested: the keyring: this machine lacks a session bus", "log: not tested: the keyring: this machine lacks a session bus", false},
		{"false", "skip: not tested: the keyring: this machine lacks a session bus", "log: not tested: the keyring: this machine lacks a session bus", false},
		{"0", "skip: not tested: the keyring: this machine lacks a session bus", "log: not tested: the keyring: this machine lacks a session bus", false},
		{"true", "fatal: CI: not tested: the keyring: this machine lacks a session bus (CI is set, so this fails instead of skipping)",
			"error: CI: not tested: the keyring: this machine lacks a session bus (CI is set, so this fails instead of skipping)", true},
		{"1", "fatal: CI: not tested: the keyring: this machine lacks a session bus (CI is set, so this fails instead of skipping)",
			"error: CI: not tested: the keyring: this machine lacks a session bus (CI is set, so this fails instead of skipping)", true},
	} {
		t.Setenv("CI", c.ci)
		if CI() != c.ciResult {
			t.Errorf("CI=%q: CI() = %v; want %v", c.ci, CI(), c.ciResult)
		}
		r := &recorder{TB: t}
		Missing(r, lacks, untested)
		if len(r.calls) != 1 || r.calls[0] != c.whole {
			t.Errorf("CI=%q: Missing called %q; want only %q", c.ci, r.calls, c.whole)
		}
		r = &recorder{TB: t}
		MissingPart(r, lacks, untested)
		if len(r.calls) != 1 || r.calls[0] != c.part {
			t.Errorf("CI=%q: MissingPart called %q; want only %q", c.ci, r.calls, c.part)
		}
	}
}
