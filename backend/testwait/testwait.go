// Package testwait bounds the waits of tests for something that should
// happen (a run to end, a call to start, an event to arrive), so that a
// regression fails with a message naming what was awaited instead of
// hanging until go test's own ten-minute timeout. It is a guard against
// hangs, not a claim about speed: generous, because the tests run under
// -race on busy two-core machines, and nothing asserts on how long
// anything took. Only tests import it.
package testwait

import (
	"testing"
	"time"
)

// Limit bounds every wait.
const Limit = time.Minute

// Until polls cond until it holds, and fails the test, naming what it
// waited for, when it does not hold within Limit.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", Limit, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Receive returns the next value from ch (the zero value once ch is
// closed: a done channel closes), and fails the test, naming what it
// waited for, when nothing comes within Limit.
func Receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Limit):
		t.Fatalf("gave up after %v waiting for %s", Limit, what)
	}
	var zero T
	return zero
}
