package sandbox

import "os"

// removeDirWhileOpen is false: Windows removes no folder that is open.
const removeDirWhileOpen = false

// lockDir locks nothing on Windows: no command is restricted there, so no
// command relies on a read-only folder and the one made can always go.
func lockDir(*os.File, bool) error { return nil }
