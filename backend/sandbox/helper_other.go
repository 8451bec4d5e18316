//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// HelperMain is the entry point of the sandbox helper on Linux; on this
// system no helper is used, and it only prints an error.
func HelperMain(args []string) int {
	fmt.Fprintf(os.Stderr, "%s is internal and not used on this system\n", HelperArg)
	return 2
}
