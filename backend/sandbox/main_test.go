//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"testing"

	"foya/backend/sandbox/sandboxtest"
)

// TestMain lets the test binary serve as the sandbox helper, as the foya
// binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(HelperMain(os.Args[2:]))
	}
	if script := os.Getenv("FOYA_SANDBOX_TEST_PARENT"); script != "" {
		os.Exit(parentMain(script))
	}
	code := m.Run()
	if err := sandboxtest.CheckDevNull(); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox tests:", err)
		code = 1
	}
	os.Exit(code)
}
