package engine

import (
	"testing"

	"foya/backend/testwait"
)

// hangLimit bounds every wait of this package's tests (see testwait).
const hangLimit = testwait.Limit

// waitUntil polls cond until it holds, failing the test, naming what it
// waited for, after hangLimit.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, cond)
}

// receive returns the next value from ch, failing the test, naming what it
// waited for, after hangLimit.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return testwait.Receive(t, ch, what)
}
