package engine

import (
	"testing"
	"time"
)

// hangLimit bounds every wait of this package's tests for something that
// should happen (a run to end, a call to start, an event to arrive), so
// that a regression fails with a message instead of hanging until go
// test's own ten-minute timeout. It is a guard against hangs, not a claim
// about speed: generous, because these tests run under -race on busy
// two-core machines, and nothing asserts on how long anything took.
const hangLimit = 30 * time.Second

// waitUntil polls cond until it holds, and fails the test, naming what it
// waited for, when it does not hold within hangLimit.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", hangLimit, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// receive returns the next value from ch (the zero value once ch is
// closed: a done channel closes), and fails the test, naming what it waited
// for, when nothing comes within hangLimit.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangLimit):
		t.Fatalf("gave up after %v waiting for %s", hangLimit, what)
	}
	var zero T
	return zero
}
