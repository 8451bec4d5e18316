package hooks_test

import (
	"os"
	"testing"

	"foya/backend/sandbox"
)

// TestMain lets the test binary serve as the sandbox helper, as the foya
// binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
