// Command foya-sandbox is the sandbox helper alone (sandbox.HelperMain): a
// small program that starts in a fraction of the time the whole foya
// binary takes, which every shell command starts once. make build puts it
// beside foya with the same stamp (sandbox.HelperStamp); foya uses it only
// when the stamps match, and starts itself as the helper otherwise.
//
// It imports backend/sandbox and the standard library only.
package main

import (
	"os"

	"foya/backend/sandbox"
)

func main() {
	os.Exit(sandbox.SmallHelperMain(os.Args[1:]))
}
