package helperentry

import (
	"os"

	"foya/backend/sandbox"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
}
